"""The goal runner: one step at a time, on real Redis, with a function-driven model.

What a user relies on: an email the model asks for becomes exactly one action for the
guard (never sent by the agent itself); the agent continues with the action's real
outcome; it answers once and finishes or waits for the user; bad tool calls and model
outages are handled without a crash or a flood of messages; and the transcript it keeps
is one the OpenAI API accepts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from redis import Redis

from deputy.agent.goals import Goal, GoalStatus
from deputy.agent.model.chat_model import ModelReply, ModelUnavailable, ToolCall
from deputy.agent.runner import RunnerLimits, StepOutcome
from deputy.agent.model.testing import (
    FunctionModel,
    last_message,
    message_text,
    text,
    tool_call,
    tool_calls,
)
from deputy.bot.handlers import Handlers
from deputy.bot.presses import decide_press
from deputy.bot.services import BotServices
from deputy.core.records.effects import EffectClass
from deputy.connectors.default import default_catalog
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.records.actions import ActionState
from deputy.testing.inline import InlineDeputy, RecordingDispatch

USER, CHAT = 101, 5001
NOW = 1_700_000_000.0
GOAL_TEXT = "email alice@example.org that I'll be 10 minutes late"
EMAIL = {"to": ["alice@example.org"], "subject": "Running late", "body": "Hi Alice, I'll be 10 minutes late."}

Messages = list[dict[str, Any]]


Stepped = Callable[..., InlineDeputy]


@pytest.fixture
def stepped(redis: Redis) -> Stepped:
    """Makes a Deputy with `fn` as its model whose runner the test runs one step at a time."""

    def make(fn: Callable[[Messages, list], ModelReply], limits: RunnerLimits | None = None) -> InlineDeputy:
        return InlineDeputy(redis, FunctionModel(fn), default_catalog(), {}, clock=ManualClock(NOW),
                            dispatch=RecordingDispatch(), limits=limits or RunnerLimits())

    return make


def texted(deputy: InlineDeputy, text: str = GOAL_TEXT) -> Goal:
    """Stored exactly as the bot stores a texted goal."""
    return deputy.new_goal(USER, text, chat_id=CHAT)


def requests(deputy: InlineDeputy) -> list[Messages]:
    return [messages for messages, _ in deputy.model.calls]


def assert_tool_calls_answered(messages: Messages) -> None:
    """OpenAI's rule: each assistant tool call gets exactly one tool message before the next turn."""
    for i, message in enumerate(messages):
        if message["role"] == "tool":
            assert i > 0 and messages[i - 1]["role"] in ("assistant", "tool"), f"stray tool message at {i}"
        if message["role"] != "assistant" or not message.get("tool_calls"):
            continue
        answered: list[str] = []
        for following in messages[i + 1 :]:
            if following["role"] != "tool":
                break
            answered.append(following["tool_call_id"])
        assert sorted(answered) == sorted(c["id"] for c in message["tool_calls"]), f"turn at {i}: {answered}"


def email_then_report(messages: Messages, tools: list) -> ModelReply:
    """Emails Alice, then reports the email's outcome to the user."""
    last = last_message(messages)
    if last["role"] == "tool":
        return tool_call("reply", text=f"Done: {message_text(last)}")
    return tool_call("send_email", **EMAIL)


def start_email_goal(stepped: Stepped, fn=email_then_report) -> tuple[InlineDeputy, Goal]:
    """Goal texted, first model turn, then the step that handles its send_email call."""
    deputy = stepped(fn)
    goal = texted(deputy)
    assert deputy.runner.run_step(goal.id, 0) is StepOutcome.continued
    assert deputy.dispatch.steps == [(goal.id, 1, 0)]
    assert deputy.runner.run_step(goal.id, 1) is StepOutcome.acting
    return deputy, goal


# -- an email becomes an action ---------------------------------------------------------


