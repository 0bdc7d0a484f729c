"""send_email over TLS (STARTTLS and implicit TLS) against aiosmtpd with a throwaway certificate."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from pydantic import SecretStr

import deputy.connectors.email.smtp as smtp_module
from deputy.connectors import ConnectorError
from deputy.connectors.email.smtp import OutgoingEmail, SmtpAccount, send_email

USER = "alice"
PASSWORD = "tls-pw-do-not-leak"

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1, and its key."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return cert, key


class Collector:
    """Keeps each envelope together with whether its session was encrypted and logged in."""

    def __init__(self) -> None:
        self.received: list[tuple[Envelope, bool, bool]] = []

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        # Not session.ssl: aiosmtpd fills that in after STARTTLS only, not for implicit TLS.
        assert server.transport is not None
        encrypted = server.transport.get_extra_info("ssl_object") is not None
        self.received.append((envelope, encrypted, bool(session.authenticated)))
        return "250 Accepted"


def authenticate(server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any) -> AuthResult:
    ok = isinstance(data, LoginPassword) and (data.login, data.password) == (USER.encode(), PASSWORD.encode())
    return AuthResult(success=ok, handled=False)


@pytest.fixture
def tls_server(certificate: tuple[Path, Path], request: pytest.FixtureRequest) -> Iterator[tuple[int, Collector]]:
    """An authenticating server; STARTTLS by default, implicit TLS when parametrized with "implicit"."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*certificate)
    implicit = getattr(request, "param", "starttls") == "implicit"
    # aiosmtpd only counts STARTTLS as encryption for auth_require_tls, not implicit TLS,
    # so with implicit TLS it would not even advertise AUTH unless told not to care.
    tls: dict[str, Any] = (
        {"ssl_context": context, "auth_require_tls": False}
        if implicit
        else {"tls_context": context, "require_starttls": True}
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    collector = Collector()
    controller = Controller(
        collector, hostname="127.0.0.1", port=port, server_hostname="localhost", authenticator=authenticate, **tls
    )
    controller.start()
    yield port, collector
    controller.stop()


@pytest.fixture
def trust_certificate(certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    cafile = str(certificate[0])
    monkeypatch.setattr(smtp_module, "_tls_context", lambda: ssl.create_default_context(cafile=cafile))


def account(port: int, **overrides: object) -> SmtpAccount:
    fields: dict[str, object] = {
        "host": "127.0.0.1",
        "port": port,
        "username": USER,
        "password": SecretStr(PASSWORD),
        "from_address": "alice@example.com",
        "timeout": 5,
    }
    return SmtpAccount.model_validate(fields | overrides)


EMAIL = OutgoingEmail(to=["bob@example.com"], subject="Encrypted", body="Hello over TLS.\n")


@pytest.mark.usefixtures("trust_certificate")
def test_starttls_upgrades_before_logging_in(tls_server: tuple[int, Collector]) -> None:
    port, collector = tls_server
    sent = send_email(account(port, starttls=True), EMAIL, "tls-1")
    [(envelope, encrypted, logged_in)] = collector.received
    assert encrypted and logged_in
    assert envelope.rcpt_tos == ["bob@example.com"] and sent.accepted == ["bob@example.com"]


@pytest.mark.usefixtures("trust_certificate")
@pytest.mark.parametrize("tls_server", ["implicit"], indirect=True)
def test_implicit_tls(tls_server: tuple[int, Collector]) -> None:
    port, collector = tls_server
    send_email(account(port, use_ssl=True), EMAIL, "tls-2")
    [(_, encrypted, logged_in)] = collector.received
    assert encrypted and logged_in


def test_an_untrusted_certificate_stops_before_anything_is_sent(tls_server: tuple[int, Collector]) -> None:
    port, collector = tls_server
    with pytest.raises(ConnectorError, match="couldn't verify the certificate") as caught:
        send_email(account(port, starttls=True), EMAIL, "tls-3")
    assert not caught.value.retryable
    assert PASSWORD not in repr(caught.value) and PASSWORD not in (caught.value.detail or "")
    assert collector.received == []
