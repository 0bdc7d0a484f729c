"""The sandbox IMAP store (pymap): mail sent through the sandbox SMTP server is readable
over IMAP in each recipient's mailbox, with nothing but the standard library's clients."""

from __future__ import annotations

import imaplib
import smtplib
from collections.abc import Iterator
from email import message_from_bytes
from email.message import EmailMessage, Message
from pathlib import Path

import pytest

from deputy.sandbox.mail import LocalMailServer
from deputy.sandbox.mailstore import DEMO_PASSWORD, STANDARD_FOLDERS, MailStore, seed_demo_inbox


def inbox(store: MailStore, address: str, password: str = DEMO_PASSWORD, folder: str = "INBOX") -> list[Message]:
    client = imaplib.IMAP4(store.host, store.port, timeout=5)
    try:
        client.login(address, password)
        typ, _ = client.select(f'"{folder}"', readonly=True)
        assert typ == "OK"
        _, data = client.uid("FETCH", "1:*", "(BODY.PEEK[])")
        return [message_from_bytes(item[1]) for item in data if isinstance(item, tuple)]
    finally:
        client.logout()


def folders(store: MailStore, address: str) -> list[str]:
    client = imaplib.IMAP4(store.host, store.port, timeout=5)
    try:
        client.login(address, DEMO_PASSWORD)
        _, data = client.list()
        return [line.decode().rsplit(" ", 1)[-1].strip('"') for line in data if isinstance(line, bytes)]
    finally:
        client.logout()


def email(to: list[str], subject: str = "Hello") -> EmailMessage:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "deputy@sandbox.local", ", ".join(to), subject
    message["Message-ID"] = f"<{subject.replace(' ', '-')}@sandbox.local>"
    message.set_content("Hi there.\n")
    return message


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MailStore]:
    with MailStore(tmp_path / "imap") as running:
        yield running


def test_mail_sent_to_two_addresses_is_in_both_imap_mailboxes(store: MailStore, tmp_path: Path) -> None:
    with LocalMailServer(maildir_root=tmp_path / "smtp-copy", store=store) as server:
        with smtplib.SMTP(server.host, server.port, timeout=5) as client:
            client.send_message(email(["bob@example.com", "Carol@Example.org"], "Team lunch"))
        server.wait_for(1)  # the SMTP side still keeps its in-memory and Maildir copies
    for address in ("bob@example.com", "carol@example.org"):
        [message] = inbox(store, address)
        assert message["Subject"] == "Team lunch" and message["Message-ID"] == "<Team-lunch@sandbox.local>"
        assert set(STANDARD_FOLDERS) <= set(folders(store, address))
    assert len(list((tmp_path / "smtp-copy" / "bob@example.com" / "new").iterdir())) == 1


def test_delivery_failure_is_a_temporary_smtp_error(tmp_path: Path) -> None:
    stopped = MailStore(tmp_path / "imap")  # never started: every delivery fails
    with LocalMailServer(store=stopped) as server:
        with smtplib.SMTP(server.host, server.port, timeout=5) as client, pytest.raises(smtplib.SMTPDataError) as refused:
            client.send_message(email(["bob@example.com"]))
        assert refused.value.smtp_code == 451
        assert server.messages() == []  # not recorded, so a retry is not a duplicate


def test_users_passwords_and_persistence(tmp_path: Path) -> None:
    root = tmp_path / "imap"
    with MailStore(root) as store:
        assert store.add_user("Ann@Example.com", "ann-secret") == "ann@example.com"
        store.deliver("ann@example.com", email(["ann@example.com"], "Kept").as_bytes())
        store.deliver("bob@example.com", email(["bob@example.com"], "For Bob").as_bytes(), folder="Archive")
        with pytest.raises(imaplib.IMAP4.error):
            inbox(store, "ann@example.com", DEMO_PASSWORD)
        port = store.port
    store.stop()  # idempotent
    with MailStore(root) as again:  # a new process over the same files
        assert [m["Subject"] for m in inbox(again, "ann@example.com", "ann-secret")] == ["Kept"]
        assert [m["Subject"] for m in inbox(again, "bob@example.com", folder="Archive")] == ["For Bob"]
        assert again.has_user("bob@example.com") and not again.has_user("nobody@example.com")
    assert port > 0 and not again.running
    with pytest.raises(ValueError):
        MailStore(root).add_user("two words@example.com")


def test_odd_addresses_stay_inside_the_root(store: MailStore) -> None:
    store.deliver("a/../../b@example.com", email(["a/../../b@example.com"]).as_bytes())
    assert [m["Subject"] for m in inbox(store, "a/../../b@example.com")] == ["Hello"]
    assert all(path.resolve().is_relative_to(store.root.resolve()) for path in store.root.rglob("*"))


def test_the_demo_inbox(store: MailStore) -> None:
    seed_demo_inbox(store)
    messages = inbox(store, "demo@sandbox.local")
    subjects = [m["Subject"] for m in messages]
    assert len(messages) == 9 and subjects[-1] == "Dinner on Friday?"
    assert "=?iso-8859-1?q?Caf=E9_=E0_15h_=3F?=" in subjects
    assert {m.get_content_type() for m in messages} >= {"text/plain", "text/html", "multipart/mixed",
                                                        "multipart/alternative"}
    [sent] = inbox(store, "demo@sandbox.local", folder="Sent")
    assert sent["In-Reply-To"] == "<hike-1@seed.sandbox.local>"


def test_start_twice_is_refused(store: MailStore) -> None:
    with pytest.raises(RuntimeError, match="already running"):
        store.start()
