"""A read asked for again with nothing changed is answered from the transcript: the goal answers instead of
going round in circles. Through the real runner (InlineDeputy) with a model that repeats itself."""

from __future__ import annotations

from typing import Any

from redis import Redis

from deputy.agent.goals import GoalStatus
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import FunctionModel, message_text, text, tool_call
from deputy.agent.model.text_tools import TextToolsOptions, text_tools_turn
from deputy.agent.repeated_reads import SAME_READ, already_read, repeated_tool
from deputy.agent.tools import INTERNAL_TOOLS
from deputy.connectors.default import default_catalog
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.records.actions import Action
from deputy.core.records.effects import OperationResult
from deputy.testing.inline import InlineDeputy

USER = 7
TOMORROW = "Events 2026-12-07 to 2026-12-08:\n- ev-1 | Mon 7 Dec 10:00-11:00 | Dentist | Personal"


def rig(redis: Redis, model: Any, listed: list[dict[str, Any]]) -> InlineDeputy:
    def list_events(action: Action, key: str) -> OperationResult:
        listed.append(dict(action.arguments))
        return OperationResult(summary=TOMORROW, untrusted_origin="your calendar")

    def create_event(action: Action, key: str) -> OperationResult:
        return OperationResult(summary="Created ev-2.")

    return InlineDeputy(redis, FunctionModel(model), default_catalog(),
                        {"calendar.list_events": list_events, "calendar.create_event": create_event},
                        clock=ManualClock(1_765_000_000.0))


def test_the_same_read_asked_again_is_not_run_again_and_the_goal_answers(redis: Redis) -> None:
    listed: list[dict[str, Any]] = []
    offers: list[list[str]] = []

    def model(messages: list[dict[str, Any]], tools: list[Any]) -> ModelReply:
        offers.append([t["function"]["name"] for t in tools])
        if "Dentist" in message_text(messages[-1]) or SAME_READ in message_text(messages[-1]):
            repeats = sum(1 for m in messages if m.get("role") == "tool")
            if repeats < 3:
                # The arguments in another order and spacing are still the same read.
                return tool_call("list_events", end="tomorrow night", start="tomorrow")
            return text("Tomorrow you have the dentist at 10:00.")
        return tool_call("list_events", start="tomorrow", end="tomorrow night")

    deputy = rig(redis, model, listed)
    goal = deputy.start(USER, "what's on my calendar tomorrow?")
    assert len(listed) == 1, "the calendar was read once; the repeats were answered from the transcript"
    assert deputy.goal(goal.id).status is GoalStatus.done
    assert deputy.sent()[-1] == "Tomorrow you have the dentist at 10:00."
    assert not any("round in circles" in sent for sent in deputy.sent())


def test_a_read_after_a_change_or_new_words_from_the_user_runs_again(redis: Redis) -> None:
    listed: list[dict[str, Any]] = []
    script = [tool_call("list_events", start="tomorrow"), tool_call("create_event", title="Gym", start="tomorrow 18:00"),
              tool_call("list_events", start="tomorrow"), text("Done: the gym is on after the dentist.")]
    deputy = rig(redis, lambda messages, tools: script.pop(0), listed)
    deputy.start(USER, "put the gym on tomorrow at 6pm and show me my day")
    assert len(listed) == 2, "the calendar changed in between, so it was read again"


def test_the_repeated_tool_is_left_out_of_the_next_offer() -> None:
    call = {"id": "c2", "type": "function", "function": {"name": "list_events", "arguments": "{}"}}
    messages = [{"role": "user", "content": "what's on tomorrow?"},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c2", "content": SAME_READ}]
    assert repeated_tool(messages) == "list_events"
    list_events = {"type": "function", "function": {"name": "list_events", "description": "", "parameters": {}}}
    turn = text_tools_turn(messages, [*INTERNAL_TOOLS, list_events], TextToolsOptions())
    _, offered = next(turn)
    assert "list_events" not in [t["function"]["name"] for t in offered]
    assert "reply" in [t["function"]["name"] for t in offered]


def test_only_an_answered_call_with_equal_arguments_counts_as_read_already() -> None:
    def call(call_id: str, arguments: str) -> dict[str, Any]:
        return {"role": "assistant", "tool_calls": [{"id": call_id, "function": {"name": "search_email",
                                                                               "arguments": arguments}}]}
    answered = [call("a", '{"text": "sam"}'), {"role": "tool", "tool_call_id": "a", "content": "1 email"}]
    is_read = {"search_email"}.__contains__
    assert already_read(answered, "search_email", '{ "text":"sam" }', is_read)
    assert not already_read(answered, "search_email", '{"text": "bob"}', is_read)
    assert not already_read([call("a", '{"text": "sam"}')], "search_email", '{"text": "sam"}', is_read)
    user_again = [*answered, {"role": "user", "content": "the other Sam", "origin": "user"}]
    assert not already_read(user_again, "search_email", '{"text": "sam"}', is_read)


def test_a_change_that_failed_changed_nothing_so_reading_again_is_the_same_read() -> None:
    def call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
        return {"role": "assistant", "tool_calls": [{"id": call_id, "function": {"name": name, "arguments": arguments}}]}
    listed = [call("a", "list_events", '{"start": "tomorrow"}'), {"role": "tool", "tool_call_id": "a", "content": "…"}]
    is_read = {"list_events"}.__contains__
    failed = [*listed, call("b", "cancel_event", '{"event_id": "0"}'),
              {"role": "tool", "tool_call_id": "b", "content": "Error: Invalid arguments (event_id: …)"}]
    assert already_read(failed, "list_events", '{"start": "tomorrow"}', is_read)
    done = [*listed, call("b", "cancel_event", '{"event_id": "work/e2"}'),
            {"role": "tool", "tool_call_id": "b", "content": "Cancelled “Standup”."}]
    assert not already_read(done, "list_events", '{"start": "tomorrow"}', is_read)


def test_alternating_between_two_steps_counts_as_going_round_in_circles() -> None:
    from deputy.agent.model_turn import going_round

    assert going_round(["a", "a", "a"], 3)
    assert going_round(["x", "l", "c", "l", "c", "l", "c"], 3), "list, failing cancel, three times over"
    assert not going_round(["l", "c", "l", "c"], 3)
    assert not going_round(["a", "b", "c", "a", "b", "c"], 3)


def test_a_note_of_something_that_happened_since_makes_the_same_read_new() -> None:
    # The page asked for a captcha; the user answered it through Deputy, which noted it: reading again is new.
    call = {"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "open_page",
                                                                        "arguments": '{"url": "https://x.example"}'}}]}
    seen = [call, {"role": "tool", "tool_call_id": "a", "content": "The page wants a human check."}]
    noted = [*seen, {"role": "user", "content": "(Deputy) The step can go on now.", "origin": "deputy"}]
    is_read = {"open_page"}.__contains__
    assert already_read(seen, "open_page", '{"url": "https://x.example"}', is_read)
    assert not already_read(noted, "open_page", '{"url": "https://x.example"}', is_read)
