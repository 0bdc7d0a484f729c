"""The model evaluation (bench.model_eval) judges fairly: checked with scripted models."""

from __future__ import annotations

import io

from deputy.agent.memory_tools import MEMORY_TOOLS
from deputy.agent.model.testing import FunctionModel, text, tool_call
from deputy.agent.tools import INTERNAL_TOOLS
from deputy.agent.model.chat_model import ToolCall
from bench.model_eval import ASK, CASES, PLAIN, arguments_used, attempt, judge, next_action, new_goal, run
from deputy.connectors.default import default_catalog

EMAIL = CASES[0]  # "Email alice@example.org that I'm running late"
CAPITAL = next(c for c in CASES if "France" in c.goal)
DENTIST = next(c for c in CASES if "dentist" in c.goal)


def test_there_are_sixty_goals_in_seven_categories_and_every_expected_tool_exists() -> None:
    names = {t["function"]["name"] for t in [*INTERNAL_TOOLS, *MEMORY_TOOLS, *default_catalog().tool_schemas()]}
    assert len(CASES) >= 60
    assert {c.category for c in CASES} == {"email", "calendar", "question", "memory", "ask", "steps", "web"}
    for case in CASES:
        assert case.tools <= names | {PLAIN, ASK}, case.goal


def test_a_goal_missing_its_recipient_passes_only_by_asking_or_looking_it_up() -> None:
    plumber = next(c for c in CASES if "plumber" in c.goal and c.category == "ask")
    assert judge(plumber, tool_call("reply", text="What is your plumber's email address?", expects_answer=True))[0]
    assert judge(plumber, tool_call("search_email", query="plumber"))[0]
    # A made-up address never reaches a card: Deputy's own code asks the user instead, as the runner does.
    ok, note = judge(plumber, tool_call("send_email", to=["plumber@example.com"], subject="Sink", body="Leaking"))
    assert ok and "Deputy asks" in note and "plumber@example.com" in note
    assert not judge(plumber, tool_call("reply", text="Done, I emailed your plumber."))[0]
    # The same guard turns a guess into a question where the user did expect a card: that is a miss.
    email = CASES[0]
    ok, note = judge(email, tool_call("send_email", to=["alicia@example.org"], subject="Late", body="I'm late"))
    assert not ok and "Deputy asks instead of showing a card" in note


def test_a_time_is_judged_in_the_users_own_zone() -> None:
    new_york = next(c for c in CASES if c.zone == "America/New_York")  # "tomorrow at 9am"
    assert judge(new_york, tool_call("create_event", title="Dentist", start="tomorrow at 9am"))[0]
    used = arguments_used(ToolCall(id="c", name="create_event", arguments='{"title": "x", "start": "tomorrow at 9am"}'),
                          new_york.zone)
    assert used["start"] == "2026-11-30T09:00-05:00"  # 14:00 UTC, not 09:00 UTC
    # A model that did the arithmetic itself (in UTC) is overruled by the user's own words, as the runner does.
    ok, note = judge(new_york, tool_call("create_event", title="Dentist", start="2026-11-30T09:00Z"))
    assert ok, note


def test_a_users_memories_reach_the_model_and_a_goal_that_needs_them_is_judged_by_them() -> None:
    sister = next(c for c in CASES if c.goal == "Email my sister that I land at 6pm")
    model = FunctionModel(lambda messages, tools: tool_call(
        "send_email", to=["anna.berg@example.org"], subject="Landing", body="I land at 6pm"))
    reply = next_action(model, [], new_goal(sister.goal), sister)
    assert "anna.berg@example.org" in str(model.calls[0][0]) and judge(sister, reply)[0]
    assert not judge(sister, tool_call("send_email", to=["sister@example.com"], subject="x", body="I land at 6pm"))[0]


def test_the_right_tool_with_valid_arguments_passes() -> None:
    ok, _ = judge(EMAIL, tool_call("send_email", to=["alice@example.org"], subject="Late", body="I'm running late"))
    assert ok


def test_invalid_arguments_a_wrong_tool_or_a_wrong_value_fail() -> None:
    assert not judge(EMAIL, tool_call("send_email", to=["alice@example.org"]))[0]  # no subject or body
    assert not judge(EMAIL, tool_call("draft_email", to=["alice@example.org"], subject="Late", body="late"))[0]
    assert not judge(EMAIL, tool_call("send_email", to=["bob@example.org"], subject="Late", body="late"))[0]
    assert not judge(EMAIL, text("I'll email Alice."))[0]


def test_a_plain_question_passes_with_a_plain_answer_or_a_reply() -> None:
    assert judge(CAPITAL, text("It's Paris."))[0]
    assert judge(CAPITAL, tool_call("reply", text="Paris"))[0]
    assert not judge(CAPITAL, text("Lyon"))[0]
    assert not judge(CAPITAL, tool_call("search_web", query="capital of France"))[0]


def test_an_opening_plan_is_skipped_and_a_validation_error_gets_one_correction() -> None:
    replies = [
        tool_call("update_plan", steps=[{"title": "Add it"}]),
        tool_call("create_event", title="Dentist", start="2026-12-03T09:00", end="2026-12-03T08:00"),
        tool_call("create_event", title="Dentist", start="2026-12-03T09:00", duration_minutes=30),
    ]
    model = FunctionModel(lambda messages, tools: replies.pop(0))
    first, fixed, _ = attempt(model, [], DENTIST)
    assert (first, fixed) == (False, True)
    assert "end must be after start" in model.calls[2][0][-1]["content"]  # the runner's own error text


def test_run_prints_every_goal_and_the_score() -> None:
    out = io.StringIO()
    # Right for the capital, the leap year, and a dinner idea with no meat or peanuts in it.
    assert run(FunctionModel(lambda messages, tools: text("Paris, 366")), CASES, out) == 3
    lines = out.getvalue().splitlines()
    assert sum(line.split()[1] in ("PASS", "FAIL", "FIXED") for line in lines if line[:3].strip().rstrip(".").isdigit()) \
        == len(CASES)
    assert f"Score: 3/{len(CASES)}" in out.getvalue()
    assert "question       8" in out.getvalue()  # the table per category


def test_a_date_in_the_users_words_is_judged_by_the_instant_deputy_resolves() -> None:
    """The model may copy "3 December 2026 at 9:00" instead of writing ISO: Deputy's resolver reads it."""
    assert judge(DENTIST, tool_call("create_event", title="Dentist", start="3 December 2026 at 9:00"))[0]
    # A date the model wrote itself gives way to the user's own words, as Deputy does it; one it cannot tell
    # from theirs (a day counted in other words) lands, and is judged wrong.
    assert judge(DENTIST, tool_call("create_event", title="Dentist", start="4 December 2026 at 9:00"))[0]
    assert not judge(DENTIST, tool_call("create_event", title="Dentist", start="in 400 days at 9:00"))[0]
    ok, note = judge(DENTIST, tool_call("create_event", title="Dentist", start="next week"))
    assert not ok and "could be more than one day" in note
