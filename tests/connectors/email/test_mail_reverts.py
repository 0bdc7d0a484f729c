"""Undo on the real sandbox IMAP server: an email archived without a card is shown with Undo and goes
back where it was, marks are put back, and an email moved again since is left alone with a plain answer."""

from __future__ import annotations

from typing import Callable

import pytest
from pydantic import SecretStr
from redis import Redis

from deputy.agent.goals import GoalStore
from deputy.agent.model.testing import FunctionModel, tool_call
from deputy.bot.presses import decide_press
from deputy.bot.services import BotServices
from deputy.connectors.catalog import Catalog
from deputy.connectors.email.mail_operations import MAIL_OPERATIONS
from deputy.executor.review_context import ReviewContextBuilder
from deputy.testing.inline import InlineDeputy

from deputy.connectors.email.imap import ImapAccount
from deputy.connectors.email.imap_reply import smtp_reply_sender
from deputy.connectors.email.mail_reverts import MailReverts
from deputy.connectors.email.mail_runners import MailRunners
from deputy.core.records.effects import ConnectorRejected
from deputy.sandbox.mailstore import DEMO_PASSWORD, MailStore
from test_email_imap_writing import Mailbox, action, mailbox, me, store  # noqa: F401  (fixtures)

RECEIPT = "Your receipt for order #4821"
INVITE = "<invite-q3@seed.sandbox.local>"
USER = 7


@pytest.fixture
def mail(store: MailStore, me: str) -> MailRunners:  # noqa: F811
    imap = ImapAccount(host=store.host, port=store.port, username=me, password=SecretStr(DEMO_PASSWORD),
                       use_ssl=False, starttls=False, timeout=5)
    return MailRunners(lambda user_id: imap, smtp_reply_sender(lambda user_id: None))  # type: ignore[arg-type]


def subjects(box: Mailbox, folder: str = "INBOX") -> list[str]:
    return [m["Subject"] for _, m in box.messages(folder)]


def test_undo_of_an_archive_moves_the_email_back(mail: MailRunners, mailbox: Callable[[str], Mailbox],  # noqa: F811
                                                  me: str) -> None:  # noqa: F811
    moved = mail.move_email(action("move_email", message_id="INBOX/2", folder="Archive"), "k")
    assert subjects(mailbox(me), "Archive") == [RECEIPT] and RECEIPT not in subjects(mailbox(me))
    said = MailReverts(mail).revert(action("move_email", message_id="INBOX/2", folder="Archive"), moved.undo)
    assert said == f"Moved the email “{RECEIPT}” back from Archive to INBOX."
    box = mailbox(me)
    assert subjects(box, "Archive") == [] and RECEIPT in subjects(box)


def test_undo_after_the_email_was_moved_again_changes_nothing_and_says_so(
    mail: MailRunners, mailbox: Callable[[str], Mailbox], me: str  # noqa: F811
) -> None:
    moved = mail.move_email(action("move_email", message_id="INBOX/2", folder="Archive"), "k")
    again = mail.move_email(action("move_email", message_id="Archive/1", folder="Receipts"), "k2")
    assert again.summary.startswith("Moved Archive/1 to Receipts")
    with pytest.raises(ConnectorRejected, match="no longer in Archive .*moved or deleted since"):
        MailReverts(mail).revert(action("move_email", message_id="INBOX/2", folder="Archive"), moved.undo)
    box = mailbox(me)
    assert subjects(box, "Receipts") == [RECEIPT] and RECEIPT not in subjects(box)


def test_undo_of_marks_puts_read_and_flagged_back(mail: MailRunners, mailbox: Callable[[str], Mailbox],  # noqa: F811
                                                  me: str) -> None:  # noqa: F811
    def flags() -> bytes:
        return {m["Message-ID"]: f for f, m in mailbox(me).messages()}[INVITE]

    assert b"\\Seen" not in flags() and b"\\Flagged" not in flags()
    mark = action("mark_email", message_id="INBOX/3", seen=True, flagged=True)
    marked = mail.mark_email(mark, "k")
    assert b"\\Seen" in flags() and b"\\Flagged" in flags()
    said = MailReverts(mail).revert(mark, marked.undo)
    assert said.endswith("is unread and not flagged again.")
    assert b"\\Seen" not in flags() and b"\\Flagged" not in flags()


def test_an_archive_done_without_a_card_is_shown_with_undo_that_moves_it_back(
    redis: Redis, mail: MailRunners, mailbox: Callable[[str], Mailbox], me: str  # noqa: F811
) -> None:
    def model(messages, tools):
        if any(m.get("role") == "tool" for m in messages):
            return tool_call("reply", text="Archived.")
        return tool_call("move_email", message_id="INBOX/2", folder="Archive")

    catalog = Catalog(MAIL_OPERATIONS)
    rig = InlineDeputy(redis, FunctionModel(model), catalog, mail.runners(),
                       contexts=ReviewContextBuilder(redis, GoalStore(redis), catalog),
                       executor_options={"reverters": {"email": MailReverts(mail).revert}})
    services = BotServices.create(redis, "s3cret", None)
    services.dispatch, services.clock = rig.dispatch, rig.clock
    rig.start(USER, "archive the receipt INBOX/2", goal_id="g_mail_undo")
    assert RECEIPT not in subjects(mailbox(me))
    action_id = next(r.action.id for r in rig.stored_actions(USER))
    [shown] = [m for m in rig.messages() if m.ref == f"shown:{action_id}"]
    assert [b.text for b in shown.buttons[0]] == ["Undo"]
    decide_press(services, services.buttons.data("uw", action_id, USER), USER)
    rig.dispatch.drain()
    assert f"↩️ Undone: Moved the email “{RECEIPT}” back from Archive to INBOX." in rig.sent()
    assert RECEIPT in subjects(mailbox(me))
