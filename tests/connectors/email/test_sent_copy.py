"""A copy of each email Deputy sends lands in the user's Sent folder (real SMTP and IMAP servers),
so the user can check for themselves, and the outcome-unknown card can say whether it is there."""

from __future__ import annotations

import imaplib
import itertools
from collections.abc import Iterator
from email import message_from_bytes

import pytest
from pydantic import SecretStr

from deputy.connectors.email.imap import ImapAccount
from deputy.connectors.email.imap_reply import reply_subject
from deputy.connectors.email.imap_protocol import Folder
from deputy.connectors.email.mail_runners import SENT_NAMES, MailRunners, find_folder
from deputy.connectors.email.sent_copy import SentFolder
from deputy.connectors.email.smtp import SmtpAccount, message_id_for
from deputy.core.records.actions import Action
from deputy.core.records.effects import ConnectorError, EffectClass
from deputy.executor.credentials import EmailAccounts
from deputy.sandbox.mail import LocalMailServer
from deputy.sandbox.mailstore import DEMO_PASSWORD, MailStore, seed_demo_inbox
from test_email_imap_writing import SMTP_PASSWORD, SMTP_USER, action, smtp, store  # noqa: F401 (fixtures)

_numbers = itertools.count(1)


@pytest.fixture
def me(store: MailStore) -> str:
    address = f"sender{next(_numbers)}@sandbox.local"
    store.add_user(address)
    return address


def accounts(store: MailStore, smtp: LocalMailServer, me: str, imap_password: str = DEMO_PASSWORD) -> EmailAccounts:
    imap = ImapAccount(host=store.host, port=store.port, username=me, password=SecretStr(imap_password),
                       use_ssl=False, starttls=False, timeout=5)
    outgoing = SmtpAccount(host=smtp.host, port=smtp.port, username=SMTP_USER, password=SecretStr(SMTP_PASSWORD),
                           from_address=me, starttls=False, timeout=5)
    return EmailAccounts(None, outgoing, sent=SentFolder(lambda user_id: imap))


@pytest.fixture
def replier(store: MailStore) -> str:
    """A mailbox with the demo inbox, whose INBOX/9 is Sam's "Dinner on Friday?"."""
    address = f"replier{next(_numbers)}@sandbox.local"
    seed_demo_inbox(store, address)
    return address


@pytest.fixture(scope="module")
def filing_smtp(store: MailStore) -> Iterator[LocalMailServer]:
    """A provider that files the sender's copy in Sent itself, as Gmail and Outlook do."""
    with LocalMailServer(username=SMTP_USER, password=SMTP_PASSWORD, store=store, files_sent=True) as server:
        yield server


def send_action() -> Action:
    return Action(id="a1", goal_id="g", user_id=7, chat_id=7, connector="email", operation="send_email",
                  effect=EffectClass.communicate, targets=["bob@example.org"], tool_call_id="t", created_at=0,
                  arguments={"to": ["bob@example.org"], "subject": "Lunch", "body": "Lunch is at noon."})


def reply_action() -> Action:
    return action("reply_email", message_id="INBOX/9", to=["sam@friends.example"], body="Yes! 7pm at Luigi's.")


def reply(email: EmailAccounts, store: MailStore, address: str, key: str) -> str:
    imap = ImapAccount(host=store.host, port=store.port, username=address, password=SecretStr(DEMO_PASSWORD),
                       use_ssl=False, starttls=False, timeout=5)
    return MailRunners(lambda user_id: imap, email.reply_sender()).runners()["email.reply_email"](reply_action(), key)


def sent_ids(store: MailStore, address: str, folder: str = "Sent") -> list[str]:
    client = imaplib.IMAP4(store.host, store.port, timeout=5)
    try:
        client.login(address, DEMO_PASSWORD)
        typ, _ = client.select(f'"{folder}"', readonly=True)
        assert typ == "OK", f"no folder {folder}"
        _, data = client.uid("FETCH", "1:*", "(BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])")
        return [item[1].decode().split(":", 1)[1].strip() for item in data if isinstance(item, tuple)]
    finally:
        client.logout()


