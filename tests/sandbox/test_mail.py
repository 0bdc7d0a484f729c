"""The sandbox mail server, driven with nothing but the standard library's smtplib."""

from __future__ import annotations

import logging
import mailbox
import smtplib
import threading
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from deputy.sandbox.mail import LocalMailServer, mailbox_name, run_forever

USER = "deputy"
PASSWORD = "sandbox-secret"


def make_message(to: list[str], subject: str = "Hello", body: str = "Hi there.\n") -> EmailMessage:
    message = EmailMessage()
    message["From"] = "alice@example.com"
    message["To"] = ", ".join(to)
    message["Subject"] = subject
    message["Message-ID"] = "<test-1@example.com>"
    message.set_content(body)
    return message


def send(server: LocalMailServer, message: EmailMessage, login: tuple[str, str] | None = None) -> None:
    with smtplib.SMTP(server.host, server.port, timeout=5) as client:
        if login:
            client.login(*login)
        client.send_message(message)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LocalMailServer]:
    with LocalMailServer(maildir_root=tmp_path / "mail") as running:
        yield running


@pytest.fixture
def auth_server() -> Iterator[LocalMailServer]:
    with LocalMailServer(username=USER, password=PASSWORD) as running:
        yield running


def test_listens_on_a_real_port_when_zero_is_asked(server: LocalMailServer) -> None:
    assert server.port > 0
    with smtplib.SMTP(server.host, server.port, timeout=5) as client:
        code, _ = client.noop()
    assert code == 250


def test_receives_mail_sent_with_smtplib(server: LocalMailServer) -> None:
    send(server, make_message(["bob@example.com"], subject="Lunch?", body="Noon at the usual place.\n"))

    [received] = server.wait_for(1)
    assert received.mail_from == "alice@example.com"
    assert received.rcpt_tos == ["bob@example.com"]
    assert received.subject == "Lunch?"
    assert received.body == "Noon at the usual place.\n"
    assert received.message_id == "<test-1@example.com>"
    assert received.headers["From"] == "alice@example.com"


def test_each_recipient_gets_the_message_in_their_own_mailbox(server: LocalMailServer) -> None:
    send(server, make_message(["bob@example.com", "carol@example.org"]))
    server.wait_for(1)

    assert [m.subject for m in server.messages("bob@example.com")] == ["Hello"]
    assert [m.subject for m in server.messages("carol@example.org")] == ["Hello"]
    assert server.messages("Bob@Example.COM") == server.messages("bob@example.com")
    assert server.messages("dave@example.com") == []
    assert len(server.messages()) == 1  # one message, two mailboxes


def test_mailboxes_are_persisted_as_maildirs(tmp_path: Path) -> None:
    root = tmp_path / "mail"
    with LocalMailServer(maildir_root=root) as server:
        send(server, make_message(["bob@example.com", "carol@example.org"], subject="On disk"))
        server.wait_for(1)
        assert server.maildir_path("bob@example.com") == root / "bob@example.com"

    # Read back after the server is gone, as someone inspecting the demo would.
    for address in ("bob@example.com", "carol@example.org"):
        stored = list(mailbox.Maildir(root / address, create=False))
        assert [m["Subject"] for m in stored] == ["On disk"]


def test_maildir_folders_cannot_escape_the_root(tmp_path: Path) -> None:
    root = tmp_path / "mail"
    with LocalMailServer(maildir_root=root) as server:
        send(server, make_message(["a/../../b@example.com"]))
        server.wait_for(1, "a/../../b@example.com")
    [folder] = root.iterdir()
    assert folder.parent == root and "/" not in folder.name
    assert mailbox_name(".hidden@example.com").startswith("%2E")


def test_auth_is_advertised_and_required_before_mail_from(auth_server: LocalMailServer) -> None:
    with smtplib.SMTP(auth_server.host, auth_server.port, timeout=5) as client:
        client.ehlo()
        assert set(client.esmtp_features["auth"].split()) == {"PLAIN", "LOGIN"}
        with pytest.raises(smtplib.SMTPSenderRefused) as refused:
            client.send_message(make_message(["bob@example.com"]))
    assert refused.value.smtp_code == 530
    assert auth_server.messages() == []


@pytest.mark.parametrize("mechanism", ["PLAIN", "LOGIN"])
def test_right_credentials_are_accepted_with_either_mechanism(auth_server: LocalMailServer, mechanism: str) -> None:
    with smtplib.SMTP(auth_server.host, auth_server.port, timeout=5) as client:
        client.ehlo()
        client.user, client.password = USER, PASSWORD
        authobject = client.auth_plain if mechanism == "PLAIN" else client.auth_login
        code, _ = client.auth(mechanism, authobject, initial_response_ok=False)
        assert code == 235
        client.send_message(make_message(["bob@example.com"]))
    assert len(auth_server.wait_for(1, "bob@example.com")) == 1


@pytest.mark.parametrize("user, password", [(USER, "wrong"), ("someone-else", PASSWORD), (USER, "")])
def test_wrong_credentials_are_refused_with_535(auth_server: LocalMailServer, user: str, password: str) -> None:
    with smtplib.SMTP(auth_server.host, auth_server.port, timeout=5) as client:
        with pytest.raises(smtplib.SMTPAuthenticationError) as refused:
            client.login(user, password)
    assert refused.value.smtp_code == 535


def test_wait_for_returns_as_soon_as_mail_arrives(server: LocalMailServer) -> None:
    sender = threading.Thread(target=send, args=(server, make_message(["bob@example.com"])))
    started = time.monotonic()
    sender.start()
    messages = server.wait_for(1, "bob@example.com", timeout=10)
    elapsed = time.monotonic() - started
    sender.join()
    assert len(messages) == 1
    assert elapsed < 2  # woken by the delivery, long before the 10 s timeout


def test_wait_for_times_out_when_nothing_comes(server: LocalMailServer) -> None:
    with pytest.raises(TimeoutError, match="expected 1 message"):
        server.wait_for(1, timeout=0.05)


def test_clear_forgets_messages(server: LocalMailServer) -> None:
    send(server, make_message(["bob@example.com"]))
    server.wait_for(1)
    server.clear()
    assert server.messages() == [] and server.messages("bob@example.com") == []


def test_can_restart_after_stop() -> None:
    server = LocalMailServer()
    server.start()
    server.stop()
    server.stop()  # idempotent
    with server:
        send(server, make_message(["bob@example.com"]))
        assert len(server.wait_for(1)) == 1


def test_credentials_must_come_in_pairs() -> None:
    with pytest.raises(ValueError):
        LocalMailServer(username="only-a-user")


def test_run_forever_logs_where_it_listens_and_stops(caplog: pytest.LogCaptureFixture) -> None:
    stop = threading.Event()
    stop.set()  # returns right after starting: enough to see it come up and go down
    with caplog.at_level(logging.INFO, logger="deputy.sandbox.mail"):
        run_forever(port=0, username=USER, password=PASSWORD, stop=stop)
    assert "listening on smtp://127.0.0.1:" in caplog.text
    assert PASSWORD not in caplog.text
