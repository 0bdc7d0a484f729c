"""The user's one setting for messages: every message, only unnamed recipients, or only strangers.

Whatever the setting, spending, deleting and account changes keep asking.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from deputy.core.records.actions import Action
from deputy.core.accounts.approval_mode import ApprovalMode
from deputy.core.records.effects import EffectClass, RiskTag
from deputy.sentinel.policy import ReviewContext, Verdict, review
from deputy.sentinel.provenance import ProvenanceContext


def _context(words: str, mode: ApprovalMode, remembered: str = "") -> ReviewContext:
    return ReviewContext(provenance=ProvenanceContext(
        trusted_texts=[words, *([remembered] if remembered else [])], user_words=[words],
        contacts=["carol@example.net"]), approval_mode=mode)


def _email(to: str, body: str = "Lunch is at noon.") -> Action:
    return Action(id="a", goal_id="g", user_id=1, chat_id=1, connector="email", operation="send_email",
                  effect=EffectClass.communicate, arguments={"to": [to], "subject": "Lunch", "body": body},
                  targets=[to], tool_call_id="c", created_at=0)


NAMED_STRANGER = "email dave@elsewhere.example that lunch is at noon"
NAMED_CONTACT = "email carol@example.net that lunch is at noon"


@pytest.mark.parametrize(("mode", "words", "to", "verdict"), [
    (ApprovalMode.every_message, NAMED_CONTACT, "carol@example.net", Verdict.ask),
    (ApprovalMode.every_message, NAMED_STRANGER, "dave@elsewhere.example", Verdict.ask),
    (ApprovalMode.unnamed, NAMED_STRANGER, "dave@elsewhere.example", Verdict.allow),
    (ApprovalMode.unnamed, "tell carol that lunch is at noon", "carol@example.net", Verdict.ask),
    (ApprovalMode.outside_contacts, NAMED_STRANGER, "dave@elsewhere.example", Verdict.ask),
    (ApprovalMode.outside_contacts, "tell carol that lunch is at noon", "carol@example.net", Verdict.allow),
])
def test_each_setting_decides_whether_a_message_waits_for_a_card(mode, words, to, verdict) -> None:
    assert review(_email(to), _context(words, mode)).verdict is verdict


def test_every_message_says_why_and_where_to_change_it() -> None:
    decision = review(_email("carol@example.net"), _context(NAMED_CONTACT, ApprovalMode.every_message))
    assert "You chose to be asked before every message (you can change this in /settings)." in decision.reasons


def test_a_stranger_the_user_typed_is_named_on_the_card() -> None:
    decision = review(_email("dave@elsewhere.example"), _context(NAMED_STRANGER, ApprovalMode.outside_contacts))
    assert "dave@elsewhere.example is not among your contacts" in " ".join(decision.reasons)


def test_an_address_in_the_users_memory_counts_as_a_contact() -> None:
    context = _context("email my accountant that lunch is at noon", ApprovalMode.outside_contacts,
                       remembered="my accountant is acc@books.example")
    assert review(_email("acc@books.example"), context).verdict is Verdict.allow


@pytest.mark.parametrize("mode", list(ApprovalMode))
def test_spending_and_deleting_ask_whatever_the_setting(mode: ApprovalMode) -> None:
    words = "pay carol@example.net 20 USD and delete event e2"
    pay = Action(id="a", goal_id="g", user_id=1, chat_id=1, connector="payments", operation="pay",
                 effect=EffectClass.spend, arguments={"to": "carol@example.net", "amount": "20"},
                 targets=["carol@example.net"], tool_call_id="c", created_at=0, amount=Decimal(20), currency="USD")
    delete = Action(id="b", goal_id="g", user_id=1, chat_id=1, connector="calendar", operation="delete_event",
                    effect=EffectClass.write, tags=[RiskTag.delete], arguments={"event_id": "e2"}, targets=["e2"],
                    tool_call_id="c", created_at=0)
    assert review(pay, _context(words, mode)).verdict is Verdict.ask
    assert review(delete, _context(words, mode)).verdict is Verdict.ask
