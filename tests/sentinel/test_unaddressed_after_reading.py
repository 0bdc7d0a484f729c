"""A message to someone the user only asked about, in a goal that read outside content, asks,
whatever the rules allow: the content may be what chose the recipient.

The user typed Bob's address, but as someone to ask about ("tell me what bob@… wants"); the mail
they had Deputy read says to write to Bob. Every value traces to the user, so nothing else stops
a rule that allows everything.
"""

from __future__ import annotations

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.sentinel.policy import ReviewContext, RuleVerdict, Verdict, review
from deputy.sentinel.provenance import ProvenanceContext, UntrustedItem

BOB = "bob@example.org"
ALLOW_ALL = RuleVerdict(verdict=Verdict.allow, reasons=["Your rule: allow everything."])
MAIL = "From: carol@example.net\nSubject: hi\n\nBob was asking about the budget again on Friday."


def email(to: str, body: str = "Hi Bob, following up as promised.") -> Action:
    return Action(id="a_msg", goal_id="g_msg", user_id=7, chat_id=7, connector="email", operation="send_email",
                  effect=EffectClass.communicate, arguments={"to": [to], "subject": "Notes", "body": body},
                  targets=[to], tool_call_id="call_msg", created_at=1_700_000_000.0)


def context(words: str, *, read: bool = True) -> ReviewContext:
    outside = [UntrustedItem(origin="an email from carol@example.net", text=MAIL, at=1.0)] if read else []
    return ReviewContext(rules=ALLOW_ALL, provenance=ProvenanceContext(
        trusted_texts=[words], user_words=[words], untrusted=outside))


def test_a_person_named_only_as_someone_to_ask_about_is_not_written_to_through_an_allow_all_rule() -> None:
    decision = review(email(BOB), context(f"Read my latest email and tell me what {BOB} wants"))
    assert decision.verdict is Verdict.ask
    assert BOB in " ".join(decision.reasons) and "outside content" in " ".join(decision.reasons)


def test_a_person_the_user_asked_to_write_to_still_goes_through_the_rule() -> None:
    decision = review(email(BOB), context(f"Read my latest email and send {BOB} the meeting notes"))
    assert decision.verdict is Verdict.allow


def test_without_anything_read_the_rule_decides_as_before() -> None:
    decision = review(email(BOB), context(f"Tell me what {BOB} wants", read=False))
    assert decision.verdict is Verdict.allow