def test_a_sent_email_is_filed_in_sent_once_and_the_card_can_tell(store: MailStore, smtp: LocalMailServer,
                                                                   me: str) -> None:
    email = accounts(store, smtp, me)
    run = email.runner()
    assert run(send_action(), "approval-1").startswith("Email sent to bob@example.org")
    run(send_action(), "approval-1")  # the same run again (a retry): still one copy
    assert sent_ids(store, me) == [message_id_for("approval-1", me)]

    assert email.sent_note(send_action(), ["approval-1"]).startswith("A copy is in your Sent folder (Sent)")
    assert email.sent_note(send_action(), ["approval-2"]).startswith("There is no copy in your Sent folder (Sent)")


def sent_headers(store: MailStore, address: str, message_id: str) -> list[tuple[str, str, str]]:
    """(Subject, In-Reply-To, References) of each copy of `message_id` in Sent, as a mail client reads them."""
    client = imaplib.IMAP4(store.host, store.port, timeout=5)
    try:
        client.login(address, DEMO_PASSWORD)
        client.select('"Sent"', readonly=True)
        _, found = client.uid("SEARCH", "HEADER", "Message-ID", f'"{message_id}"')
        copies = []
        for uid in found[0].split():
            _, data = client.uid("FETCH", uid, "(BODY.PEEK[HEADER])")
            headers = message_from_bytes(data[0][1])
            copies.append((headers["Subject"], headers["In-Reply-To"], headers["References"]))
        return copies
    finally:
        client.logout()


def test_a_reply_is_filed_in_sent_once_threaded_and_the_card_can_tell(
    store: MailStore, smtp: LocalMailServer, replier: str
) -> None:
    email = accounts(store, smtp, replier)
    assert reply(email, store, replier, "approval-r1").startswith("Replied to sam@friends.example")
    reply(email, store, replier, "approval-r1")  # the same run again (a retry): still one copy
    mid = message_id_for("approval-r1", replier)
    thread = "<sam-dinner@seed.sandbox.local>"
    assert sent_headers(store, replier, mid) == [(reply_subject("Dinner on Friday?"), thread, thread)]

    assert email.sent_note(reply_action(), ["approval-r1"]).startswith("A copy is in your Sent folder (Sent)")
    assert email.sent_note(reply_action(), ["approval-r2"]).startswith("There is no copy in your Sent folder")


def test_a_provider_that_files_its_own_copy_of_a_reply_keeps_one(
    store: MailStore, filing_smtp: LocalMailServer, replier: str
) -> None:
    email = accounts(store, filing_smtp, replier)
    reply(email, store, replier, "approval-r3")
    mid = message_id_for("approval-r3", replier)
    assert len(sent_headers(store, replier, mid)) == 1, "the provider's copy, and none of Deputy's beside it"
    assert email.sent_note(reply_action(), ["approval-r3"]) == "A copy is in your Sent folder (Sent), so it went out."


def test_a_mailbox_without_a_sent_folder_gets_one(store: MailStore, smtp: LocalMailServer, me: str) -> None:
    client = imaplib.IMAP4(store.host, store.port, timeout=5)
    client.login(me, DEMO_PASSWORD)
    assert client.delete('"Sent"')[0] == "OK"
    client.logout()
    accounts(store, smtp, me).runner()(send_action(), "approval-3")
    assert sent_ids(store, me) == [message_id_for("approval-3", me)]


def test_without_imap_the_email_still_goes_out_and_the_card_says_nothing_of_sent(
    store: MailStore, smtp: LocalMailServer, me: str
) -> None:
    email = accounts(store, smtp, me, imap_password="wrong")
    before = len(smtp.messages("bob@example.org"))
    assert email.runner()(send_action(), "approval-4").startswith("Email sent")
    assert len(smtp.messages("bob@example.org")) == before + 1
    assert email.sent_note(send_action(), ["approval-4"]) is None

    def no_account(user_id: int) -> ImapAccount:
        raise ConnectorError("Email reading isn't connected.")

    assert SentFolder(no_account).find(7, ["<x@y>"]) is None


def test_the_sent_folder_is_found_by_its_special_use_flag_whatever_its_name() -> None:
    folders = [Folder("INBOX", frozenset(), "INBOX"), Folder("Gesendet", frozenset({"\\sent"}), "Gesendet"),
               Folder("Sent", frozenset(), "Sent")]
    assert find_folder(folders, "\\sent", SENT_NAMES) == "Gesendet"
    assert find_folder(folders[::2], "\\sent", SENT_NAMES) == "Sent"
    assert find_folder([Folder("[Gmail]/Sent Mail", frozenset(), "x")], "\\sent", SENT_NAMES) == "[Gmail]/Sent Mail"
