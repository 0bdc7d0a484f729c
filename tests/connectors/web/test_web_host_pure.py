"""The browser host's pure parts, without a browser: what it refuses in its environment, the greeting's
shape, and which proxy sockets left behind it removes."""

from __future__ import annotations

import os
import socket
import tempfile
import time
from pathlib import Path

import pytest

from deputy.apps.browser_host import forbidden_variables
from deputy.connectors.web.host import sweep_stale_proxy_sockets
from deputy.connectors.web.host_protocol import (
    OpenWorker,
    ProtocolError,
    WorkerOpened,
    WorkerRefused,
    frame,
    new_proxy_socket_name,
    parse_answer,
    parse_open,
    proxy_socket_path,
)


def test_every_key_token_password_and_way_into_redis_is_refused_by_name() -> None:
    environment = {
        "PATH": "/usr/bin", "DEPUTY_BROWSER_HOST_SOCKET": "/run/deputy-browser/host.sock", "DEPUTY_LOG_LEVEL": "INFO",
        "DEPUTY_HEALTH_PORT": "9100", "DEPUTY_VAULT_KEY": "x", "DEPUTY_ISSUER_KEY": "x", "DEPUTY_MANDATE_KEY": "x",
        "DEPUTY_SECRET": "x", "DEPUTY_AUDIT_KEY": "x", "TELEGRAM_BOT_TOKEN": "x", "OPENAI_API_KEY": "x",
        "REDIS_URL": "redis://r", "REDIS_SENTINELS": "s:26379", "REDIS_PASSWORD": "x", "DEPUTY_SMTP_PASSWORD": "x",
        "DEPUTY_SOME_FUTURE_TOKEN": "x", "DEPUTY_UNLOCK_KEY": "",  # set but empty holds nothing
    }
    assert forbidden_variables(environment) == sorted([
        "DEPUTY_VAULT_KEY", "DEPUTY_ISSUER_KEY", "DEPUTY_MANDATE_KEY", "DEPUTY_SECRET", "DEPUTY_AUDIT_KEY",
        "TELEGRAM_BOT_TOKEN", "OPENAI_API_KEY", "REDIS_URL", "REDIS_SENTINELS", "REDIS_PASSWORD",
        "DEPUTY_SMTP_PASSWORD", "DEPUTY_SOME_FUTURE_TOKEN"])


def test_a_greeting_names_a_user_and_a_bare_proxy_socket_name_only() -> None:
    name = new_proxy_socket_name()
    request = OpenWorker(user_id=7, proxy_socket=name)
    assert parse_open(frame(request)[4:]) == request
    for bad in ("../host.sock", "/run/deputy-browser/proxy-aaaaaaaaaaaaaaaaaaaaaaaa.sock", "proxy-short.sock"):
        with pytest.raises(ProtocolError):
            parse_open(f'{{"user_id": 7, "proxy_socket": "{bad}"}}'.encode())
    with pytest.raises(ProtocolError):
        parse_open(f'{{"user_id": 7, "proxy_socket": "{name}", "session": "someone else\'s"}}'.encode())
    assert proxy_socket_path(Path("/run/deputy-browser/host.sock"), name) == Path("/run/deputy-browser") / name
    opened = WorkerOpened(launcher="/tmp/box/launch", worker_pid=12)
    refused = WorkerRefused(refused="no")
    assert parse_answer(frame(opened)[4:]) == opened and parse_answer(frame(refused)[4:]) == refused
    with pytest.raises(ProtocolError):
        parse_answer(b'{"something": "else"}')


def test_only_proxy_sockets_nobody_listens_on_and_older_than_a_minute_are_removed() -> None:
    # A short directory, as the host's own is: a Unix socket's path holds at most 107 bytes, and pytest's
    # tmp_path under a parallel run (…/popen-gw1/test_only_proxy_sockets…/) leaves too few for a proxy's name.
    with tempfile.TemporaryDirectory(prefix="bh-", dir="/tmp") as directory:
        _sweep_in(Path(directory))


def _sweep_in(tmp_path: Path) -> None:
    def made(name: str, listening: bool, age: float) -> tuple[Path, socket.socket]:
        path = tmp_path / name
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        if listening:
            server.listen()
        else:
            server.close()
        os.utime(path, (time.time() - age, time.time() - age))
        return path, server

    stale, _ = made(new_proxy_socket_name(), listening=False, age=300)
    fresh, _ = made(new_proxy_socket_name(), listening=False, age=1)  # still being set up, perhaps
    live, server = made(new_proxy_socket_name(), listening=True, age=300)
    other, _ = made("host.sock", listening=False, age=300)
    try:
        sweep_stale_proxy_sockets(tmp_path)
        assert not stale.exists()
        assert fresh.exists() and live.exists() and other.exists()
    finally:
        server.close()
