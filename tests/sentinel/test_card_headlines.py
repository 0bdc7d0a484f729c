"""What a card asks in its first line: the built-in action in the user's words, never a technical name; a
service the user connected keeps its own name, since its description comes from the service."""

from __future__ import annotations

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.runtime.operations import build_catalog
from deputy.sentinel.cards import card_text
from deputy.sentinel.policy import Decision, Risk, Verdict

ASK = Decision(verdict=Verdict.ask, reasons=["It sends a message on your behalf."], risk=Risk.medium)


def action(connector: str, operation: str, effect: EffectClass = EffectClass.write, **arguments: object) -> Action:
    return Action(id="a1", goal_id="g1", user_id=1, chat_id=1, connector=connector, operation=operation,
                  tool_call_id="c1", created_at=0.0, effect=effect, arguments=arguments)


def headline(item: Action) -> str:
    return card_text(item, ASK).splitlines()[0]


def test_a_reply_an_event_and_a_form_are_asked_in_plain_words() -> None:
    assert headline(action("email", "reply_email", EffectClass.communicate, message_id="INBOX/9",
                           to=["sam@example.com"], body="Running 10 minutes late.")) == "✉️ Send this reply?"
    assert headline(action("calendar", "create_event", title="Dentist", start="2026-12-17T15:00:00+01:00")) == \
        "📅 Add this to your calendar?"
    assert headline(action("web", "submit_form", url="https://shop.example/checkout")) == "🌐 Send this form?"


def test_every_consequential_built_in_operation_has_its_question() -> None:
    catalog = build_catalog([])
    technical = [name for name in catalog.names()
                 if (op := catalog.get(name)) is not None and op.spec.effect is not EffectClass.read
                 and headline(action(op.spec.connector, op.spec.operation, op.spec.effect)).startswith("Run ")]
    assert technical == []


def test_a_connected_services_action_keeps_its_own_name() -> None:
    assert headline(action("crm", "delete_contact", id="12")) == "Run crm.delete_contact?"
