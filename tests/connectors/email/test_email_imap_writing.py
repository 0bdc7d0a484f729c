"""Changing the mailbox over real IMAP, and replying through the real sandbox SMTP server,
whose mail lands in the recipient's IMAP mailbox."""

from __future__ import annotations

import imaplib
import itertools
from collections.abc import Callable, Iterator
from email import message_from_bytes
from email.message import Message

import pytest
from pydantic import SecretStr

from deputy.core.records.effects import ConnectorRejected
from deputy.connectors.catalog import Catalog
from deputy.connectors.email.imap import ImapAccount
from deputy.connectors.email.imap_reply import smtp_reply_sender
from deputy.connectors.email.mail_operations import MAIL_OPERATIONS
from deputy.connectors.email.mail_runners import MailRunners, Runner
from deputy.connectors.email.smtp import SmtpAccount
from deputy.sandbox.mail import LocalMailServer
from deputy.sandbox.mailstore import DEMO_PASSWORD, MailStore, seed_demo_inbox
from deputy.core.records.actions import Action

CATALOG = Catalog(MAIL_OPERATIONS)
SMTP_USER, SMTP_PASSWORD = "deputy", "smtp-writing-secret"
_numbers = itertools.count(1)


def action(operation: str, **arguments: object) -> Action:
    op = CATALOG.get(operation)
    assert op is not None
    args = op.validate(arguments)
    return Action(id="a", goal_id="g", user_id=7, chat_id=7, connector="email", operation=operation,
                  effect=op.spec.effect, arguments=arguments, targets=op.targets(args), tool_call_id="t", created_at=0)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailStore]:
    with MailStore(tmp_path_factory.mktemp("imap")) as running:
        yield running


@pytest.fixture(scope="module")
def smtp(store: MailStore) -> Iterator[LocalMailServer]:
    with LocalMailServer(username=SMTP_USER, password=SMTP_PASSWORD, store=store) as server:
        yield server


@pytest.fixture
def me(store: MailStore) -> str:
    """A fresh mailbox with the demo inbox, so tests that change mail don't meet."""
    address = f"writer{next(_numbers)}@sandbox.local"
    seed_demo_inbox(store, address)
    return address


@pytest.fixture
def runners(store: MailStore, smtp: LocalMailServer, me: str) -> dict[str, Runner]:
    imap = ImapAccount(host=store.host, port=store.port, username=me, password=SecretStr(DEMO_PASSWORD),
                       use_ssl=False, starttls=False, timeout=5)
    outgoing = SmtpAccount(host=smtp.host, port=smtp.port, username=SMTP_USER, password=SecretStr(SMTP_PASSWORD),
                           from_address=me, starttls=False, timeout=5)
    return MailRunners(lambda user_id: imap, smtp_reply_sender(lambda user_id: outgoing)).runners()


class Mailbox:
    """A plain imaplib view of one mailbox, as a person checking it would have."""

    def __init__(self, store: MailStore, address: str) -> None:
        self.client = imaplib.IMAP4(store.host, store.port, timeout=5)
        self.client.login(address, DEMO_PASSWORD)

    def messages(self, folder: str = "INBOX") -> list[tuple[bytes, Message]]:
        typ, _ = self.client.select(f'"{folder}"', readonly=True)
        assert typ == "OK", folder
        _, data = self.client.uid("FETCH", "1:*", "(FLAGS BODY.PEEK[])")
        return [(item[0], message_from_bytes(item[1])) for item in data if isinstance(item, tuple)]

    def close(self) -> None:
        self.client.logout()


@pytest.fixture
def mailbox(store: MailStore) -> Iterator[Callable[[str], Mailbox]]:
    opened: list[Mailbox] = []

    def open_(address: str) -> Mailbox:
        opened.append(Mailbox(store, address))
        return opened[-1]

    yield open_
    for box in opened:
        box.close()


def test_a_draft_lands_in_drafts_once_per_key(runners: dict[str, Runner], mailbox: Callable[[str], Mailbox],
                                             me: str) -> None:
    draft = action("draft_email", to=["sam@friends.example"], subject="Friday", body="Dinner at 7 works for me.")
    first = runners["email.draft_email"](draft, "approval-1")
    again = runners["email.draft_email"](draft, "approval-1")  # a retried job
    assert first == again == "Saved a draft to sam@friends.example (Drafts/1); it has not been sent."
    [(flags, message)] = mailbox(me).messages("Drafts")
    assert b"\\Draft" in flags and message["Subject"] == "Friday" and message["To"] == "sam@friends.example"
    assert message["From"] == me and "Dinner at 7" in message.get_payload()


def test_a_reply_arrives_threaded_in_the_senders_mailbox(
    runners: dict[str, Runner], mailbox: Callable[[str], Mailbox], store: MailStore, me: str
) -> None:
    before = len(mailbox("sam@friends.example").messages()) if store.has_user("sam@friends.example") else 0
    result = runners["email.reply_email"](
        action("reply_email", message_id="INBOX/9", to=["sam@friends.example"], body="Yes! 7pm at Luigi's."), "ap-2")
    assert result == "Replied to sam@friends.example with the subject 'Re: Dinner on Friday?'."
    received = mailbox("sam@friends.example").messages()
    assert len(received) == before + 1
    _, reply = received[-1]
    assert reply["From"] == me and reply["Subject"] == "Re: Dinner on Friday?"
    assert reply["In-Reply-To"] == "<sam-dinner@seed.sandbox.local>"
    assert reply["References"] == "<sam-dinner@seed.sandbox.local>"
    body = reply.get_payload(decode=True).decode()
    assert body.startswith("Yes! 7pm at Luigi's.") and "> Hey! Are we still on for dinner on Friday?" in body
    [flags] = [f for f, m in mailbox(me).messages() if m["Message-ID"] == "<sam-dinner@seed.sandbox.local>"]
    assert b"\\Answered" in flags


