"""What ran without a card, in words written from the action: the whole email, the event's day."""

from __future__ import annotations

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.sentinel.shown import FOLD, body_field, shown_text, undone_text, with_body


def action(operation: str, effect: EffectClass, **arguments) -> Action:
    connector = "email" if operation == "send_email" else "calendar" if "event" in operation else "forum"
    return Action(id="a_1", goal_id="g_1", user_id=1, chat_id=1, connector=connector, operation=operation,
                  effect=effect, arguments=arguments, tool_call_id="c", created_at=0)


EMAIL = action("send_email", EffectClass.communicate, to=["bob@example.com"], cc=["cat@example.com"],
               bcc=["dan@example.com"], subject="Lunch", body="Lunch is at noon.\nSee you!")


def test_an_email_shows_every_recipient_the_subject_and_the_whole_body() -> None:
    text = shown_text(EMAIL)
    assert text.startswith("✉️ Sent this email:")
    for line in ("To: bob@example.com", "Cc: cat@example.com", "Bcc: dan@example.com", "Subject: Lunch",
                 "Lunch is at noon.\nSee you!"):
        assert line in text


def test_a_waiting_email_says_how_long_it_waits_and_what_the_buttons_do() -> None:
    assert shown_text(EMAIL, waiting=20).startswith("⏳ Sending this email in 20 s. Undo stops it")


def test_a_long_body_is_folded_and_shown_whole_on_request() -> None:
    long = with_body(EMAIL, "x" * (FOLD + 500))
    assert "[… 500 more characters: press Show all]" in shown_text(long)
    assert "x" * (FOLD + 500) in shown_text(long, whole=True)


def test_an_event_shows_its_title_weekday_date_time_zone_and_calendar() -> None:
    event = action("create_event", EffectClass.write, title="Dentist", start="2026-12-10T14:00:00+01:00",
                   end="2026-12-10T14:30:00+01:00", timezone="Europe/Berlin", calendar="Personal")
    text = shown_text(event)
    assert text.startswith("📅 Added to your calendar:")
    assert "“Dentist”" in text and "When: Thu 10 Dec 14:00 CET" in text and "Until: Thu 10 Dec 14:30 CET" in text
    assert "Calendar: Personal" in text


def test_any_other_operation_shows_its_arguments_as_a_card_would() -> None:
    post = action("post_message", EffectClass.communicate, channel="#general", text="Hello all")
    text = shown_text(post)
    assert "forum.post_message" in text and "channel: #general" in text and "text: Hello all" in text
    assert body_field(post) == "text" and with_body(post, "Hi").arguments["text"] == "Hi"


def test_an_undone_message_says_why_it_was_not_sent() -> None:
    assert undone_text(EMAIL, "The user pressed Undo, so it was not sent.").startswith("↩️ Not sent: The user")