def test_an_email_from_the_model_becomes_one_submitted_action(stepped: Stepped) -> None:
    deputy, goal = start_email_goal(stepped)

    [record] = deputy.stored_actions()
    assert record.state is ActionState.submitted
    action = record.action
    assert {key: action.arguments[key] for key in EMAIL} == EMAIL
    assert action.arguments.get("cc", []) == []
    assert (action.connector, action.operation, action.effect) == ("email", "send_email", EffectClass.communicate)
    assert action.targets == ["alice@example.org"]
    assert (action.goal_id, action.user_id, action.chat_id) == (goal.id, USER, CHAT)
    assistant_turn = deputy.goals.get(goal.id).messages[-1]
    assert action.tool_call_id == assistant_turn["tool_calls"][0]["id"]

    stored = deputy.goals.get(goal.id)
    assert stored.status is GoalStatus.acting and stored.pending_action_id == action.id
    assert deputy.dispatch.actions == [(action.id, goal.id, 1)]
    assert deputy.messages() == [], "nothing is said to the user before the guard has seen the email"
    assert len(deputy.model.calls) == 1


def test_re_running_a_step_submits_nothing_new(stepped: Stepped) -> None:
    """Queues deliver at least once: a duplicate job for a done step must be harmless."""
    deputy, goal = start_email_goal(stepped)
    runner = deputy.runner
    [first] = deputy.stored_actions()

    assert runner.run_step(goal.id, 0) is StepOutcome.stale
    # The step that submitted only re-hands the same action (its hand-off may have been lost).
    assert runner.run_step(goal.id, 1) is StepOutcome.waiting
    assert runner.run_step(goal.id, 7) is StepOutcome.stale

    assert [r.action.id for r in deputy.stored_actions()] == [first.action.id]
    assert {a[0] for a in deputy.dispatch.actions} == {first.action.id}
    assert len(deputy.model.calls) == 1
    assert deputy.goals.get(goal.id).status is GoalStatus.acting


def test_the_model_continues_with_the_action_outcome_then_replies_once(stepped: Stepped) -> None:
    deputy, goal = start_email_goal(stepped)
    runner = deputy.runner
    action_id = deputy.goals.get(goal.id).pending_action_id
    call_id = deputy.stored_actions()[0].action.tool_call_id
    outcome = "Email sent to alice@example.org."
    assert deputy.actions.transition(action_id, (ActionState.submitted,), ActionState.succeeded, outcome=outcome)

    assert runner.run_step(goal.id, 1) is StepOutcome.continued
    last = last_message(requests(deputy)[-1])
    assert (last["role"], last["tool_call_id"], message_text(last)) == ("tool", call_id, outcome)

    assert runner.run_step(goal.id, deputy.dispatch.steps[-1][1]) is StepOutcome.finished
    assert [(m.chat_id, m.text) for m in deputy.messages()] == [(CHAT, f"Done: {outcome}")]
    done = deputy.goals.get(goal.id)
    assert done.status is GoalStatus.done
    assert goal.id in deputy.dispatch.idles
    # A duplicate of the finishing step sends nothing more.
    assert runner.run_step(goal.id, 2) is StepOutcome.not_running
    assert len(deputy.messages()) == 1


def test_a_step_waits_while_the_action_is_still_pending(stepped: Stepped) -> None:
    deputy, goal = start_email_goal(stepped)
    runner = deputy.runner
    action_id = deputy.goals.get(goal.id).pending_action_id
    deputy.actions.transition(action_id, (ActionState.submitted,), ActionState.awaiting_approval)
    assert runner.run_step(goal.id, 1) is StepOutcome.waiting
    assert len(deputy.model.calls) == 1
    # The action waits for its card, and so the goal says: it waits for the user, not for work.
    assert deputy.goals.get(goal.id).status is GoalStatus.waiting_approval


# -- replies ----------------------------------------------------------------------------


def test_a_question_waits_for_the_users_answer(stepped: Stepped) -> None:
    deputy = stepped(lambda m, t: tool_call("reply", text="Which Alice do you mean?", expects_answer=True))
    runner = deputy.runner
    goal = texted(deputy, "email Alice")
    runner.run_step(goal.id, 0)
    assert runner.run_step(goal.id, 1) is StepOutcome.finished

    assert [m.text for m in deputy.messages()] == ["Which Alice do you mean?"]
    assert deputy.goals.get(goal.id).status is GoalStatus.waiting_user
    assert deputy.goals.awaiting_answer(USER) == goal.id
    assert deputy.stored_actions() == []


