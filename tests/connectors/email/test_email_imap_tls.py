"""IMAP over STARTTLS against pymap with a throwaway certificate: verified, or refused."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from deputy.core.records.effects import ConnectorError, ConnectorUnavailable, OperationResult
from deputy.connectors.catalog import Catalog
from deputy.connectors.email.imap import ImapAccount, ImapSession
from deputy.connectors.email.mail_operations import MAIL_OPERATIONS
from deputy.connectors.email.mail_runners import MailRunners
from deputy.core.records.actions import Action

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")

USER, PASSWORD = "tls@sandbox.local", "tls-pw-do-not-leak"
SEARCH = Action(id="a", goal_id="g", user_id=7, chat_id=7, connector="email", operation="search_email",
                effect=Catalog(MAIL_OPERATIONS).get("search_email").spec.effect,  # type: ignore[union-attr]
                arguments={}, tool_call_id="t", created_at=0)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    return cert, key


@pytest.fixture(scope="module")
def port(certificate: tuple[Path, Path]) -> Iterator[int]:
    """pymap's in-memory backend with STARTTLS, its demo data and one user."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    cert, key = certificate
    process = subprocess.Popen(
        [sys.executable, "-c", "from pymap.main import main; main()", "--host", "127.0.0.1", "--port", str(free),
         "--cert", str(cert), "--key", str(key), "--no-service", "admin", "--no-service", "managesieve",
         "--no-service", "swim", "dict", "--demo-data", "--demo-user", USER, "--demo-password", PASSWORD],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 15
    while not _greets(free):
        assert process.poll() is None and time.monotonic() < deadline, "pymap did not start"
        time.sleep(0.02)
    yield free
    process.terminate()
    process.wait(timeout=5)


def _greets(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            return sock.recv(64).startswith(b"* OK")
    except OSError:
        return False


def search(port: int, context: ssl.SSLContext | None = None, **overrides: object) -> OperationResult | str:
    account = ImapAccount.model_validate({"host": "127.0.0.1", "port": port, "username": USER,
                                          "password": SecretStr(PASSWORD), "use_ssl": False, "starttls": True,
                                          "timeout": 5, **overrides})
    session = (lambda a: ImapSession(a, context=lambda: context)) if context else ImapSession
    return MailRunners(lambda _: account, send=lambda *a: None, session=session).search_email(SEARCH, "k")  # type: ignore[arg-type,return-value]


def test_starttls_with_a_trusted_certificate_reads_mail(port: int, certificate: tuple[Path, Path]) -> None:
    result = search(port, ssl.create_default_context(cafile=str(certificate[0])))
    assert isinstance(result, OperationResult) and "email(s) in INBOX" in result.summary


def test_an_unverifiable_certificate_is_refused_before_login(port: int) -> None:
    with pytest.raises(ConnectorError) as caught:
        search(port)  # the system's CAs do not know the throwaway certificate
    assert type(caught.value) is ConnectorError and not caught.value.retryable
    assert caught.value.user_message == f"I couldn't verify the certificate of the mail server at 127.0.0.1:{port}."
    assert PASSWORD not in (caught.value.detail or "")


def test_implicit_tls_against_a_plain_port_is_unavailable(port: int) -> None:
    with pytest.raises(ConnectorUnavailable):
        search(port, use_ssl=True)
