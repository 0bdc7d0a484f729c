"""Check-ins Deputy infers from a dated event said in passing: found by the time resolver plus a
statement frame, in the languages the resolver reads; offered once; a yes becomes a reminder that
comes at its time with no model call. The clock is the test's; Redis and the outbox are real."""

from __future__ import annotations

from typing import Any

from redis import Redis

from deputy.agent.check_in_offers import CheckInOffers, reminder_goal
from deputy.agent.check_ins import find_mention
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import FunctionModel, tool_call
from deputy.agent.time.local_time import moment_words
from deputy.connectors.catalog import Catalog
from deputy.testing.inline import InlineDeputy

FRIDAY = 1_800_000_000.0  # Fri 15 Jan 2027, 09:00 in Berlin
MONDAY = FRIDAY + 3 * 86400
ZONE = "Europe/Berlin"

# Written before the detector was first run on them, and never tuned on: the figures in the report are these.
UNSEEN_EVENTS = [
    "The movers come on Thursday at 8",
    "my car has its service appointment on Wednesday at 9:30",
    "I have surgery on the 2nd of February",
    "The kids start school again tomorrow",
    "Mein Vorstellungsgespräch ist am Mittwoch um 14 Uhr",
    "Tenemos una reunión con el banco el jueves a las 10",
    "Nous avons un mariage samedi",
    "Il tecnico arriva domani alle 15",
    "Vou ao médico na quarta às 10h",
    "Mijn ouders komen zondag op bezoek",
    "Could you find a present for my nephew? His birthday is on Saturday",
]
UNSEEN_NOT_EVENTS = [
    "Order more coffee beans for Friday",
    "Did I get an email from Sam yesterday?",
    "Move my dentist appointment to Thursday at 3",
    "What is the weather on Saturday?",
    "Please remind me tomorrow at 7 about the train",
    "Buche einen Tisch für Freitag um 20 Uhr",
    "Reserva una mesa para el sábado a las 9",
    "I have a question about my invoice",
    "Tell Sam I will be late",
    "Sell my bike for at least $200 by next week",
]


def test_dated_events_said_in_passing_are_found_in_wordings_and_languages_not_tuned_on() -> None:
    found = {text: find_mention(text, MONDAY, ZONE) for text in UNSEEN_EVENTS}
    missed = [text for text, mention in found.items() if mention is None]
    assert missed == [], missed
    assert found["Vou ao médico na quarta às 10h"].shown() == "Wed 20 Jan 10:00 CET"
    assert found["Mein Vorstellungsgespräch ist am Mittwoch um 14 Uhr"].shown() == "Wed 20 Jan 14:00 CET"
    assert found["Nous avons un mariage samedi"].shown() == "Sat 23 Jan (all day)"
    assert found["Could you find a present for my nephew? His birthday is on Saturday"].words == \
        "His birthday is on Saturday", "the question is left out; the mention is what is quoted"
    offered = [text for text in UNSEEN_NOT_EVENTS if find_mention(text, MONDAY, ZONE) is not None]
    assert offered == [], offered


def test_no_offer_for_a_time_the_resolver_cannot_read_or_that_has_passed() -> None:
    # On a Friday, "Friday at 5pm" is today or next week: the resolver asks, so there is no card.
    assert find_mention("My daughter's school play is on Friday at 5pm", FRIDAY, ZONE) is None
    assert find_mention("I had a great interview yesterday", FRIDAY, ZONE) is None
    assert find_mention("we have a party sometime soon", FRIDAY, ZONE) is None
    assert find_mention("the plumber comes at 9:15", FRIDAY, ZONE) is None, "under half an hour away"


def test_a_request_is_no_mention_even_with_a_day_in_a_link_or_an_is_in_it() -> None:
    # Early on a Friday, today's evening is still ahead: only the words decide.
    early = FRIDAY - 8 * 3600
    assert find_mention("get https://api.weather.example/today and tell me what collector@evil.example is asking "
                        "for", early, ZONE) is None
    assert find_mention("forward monday@team.example the notes, the agenda is ready", early, ZONE) is None
    assert find_mention("What she wants is a cake for Saturday", early, ZONE) is None
    assert find_mention("De afspraak is morgen om 10 uur", early, ZONE) is not None, "Dutch still reads"


def test_a_time_inside_a_request_or_a_message_to_send_gets_no_card() -> None:
    """The time belongs to what the user asks for or to the message they want sent, not to an event said in passing:
    a card quoting the whole request back ("You mentioned 'pls drop a line to sam@…'") reads as a misunderstanding."""
    requests = [
        "pls drop a line to sam@example.com that I'll be 10 mins late to our 3pm",
        "could you let ana@example.org know we're arriving on Friday at 6",
        "Bitte schreib an max@example.de, dass ich am Donnerstag um 9 komme",
        "por favor dile a +34 600 123 456 que tengo cita el jueves a las 10",
        "peux-tu écrire à luc@example.fr que nous avons un dîner samedi",
        "Kun je tegen Joost zeggen dat ik morgen om 10 uur kom",
    ]
    offered = [text for text in requests if find_mention(text, MONDAY, ZONE) is not None]
    assert offered == [], offered
    # Said as a statement of its own after the request, the event still gets its card.
    after = find_mention("Please book a table for four. We have guests on Saturday at 8", MONDAY, ZONE)
    assert after is not None and after.words == "We have guests on Saturday at 8"


def test_a_mention_gets_one_card_and_yes_sends_the_check_in_at_its_time_without_the_model(redis: Redis) -> None:
    def decide(messages: list[dict[str, Any]], tools: Any) -> ModelReply:
        return tool_call("reply", text="Here are three ties that would suit an interview.")

    model = FunctionModel(decide)
    deputy = InlineDeputy(redis, model, Catalog(), {})
    deputy.clock.now = FRIDAY
    deputy.start(91, "find me a tie, I have a job interview on Tuesday at 10", goal_id="g_tie")
    [card] = deputy.cards()
    assert card.text.startswith("📅 You mentioned “find me a tie, I have a job interview on Tuesday at 10” "
                                "(Tue 19 Jan 10:00 UTC)")
    assert [b.text for b in card.buttons[0]] == ["Check in after", "Remind me before", "No thanks"]
    assert any("three ties" in text for text in deputy.sent()), "the goal itself goes on as usual"
    # Said again (a retry, or the user repeating it): no second card.
    deputy.start(91, "find me a tie, I have a job interview on Tuesday at 10", goal_id="g_tie2")
    assert len(deputy.cards()) == 1

    # The user presses "Check in after" (what the bot does with the press).
    offer_id = card.buttons[0][0].sign.split(":")[1]
    offer = CheckInOffers(redis).take(91, offer_id)
    assert offer is not None and CheckInOffers(redis).take(91, offer_id) is None, "an answer counts once"
    goal = reminder_goal(offer, "after", deputy.clock())
    assert moment_words(goal.monitor.next_at, "UTC") == "Tue 19 Jan 12:00 UTC"
    deputy.goals.save(goal)
    deputy.dispatch.step(goal.id, goal.step, delay=goal.monitor.next_at - deputy.clock())
    calls = len(model.calls)
    deputy.tick(4 * 86400 + 4 * 3600)
    check_in = deputy.sent()[-1]
    assert check_in.startswith("⏰ Reminder: How did it go? You mentioned “find me a tie, I have a job interview")
    assert len(model.calls) == calls, "the check-in is sent by code"
    assert deputy.goal(goal.id).status.finished
