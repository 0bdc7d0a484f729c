"""Shared fixtures: a private redis-server, the sandbox mail server, the scripted model."""

from __future__ import annotations

import gc
import secrets
import socket
from pathlib import Path
from typing import Iterator

import pytest
from redis import Redis
from tests_support import OutsideNetworkCall, email_script

from deputy.agent.model.testing import ScriptedModelServer, text
from deputy.testing.stack import DeputyStack, RedisServer
from deputy.sandbox.mail import LocalMailServer


_LOCAL_PREFIXES = ("127.", "::1", "0:0:0:0:0:0:0:1", "localhost")
_real_connect, _real_connect_ex = socket.socket.connect, socket.socket.connect_ex


def _only_this_machine(address: object) -> None:
    """Refuse a connection that would leave this machine: a real model, Telegram or any remote API."""
    if isinstance(address, tuple) and not str(address[0]).startswith(_LOCAL_PREFIXES):
        raise OutsideNetworkCall(
            f"a test tried to connect to {address[0]}:{address[1]}; tests talk only to local servers "
            "(mark a test `outside_network` if it really must)"
        )


@pytest.fixture(autouse=True)
def no_outside_network(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs with connections beyond this machine refused, asyncio's included.

    A test that would reach api.openai.com or api.telegram.org by mistake (a wrong base URL,
    a default left in place) fails here instead of hanging on, or paying for, the real thing.
    """
    if request.node.get_closest_marker("outside_network"):
        return

    def connect(sock: socket.socket, address: object) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            _only_this_machine(address)
        return _real_connect(sock, address)

    def connect_ex(sock: socket.socket, address: object) -> int:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            _only_this_machine(address)
        return _real_connect_ex(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)


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
    # Left empty too: a later module's stack on this worker's Redis must not find this test's vault (made with
    # another key) or outbox.
    client.flushall()
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


@pytest.fixture
def asyncio_garbage_collected() -> Iterator[None]:
    """Collect a test's asyncio clients as it ends, not during a later test: their finalizers run Python code, and
    one run inside another test's `ast.parse` (Hypothesis digests its test's source) trips CPython 3.11.7's
    shared AST recursion counter."""
    yield
    gc.collect()
