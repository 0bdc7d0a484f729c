"""send_email against servers that do not speak SMTP: every one is ConnectorUnavailable."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from pydantic import SecretStr

from deputy.connectors import ConnectorUnavailable
from deputy.connectors.email.smtp import OutgoingEmail, SmtpAccount, send_email

PASSWORD = "pw-garbage-do-not-leak"
ACCOUNT = {
    "host": "127.0.0.1",
    "username": "alice",
    "password": SecretStr(PASSWORD),
    "from_address": "alice@example.com",
    "starttls": False,
    "timeout": 0.5,
}
EMAIL = OutgoingEmail(to=["bob@example.com"], subject="Lunch?", body="Noon?\n")


@contextmanager
def scripted_server(script: Callable[[socket.socket], None]) -> Iterator[int]:
    """A one-connection TCP server that runs `script` instead of speaking SMTP."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(5)  # never outlive a test whose client failed to connect

    def serve() -> None:
        try:
            connection, _ = listener.accept()
            with connection:
                script(connection)
        except OSError:
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        thread.join(timeout=5)
        listener.close()


def drain(connection: socket.socket) -> None:
    """Read until the client hangs up, so the client decides when it is over."""
    while connection.recv(4096):
        pass


def hang_up(connection: socket.socket) -> None:
    """Do nothing more: scripted_server then closes the connection."""


def answer_junk(connection: socket.socket) -> None:
    """Answer every command (EHLO, then the HELO fallback) with nonsense."""
    while connection.recv(4096):
        connection.sendall(b"\x00\xffnope\r\n")


def say(first: bytes, then: Callable[[socket.socket], None] = drain) -> Callable[[socket.socket], None]:
    """A script that sends `first` and carries on with `then`."""

    def run(connection: socket.socket) -> None:
        connection.sendall(first)
        then(connection)

    return run


NONSENSE = "didn't answer like a mail server"
SCRIPTS: dict[str, tuple[Callable[[socket.socket], None], str]] = {
    "junk greeting": (say(b"HELLO I AM NOT A MAIL SERVER\r\n"), NONSENSE),
    "binary noise": (say(bytes(range(256)) * 4, then=hang_up), NONSENSE),
    "hangs up at once": (hang_up, "hung up"),
    "endless line": (say(b"220" + b"x" * 10_000), NONSENSE),
    "junk after greeting": (say(b"220 hi\r\n", then=answer_junk), NONSENSE),
    "silent after greeting": (say(b"220 hi\r\n"), "stopped answering"),
    "silent from the start": (drain, "stopped answering"),
}


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_server_speaking_garbage_is_unavailable_not_a_crash(name: str) -> None:
    script, expected = SCRIPTS[name]
    with scripted_server(script) as port:
        with pytest.raises(ConnectorUnavailable) as caught:
            send_email(SmtpAccount.model_validate(ACCOUNT | {"port": port}), EMAIL, "action-1")
    assert caught.value.user_message.startswith(f"The mail server at 127.0.0.1:{port} {expected}")
    assert caught.value.retryable
    assert PASSWORD not in repr(caught.value) and PASSWORD not in (caught.value.detail or "")