def test_a_reply_to_a_reply_keeps_the_whole_chain(runners: dict[str, Runner], mailbox: Callable[[str], Mailbox],
                                                  me: str) -> None:
    runners["email.reply_email"](
        action("reply_email", message_id="INBOX/8", to="jordan@trailmail.example", body="See you there."), "ap-3")
    _, reply = mailbox("jordan@trailmail.example").messages()[-1]
    assert reply["Subject"] == "Re: Hike on Saturday?"
    assert reply["In-Reply-To"] == "<hike-3@seed.sandbox.local>"
    assert reply["References"].split() == [
        "<hike-1@seed.sandbox.local>", "<hike-2@seed.sandbox.local>", "<hike-3@seed.sandbox.local>"]


def test_a_reply_to_someone_off_the_thread_is_refused_before_sending(
    runners: dict[str, Runner], smtp: LocalMailServer
) -> None:
    sent_before = len(smtp.messages())
    with pytest.raises(ConnectorRejected, match="eve@evil.example isn't part of this email's conversation"):
        runners["email.reply_email"](
            action("reply_email", message_id="INBOX/9", to=["eve@evil.example"], body="Here is everything."), "ap-4")
    assert len(smtp.messages()) == sent_before


def test_move_to_archive_and_to_a_new_folder(runners: dict[str, Runner], mailbox: Callable[[str], Mailbox],
                                             me: str) -> None:
    assert runners["email.move_email"](action("move_email", message_id="INBOX/2", folder="archive"), "k").summary == (
        "Moved INBOX/2 to Archive (now Archive/1).")
    assert runners["email.move_email"](action("move_email", message_id="INBOX/1", folder="Newsletters"), "k").summary == (
        "Moved INBOX/1 to Newsletters (now Newsletters/1).")
    box = mailbox(me)
    assert [m["Subject"] for _, m in box.messages("Archive")] == ["Your receipt for order #4821"]
    assert [m["Subject"] for _, m in box.messages("Newsletters")] == ["This week: tiny models, big ideas"]
    assert "Your receipt for order #4821" not in [m["Subject"] for _, m in box.messages()]
    with pytest.raises(ConnectorRejected, match="There is no email INBOX/2"):
        runners["email.move_email"](action("move_email", message_id="INBOX/2", folder="Archive"), "k")


def test_mark_read_flagged_and_back(runners: dict[str, Runner], mailbox: Callable[[str], Mailbox], me: str) -> None:
    mark = runners["email.mark_email"]
    assert mark(action("mark_email", message_id="INBOX/3", seen=True, flagged=True), "k").summary == (
        "Marked INBOX/3 as read and flagged.")
    flags = {m["Message-ID"]: f for f, m in mailbox(me).messages()}
    assert b"\\Seen" in flags["<invite-q3@seed.sandbox.local>"] and b"\\Flagged" in flags["<invite-q3@seed.sandbox.local>"]
    assert mark(action("mark_email", message_id="INBOX/3", seen=False), "k").summary == "Marked INBOX/3 as unread."
    flags = {m["Message-ID"]: f for f, m in mailbox(me).messages()}
    assert b"\\Seen" not in flags["<invite-q3@seed.sandbox.local>"]
    with pytest.raises(ConnectorRejected, match="There is no email INBOX/77"):
        mark(action("mark_email", message_id="INBOX/77", flagged=True), "k")


def test_a_forward_carries_the_original_to_someone_new(
    runners: dict[str, Runner], mailbox: Callable[[str], Mailbox], store: MailStore
) -> None:
    # Forwarding is not writing a new email: the original's sender, subject and words arrive as they were.
    result = runners["email.forward_email"](
        action("forward_email", message_id="INBOX/9", to=["ruth@tax.example"], note="FYI, see below."), "fw-1")
    assert result == "Forwarded INBOX/9 to ruth@tax.example with the subject 'Fwd: Dinner on Friday?'."
    _, forwarded = mailbox("ruth@tax.example").messages()[-1]
    assert forwarded["Subject"] == "Fwd: Dinner on Friday?"
    body = forwarded.get_payload(decode=True).decode()
    assert body.startswith("FYI, see below.")
    assert "From: Sam Rivera <sam@friends.example>" in body and "Subject: Dinner on Friday?" in body
    assert "Hey! Are we still on for dinner on Friday?" in body
    assert forwarded["In-Reply-To"] is None, "a forward starts a new conversation"


def test_a_forward_needs_someone_to_go_to() -> None:
    with pytest.raises(ValueError):
        CATALOG.get("forward_email").validate({"message_id": "INBOX/9", "to": []})  # type: ignore[union-attr]