def test_a_reply_ends_the_turn_and_later_calls_in_it_never_run(stepped: Stepped) -> None:
    deputy = stepped(lambda m, t: tool_calls(("reply", {"text": "All done."}), ("send_email", EMAIL)))
    runner = deputy.runner
    goal = texted(deputy)
    runner.run_step(goal.id, 0)
    assert runner.run_step(goal.id, 1) is StepOutcome.finished

    assert [m.text for m in deputy.messages()] == ["All done."]
    assert deputy.stored_actions() == [] and deputy.dispatch.actions == []
    stored = deputy.goals.get(goal.id)
    assert stored.status is GoalStatus.done
    assert_tool_calls_answered(stored.messages)


# -- malformed tool calls ---------------------------------------------------------------


def _bad_email() -> ModelReply:
    return tool_call("send_email", to=["not-an-address"], subject="Hi", body="Hello")


def _not_json() -> ModelReply:
    return ModelReply(tool_calls=[ToolCall(id="call_bad_json", name="send_email", arguments='{"to": ["alice@exa')])


def _unknown_tool() -> ModelReply:
    return tool_call("send_sms", to="+15550100", body="Running late")


@pytest.mark.parametrize(
    ("bad_reply", "explains"),
    [(_bad_email, "not-an-address"), (_not_json, "JSON"), (_unknown_tool, "send_email")],
    ids=["invalid-address", "non-json", "unknown-tool"],
)
def test_a_malformed_tool_call_goes_back_to_the_model_as_an_error(
    stepped: Stepped, bad_reply: Callable[[], ModelReply], explains: str
) -> None:
    bad = bad_reply()

    def model(messages: Messages, tools: list) -> ModelReply:
        return bad if last_message(messages)["role"] == "user" else text("Sorry, I could not do that.")

    deputy = stepped(model)
    runner = deputy.runner
    goal = texted(deputy)
    runner.run_step(goal.id, 0)
    # Giving up right after a call Deputy's checks explained goes back to the model once...
    assert runner.run_step(goal.id, 1) is StepOutcome.continued
    # ...and the model that still can't do it is heard.
    assert runner.run_step(goal.id, deputy.dispatch.steps[-1][1]) is StepOutcome.finished

    second_request = requests(deputy)[1]
    error = last_message(second_request)
    assert error["role"] == "tool" and error["tool_call_id"] == bad.tool_calls[0].id
    assert message_text(error).startswith("Error") and explains in message_text(error)
    assert_tool_calls_answered(second_request)
    assert deputy.stored_actions() == [] and deputy.dispatch.actions == []
    assert [m.text for m in deputy.messages()] == ["Sorry, I could not do that."]


# -- model outages and runaway models ---------------------------------------------------


def test_a_model_outage_is_retried_later_then_reported_once(stepped: Stepped) -> None:
    def down(messages: Messages, tools: list) -> ModelReply:
        raise ModelUnavailable("HTTP 503 from upstream at 10.0.0.7", "I couldn't reach the language model.")

    deputy = stepped(down, RunnerLimits(max_model_attempts=3, retry_delays=(2.0, 8.0, 30.0)))
    runner = deputy.runner
    goal = texted(deputy)

    assert runner.run_step(goal.id, 0) is StepOutcome.retrying
    assert runner.run_step(goal.id, 0) is StepOutcome.retrying
    assert deputy.dispatch.steps == [(goal.id, 0, 2.0), (goal.id, 0, 8.0)], "retries are scheduled, not slept"
    assert deputy.messages() == [], "a passing outage is not worth a message"

    assert runner.run_step(goal.id, 0) is StepOutcome.finished
    [message] = deputy.messages()
    assert "/retry" in message.text and "couldn't reach the language model" in message.text
    assert "503" not in message.text and "10.0.0.7" not in message.text
    assert deputy.goals.get(goal.id).status is GoalStatus.failed
    assert len(deputy.model.calls) == 3


def test_a_model_that_recovers_carries_on_without_bothering_the_user(stepped: Stepped) -> None:
    failures = iter([ModelUnavailable("timeout", "The language model didn't answer in time.")])

    def flaky(messages: Messages, tools: list) -> ModelReply:
        for failure in failures:
            raise failure
        return text("Done.")

    deputy = stepped(flaky)
    runner = deputy.runner
    goal = texted(deputy, "say done")
    assert runner.run_step(goal.id, 0) is StepOutcome.retrying
    assert runner.run_step(goal.id, 0) is StepOutcome.finished
    assert [m.text for m in deputy.messages()] == ["Done."]
    assert deputy.goals.get(goal.id).model_attempts == 0


