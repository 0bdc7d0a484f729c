"""A question asks for an answer, not for a change.

Real runner, guard and outbox on real Redis (InlineDeputy); the model is scripted the way a small model
went wrong: it *created* an event for "what's on my calendar tomorrow?".
"""

from __future__ import annotations


import pytest
from redis import Redis

from deputy.agent.model.testing import tool_call
from deputy.agent.only_asked import only_asks
from tests.agent.test_dates_and_asking import Rig, results, script

CREATE = tool_call("create_event", title="Meeting with John", start="tomorrow at 10:00", calendar="personal")


def test_a_question_creates_no_event_and_the_model_is_told_why(redis: Redis) -> None:
    rig = Rig(redis, script(CREATE), zone="Europe/Berlin")
    goal = rig.text("what's on my calendar tomorrow?")
    assert results(goal.messages)[0].startswith("Error: not run: the user only asked a question")
    assert rig.action_arguments("create_event") == [], "nothing was changed for a question"


def test_a_question_is_answered_by_reading_the_calendar_without_being_sent_back(redis: Redis) -> None:
    # "do I have anything on the 24th?": reading the calendar is how a question is answered, times and all.
    listed = tool_call("list_events", start="2026-12-24T00:00", end="2026-12-24T23:59")
    free = tool_call("free_busy", start="2026-12-24T00:00", end="2026-12-24T23:59")
    rig = Rig(redis, script(listed, free), zone="Europe/Berlin")
    goal = rig.text("do I have anything on the 24th?")
    assert not any(result.startswith("Error") for result in results(goal.messages)[:2]), results(goal.messages)


def test_a_question_forgets_nothing_and_remembers_nothing(redis: Redis) -> None:
    # "Was hat meine letzte Bestellung gekostet?" read as a memory goal: the model "forgot" what it could not recall.
    forget = tool_call("forget_memory", description="my last order")
    remember = tool_call("remember", text="My last order cost nothing")
    rig = Rig(redis, script(forget, remember), zone="Europe/Berlin")
    goal = rig.text("Was hat meine letzte Bestellung gekostet?")
    assert all(result.startswith("Error: not run: the user only asked a question") for result in results(goal.messages)[:2])
    assert not redis.keys("*memor*:*"), "nothing was written to the user's memories"
    asked = Rig(redis, script(tool_call("remember", text="I am vegan")), zone="Europe/Berlin")
    told = asked.text("Please remember that I am vegan")
    assert not results(told.messages)[0].startswith("Error"), "a request is carried out"
    assert redis.keys("*memor*:*"), "and its memory is kept where the check above looked"


def test_a_request_put_as_a_question_is_carried_out(redis: Redis) -> None:
    rig = Rig(redis, script(CREATE), zone="Europe/Berlin")
    goal = rig.text("could you put a meeting with John in my calendar tomorrow at 10?")
    assert not results(goal.messages)[0].startswith("Error")
    assert [a["title"] for a in rig.action_arguments("create_event")] == ["Meeting with John"]


def test_a_model_that_insists_goes_on_to_the_guard(redis: Redis) -> None:
    rig = Rig(redis, script(CREATE, CREATE), zone="Europe/Berlin")
    goal = rig.text("is there anything on my calendar tomorrow at 10?")
    first, second = results(goal.messages)[:2]
    assert first.startswith("Error: not run: the user only asked a question")
    assert not second.startswith("Error: not run")
    assert rig.action_arguments("create_event")


@pytest.mark.parametrize("words, asks", [
    ("what's on my calendar tomorrow?", True), ("did Sam reply?", True), ("Any news from Sam?", True),
    ("¿Qué tengo mañana?", True), ("Was steht morgen an?", True), ("Qu'est-ce que j'ai demain ?", True),
    ("Cosa ho domani?", True), ("O que tenho amanhã?", True), ("Wat heb ik morgen?", True),
    ("can you add lunch with Bo tomorrow at 1?", False), ("¿Puedes enviar un correo a Ana?", False),
    ("Kannst du Sam schreiben?", False), ("Is Friday free? If so book the dentist.", False),
    ("email sam that I am late?", False), ("How about booking Roma tonight?", False),
    ("please, what is on tomorrow?", False), ("add lunch tomorrow", False),
    ("Any chance you could book Roma at 8?", False), ("What could you tell me about Roma?", True),
])
def test_only_a_question_that_asks_nothing_to_be_done_counts(words: str, asks: bool) -> None:
    assert only_asks([words]) is asks


def test_a_follow_up_question_to_a_request_keeps_the_requests_mandate() -> None:
    assert only_asks(["email Sam that I'm late", "did it go?"]) is False
