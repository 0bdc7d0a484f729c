"""Shared fixtures: a private redis-server, the sandbox mail server, the scripted model."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Iterator

import pytest
from redis import Redis
from tests_support import email_script

from agent.testing import ScriptedModelServer, text
from deputy.testing import DeputyStack, RedisServer
from sandbox.mail import LocalMailServer


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture
def redis(redis_server: RedisServer) -> Iterator[Redis]:
    client = redis_server.client()
    client.flushall()
    yield client
    client.close()


@pytest.fixture
def smtp_password() -> str:
    return "smtp-" + secrets.token_hex(8)


@pytest.fixture
def mail_server(tmp_path: Path, smtp_password: str) -> Iterator[LocalMailServer]:
    server = LocalMailServer(maildir_root=tmp_path / "mail", username="deputy", password=smtp_password)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def model_server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(lambda request: text("No script was set for this test.")) as server:
        yield server


@pytest.fixture
def smtp_env(mail_server: LocalMailServer, smtp_password: str) -> dict[str, str]:
    return {
        "DEPUTY_SMTP_HOST": "127.0.0.1",
        "DEPUTY_SMTP_PORT": str(mail_server.port),
        "DEPUTY_SMTP_USERNAME": "deputy",
        "DEPUTY_SMTP_PASSWORD": smtp_password,
        "DEPUTY_SMTP_FROM": "me@deputy.test",
        "DEPUTY_SMTP_STARTTLS": "false",
    }


@pytest.fixture
def stack_env() -> dict[str, str]:
    """Extra environment for the `stack` processes; override in a test module."""
    return {}


@pytest.fixture
def stack(
    redis_server: RedisServer,
    redis: Redis,
    model_server: ScriptedModelServer,
    smtp_env: dict[str, str],
    stack_env: dict[str, str],
    tmp_path: Path,
) -> Iterator[DeputyStack]:
    """The whole of Deputy as real processes, with a model that emails Alice."""
    model_server.responder = email_script
    deputy = DeputyStack(
        redis_server.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env, extra_env=stack_env
    ).start()
    yield deputy
    deputy.stop()
