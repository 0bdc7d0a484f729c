"""send_email against real SMTP: the sandbox mail server and a server that refuses recipients."""

from __future__ import annotations

import hashlib
import socket
import traceback
from collections.abc import Iterator

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from pydantic import SecretStr, ValidationError

from deputy.connectors import (
    ConnectorAuthError,
    ConnectorError,
    ConnectorOutcomeUnknown,
    ConnectorRejected,
    ConnectorUnavailable,
    EffectClass,
)
from deputy.connectors.email import SEND_EMAIL
from deputy.connectors.email.smtp import OutgoingEmail, SmtpAccount, send_email
from deputy.connectors.progress import listening
from deputy.sandbox.mail import LocalMailServer

USER = "alice"
PASSWORD = "pw-Zq8#do-not-leak"
KEY = "action-42"


@pytest.fixture
def server() -> Iterator[LocalMailServer]:
    with LocalMailServer(username=USER, password=PASSWORD) as running:
        yield running


def account_for(port: int, password: str | None = PASSWORD, **overrides: object) -> SmtpAccount:
    fields: dict[str, object] = {
        "host": "127.0.0.1",
        "port": port,
        "username": USER,
        "password": SecretStr(password) if password is not None else None,
        "from_address": "alice@example.com",
        "starttls": False,
        "timeout": 5,
    }
    return SmtpAccount.model_validate(fields | overrides)


def email(**overrides: object) -> OutgoingEmail:
    fields: dict[str, object] = {"to": ["bob@example.com"], "subject": "Lunch?", "body": "Noon?\n"}
    return OutgoingEmail.model_validate(fields | overrides)


def test_spec_declares_a_communicate_effect_targeting_to() -> None:
    assert SEND_EMAIL.effect is EffectClass.communicate
    assert (SEND_EMAIL.connector, SEND_EMAIL.operation, SEND_EMAIL.target_argument) == ("email", "send_email", "to")


def test_sent_email_arrives_with_everything(server: LocalMailServer) -> None:
    outgoing = email(to=["bob@example.com"], cc=["carol@example.org"], body="Noon at the usual place?\n")
    sent = send_email(account_for(server.port), outgoing, KEY)

    [received] = server.wait_for(1)
    expected_id = f"<{hashlib.sha256(KEY.encode()).hexdigest()[:32]}@example.com>"
    assert sent.message_id == received.message_id == expected_id
    assert sent.accepted == ["bob@example.com", "carol@example.org"] and sent.refused == {}
    assert received.mail_from == "alice@example.com"
    assert received.rcpt_tos == ["bob@example.com", "carol@example.org"]
    assert received.subject == "Lunch?"
    assert received.body == "Noon at the usual place?\n"
    assert received.headers["To"] == "bob@example.com"
    assert received.headers["Cc"] == "carol@example.org"
    assert received.headers["From"] == "alice@example.com"
    assert received.headers["Date"]
    assert received.headers["X-Deputy-Action"] == hashlib.sha256(KEY.encode()).hexdigest()
    assert KEY.encode() not in received.raw  # the key itself never leaves
    assert server.messages("carol@example.org") == [received]


def test_same_key_gives_the_same_message_id(server: LocalMailServer) -> None:
    account = account_for(server.port)
    first = send_email(account, email(), KEY)
    again = send_email(account, email(), KEY)
    other = send_email(account, email(), "action-43")
    assert first.message_id == again.message_id != other.message_id
    assert [m.message_id for m in server.wait_for(3)] == [first.message_id, first.message_id, other.message_id]


def test_unicode_subject_and_body_survive(server: LocalMailServer) -> None:
    subject = "Café à 12h — ça te va ? 🍜"
    body = "Grüße aus Zürich!\nНа связи. 你好。\n" + "é" * 2000 + "\n"  # long line too
    send_email(account_for(server.port), email(subject=subject, body=body), KEY)
    [received] = server.wait_for(1)
    assert received.subject == subject
    assert received.body == body
    assert received.raw.isascii()  # encoded for any server, 8BITMIME or not


def test_a_single_address_may_be_given_as_a_string() -> None:
    assert email(to="bob@example.com").to == ["bob@example.com"]


@pytest.mark.parametrize(
    "subject",
    ["Hi\r\nBcc: eve@evil.example", "Hi\nBcc: eve@evil.example", "Hi\rthere", "Hi\u2028there", "Hi\x00"],
)
def test_header_injection_in_subject_is_rejected(subject: str) -> None:
    with pytest.raises(ValidationError, match="single line"):
        email(subject=subject)


@pytest.mark.parametrize(
    "address",
    [
        "",
        "bob",
        "bob@gmail",
        "bob@@example.com",
        "a@b@example.com",
        "bob@exa mple.com",
        ".bob@example.com",
        "bob@-example.com",
        "Bob <bob@example.com>",
        "bob@example.com\r\nBcc: eve@evil.example",
        "bob@example.com, eve@evil.example",
        "bób@example.com",
        "bob@bücher.de",
        "bob@1.2.3.4",
    ],
)
def test_invalid_addresses_are_rejected(address: str) -> None:
    with pytest.raises(ValidationError):
        email(to=[address])
    with pytest.raises(ValidationError):
        email(cc=[address])
    with pytest.raises(ValidationError):
        account_for(2525, from_address=address)