def test_a_model_that_never_finishes_is_stopped_with_a_clear_message(stepped: Stepped) -> None:
    deputy = stepped(lambda m, t: tool_call("update_plan", steps=[{"title": "Think about it"}]),
                     RunnerLimits(max_steps=3))
    runner = deputy.runner
    goal = texted(deputy)
    outcome, step = runner.run_step(goal.id, 0), 0
    for _ in range(10):
        if outcome is StepOutcome.finished:
            break
        step = deputy.dispatch.steps[-1][1]
        outcome = runner.run_step(goal.id, step)
    assert outcome is StepOutcome.finished

    [message] = deputy.messages()
    assert "3 steps" in message.text and "Continue?" in message.text
    assert [b.text for b in message.buttons[0]] == ["Continue", "Stop"]
    assert deputy.goals.get(goal.id).status is GoalStatus.paused
    assert len(deputy.model.calls) == 3


# -- the transcript ---------------------------------------------------------------------


def test_a_multi_call_turn_keeps_the_transcript_valid_for_openai(stepped: Stepped) -> None:
    """update_plan + send_email in one reply: both calls are answered, in the same turn."""

    def model(messages: Messages, tools: list) -> ModelReply:
        if last_message(messages)["role"] == "user":
            return tool_calls(("update_plan", {"steps": [{"title": "Email Alice", "status": "doing"}]}), ("send_email", EMAIL))
        return tool_call("reply", text="Emailed Alice.")

    deputy, goal = start_email_goal(stepped, model)
    runner = deputy.runner
    acting = deputy.goals.get(goal.id)
    assert [s.title for s in acting.plan] == ["Email Alice"]
    [record] = deputy.stored_actions()
    deputy.actions.transition(record.action.id, (ActionState.submitted,), ActionState.succeeded, outcome="Email sent.")

    assert runner.run_step(goal.id, 1) is StepOutcome.continued
    assert runner.run_step(goal.id, deputy.dispatch.steps[-1][1]) is StepOutcome.finished

    for request in requests(deputy):
        assert_tool_calls_answered(request)
    final = deputy.goals.get(goal.id)
    assert_tool_calls_answered(final.messages)
    turn = next(m for m in final.messages if m.get("tool_calls") and len(m["tool_calls"]) == 2)
    results = final.messages[final.messages.index(turn) + 1 : final.messages.index(turn) + 3]
    assert [r["content"] for r in results] == ["Plan saved.", "Email sent."]
    assert final.status is GoalStatus.done


class _ChatMessage:
    """Just enough of a Telegram message for a command handler to answer it."""

    def __init__(self) -> None:
        self.replies: list[str] = []

    async def reply_text(self, text: str) -> None:
        self.replies.append(text)


def send_retry_command(redis: Redis) -> list[str]:
    """The user sends /retry: runs the bot's real handler; returns what the bot answered."""
    message = _ChatMessage()
    update = SimpleNamespace(effective_user=SimpleNamespace(id=USER), effective_message=message)
    asyncio.run(Handlers(BotServices.create(redis, "secret", None)).retry(update, None))
    return message.replies


def test_continue_after_the_step_limit_lets_the_goal_go_on(stepped: Stepped) -> None:
    """The budget stop asks "Continue?"; pressing Continue must buy another round of steps."""
    replies = iter([tool_call("update_plan", steps=[{"title": f"Think {i}"}]) for i in range(2)])
    deputy = stepped(lambda m, t: next(replies, text("Finished after all.")), RunnerLimits(max_steps=2))
    runner = deputy.runner
    goal = texted(deputy)
    runner.run_step(goal.id, 0)
    runner.run_step(goal.id, 1)
    assert runner.run_step(goal.id, deputy.dispatch.steps[-1][1]) is StepOutcome.finished
    assert deputy.goals.get(goal.id).status is GoalStatus.paused

    services = BotServices.create(deputy.redis, "secret", None)
    data = services.buttons.data("gc", goal.id, USER)
    assert decide_press(services, data, USER).toast == "Back to work."
    restarted = deputy.goals.get(goal.id)
    assert restarted.status is GoalStatus.running
    runner.run_step(goal.id, restarted.step)
    assert len(deputy.model.calls) == 3, "after /retry the model must be asked again"
    assert deputy.messages()[-1].text == "Finished after all."
    assert deputy.goals.get(goal.id).status is GoalStatus.done