def test_recipient_and_size_limits() -> None:
    with pytest.raises(ValidationError):
        email(to=[])
    with pytest.raises(ValidationError):
        email(to=[f"user{i}@example.com" for i in range(30)], cc=[f"cc{i}@example.com" for i in range(21)])
    assert len(email(to=[f"user{i}@example.com" for i in range(50)]).to) == 50
    with pytest.raises(ValidationError, match="1 MB"):
        email(body="x" * 1_000_001)


def test_credentials_come_in_pairs_and_errors_do_not_echo_the_password() -> None:
    with pytest.raises(ValidationError) as caught:
        SmtpAccount.model_validate(
            {"password": PASSWORD, "host": "mail.example.com", "port": 587, "from_address": "alice@example.com"}
        )
    assert PASSWORD not in str(caught.value)
    assert PASSWORD not in repr(account_for(2525))


def test_server_down_is_unavailable_with_a_plain_message() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ConnectorUnavailable) as caught:
        send_email(account_for(port), email(), KEY)
    assert caught.value.user_message == f"I couldn't reach the mail server at 127.0.0.1:{port}."
    assert str(caught.value) == caught.value.user_message
    assert caught.value.retryable


def test_wrong_password_is_an_auth_error_that_never_shows_the_password(server: LocalMailServer) -> None:
    wrong = "wrong-" + PASSWORD
    with pytest.raises(ConnectorAuthError) as caught:
        send_email(account_for(server.port, password=wrong), email(), KEY)
    exc = caught.value
    assert not exc.retryable
    assert "rejected the username or password" in exc.user_message
    shown = [str(exc), repr(exc), exc.user_message, exc.detail or "", "".join(traceback.format_exception(exc))]
    for text in shown:
        assert wrong not in text and PASSWORD not in text
    assert exc.__cause__ is None and exc.__context__ is None  # smtplib's frames hold the password
    assert server.messages() == []


def test_starttls_is_never_skipped_silently(server: LocalMailServer) -> None:
    with pytest.raises(ConnectorError, match="STARTTLS") as caught:
        send_email(account_for(server.port, starttls=True), email(), KEY)
    assert not caught.value.retryable
    assert server.messages() == []


def test_implicit_tls_against_a_plain_server_is_unavailable(server: LocalMailServer) -> None:
    with pytest.raises(ConnectorUnavailable, match="encrypted connection"):
        send_email(account_for(server.port, use_ssl=True), email(), KEY)
    assert server.messages() == []


class RefusingHandler:
    """Accepts any recipient except those whose local part is "nobody"."""

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if address.startswith("nobody@"):
            return "550 5.1.1 No such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        return "250 Accepted"


@pytest.fixture
def refusing_port() -> Iterator[int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(RefusingHandler(), hostname="127.0.0.1", port=port, server_hostname="localhost")
    controller.start()
    yield port
    controller.stop()


def test_refused_recipients_are_reported(refusing_port: int) -> None:
    account = account_for(refusing_port, username=None, password=None)
    sent = send_email(account, email(to=["bob@example.com", "nobody@example.com"]), KEY)
    assert sent.accepted == ["bob@example.com"]
    assert sent.refused == {"nobody@example.com": "550 5.1.1 No such user"}


def test_all_recipients_refused_is_rejected(refusing_port: int) -> None:
    account = account_for(refusing_port, username=None, password=None)
    with pytest.raises(ConnectorRejected, match="nobody@example.com") as caught:
        send_email(account, email(to=["nobody@example.com"]), KEY)
    assert not caught.value.retryable


def test_an_empty_idempotency_key_is_a_programming_error(server: LocalMailServer) -> None:
    with pytest.raises(ValueError):
        send_email(account_for(server.port), email(), "")


@pytest.mark.parametrize("mode, kept", [("hang_before", 0), ("hang_after", 1)])
def test_a_server_silent_while_taking_the_email_leaves_the_outcome_unknown(
    server: LocalMailServer, mode: str, kept: int
) -> None:
    """Silence after DATA is not a failure: the email may have gone out, and the executor
    (listening to the progress notes) learns how far the conversation got."""
    server.set_mode(mode)
    notes: list[str] = []
    with listening(notes.append), pytest.raises(ConnectorOutcomeUnknown) as caught:
        send_email(account_for(server.port, timeout=1), email(), KEY)
    server.set_mode("accept")
    assert "can't tell whether it went out" in caught.value.user_message
    assert notes[0].startswith("the mail server accepted the connection")
    assert "handing the email" in notes[-1]
    assert len(server.messages()) == kept


def test_a_server_refusing_the_email_is_a_plain_failure_not_an_unknown_outcome(server: LocalMailServer) -> None:
    server.set_mode("refuse")
    with pytest.raises(ConnectorUnavailable) as caught:
        send_email(account_for(server.port), email(), KEY)
    assert not isinstance(caught.value, ConnectorOutcomeUnknown)
    assert server.messages() == []
