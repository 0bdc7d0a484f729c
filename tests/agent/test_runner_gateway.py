"""The runner with model calls through the gateway, step by step, on real Redis.

The gateway's part is played by hand (an answer stored under the request id, as
`deputy gateway` stores it), so each promise is checked at the boundary: a step ends
after handing the call over; the answer resumes the goal exactly as an inline call would;
a duplicate job, a lost request, an edit and a set-aside answer all end in one correct
next request; errors keep the inline retry semantics.
"""

from __future__ import annotations

import pytest
from redis import Redis

from deputy.agent.goals import Goal, GoalStatus
from deputy.agent.model.chat_model import ModelReply, ModelUnavailable, TokenUsage
from deputy.agent.model.model_requests import (
    OUTCOME,
    PENDING,
    REQUESTS_STREAM,
    ModelFailure,
    ModelOutcome,
    ModelRequest,
    ModelRequests,
)
from deputy.agent.runner import RunnerLimits, StepOutcome
from deputy.agent.model.testing import FunctionModel, text, tool_call
from deputy.connectors.default import default_catalog
from deputy.core.infrastructure.clock import ManualClock
from deputy.testing.inline import InlineDeputy, RecordingDispatch

NOW = 1_700_000_000.0


def never_inline(messages, tools) -> ModelReply:
    raise AssertionError("with a gateway the runner never calls the model itself")


class Rig(InlineDeputy):
    """The runner with a gateway, run step by step: what each step hands on is recorded."""

    dispatch: RecordingDispatch

    def __init__(self, redis: Redis) -> None:
        super().__init__(redis, FunctionModel(never_inline), default_catalog(), {}, clock=ManualClock(NOW),
                         dispatch=RecordingDispatch(),
                         limits=RunnerLimits(max_model_attempts=3, retry_delays=(2.0, 8.0)),
                         gateway=ModelRequests(redis))

    def requests(self) -> list[ModelRequest]:
        return [ModelRequest.parse_trusted(f[b"request"]) for _, f in self.redis.xrange(REQUESTS_STREAM)]

    def answer(self, request: ModelRequest, outcome: ModelOutcome) -> None:
        """What the gateway does: store the outcome, clear pending (then it enqueues the step)."""
        self.redis.set(OUTCOME.format(request.id), outcome.model_dump_json())
        self.redis.delete(PENDING.format(request.id))

    def reply(self, request: ModelRequest, reply: ModelReply) -> None:
        self.answer(request, ModelOutcome(request_id=request.id, kind="reply", reply=reply))


@pytest.fixture
def rig(redis: Redis) -> Rig:
    return Rig(redis)


def test_a_step_hands_the_call_over_and_the_answer_resumes_the_goal(rig: Rig) -> None:
    goal = rig.new_goal(1, "plan my day")
    assert rig.runner.run_step(goal.id, 0) is StepOutcome.waiting
    [request] = rig.requests()
    waiting = rig.goals.get(goal.id)
    assert waiting.status is GoalStatus.running and waiting.waiting_model.request_id == request.id
    assert request.messages[-1]["content"] == "plan my day" and request.tools, "the prompt is built by the worker"

    # A plan, then (in the same job) the next request: one job per model turn.
    rig.reply(request, tool_call("update_plan", steps=[{"title": "Look at the calendar"}]))
    assert rig.runner.run_step(goal.id, 0) is StepOutcome.waiting
    assert rig.dispatch.carried_on == [(goal.id, 1)] and rig.dispatch.steps == []
    second = rig.requests()[1]
    assert second.step == 1 and second.messages[-1]["role"] == "tool"

    usage = TokenUsage(prompt_tokens=50, completion_tokens=7)
    rig.reply(second, ModelReply(content="Your day is planned.", usage=usage))
    assert rig.runner.run_step(goal.id, 1) is StepOutcome.finished
    done = rig.goals.get(goal.id)
    assert done.status is GoalStatus.done and done.waiting_model is None
    assert (done.prompt_tokens, done.completion_tokens) == (50, 7), "the gateway's token counts reach the goal"
    assert rig.sent() == ["Your day is planned."]


def test_a_duplicate_job_while_the_gateway_works_does_nothing(rig: Rig) -> None:
    goal = rig.new_goal(1, "plan my day")
    rig.runner.run_step(goal.id, 0)
    revision = rig.goals.get(goal.id).revision
    assert rig.runner.run_step(goal.id, 0) is StepOutcome.waiting
    assert len(rig.requests()) == 1 and rig.goals.get(goal.id).revision == revision


def test_a_request_lost_before_it_reached_the_gateway_is_sent_again(rig: Rig) -> None:
    goal = rig.new_goal(1, "plan my day")
    rig.runner.run_step(goal.id, 0)
    [lost] = rig.requests()
    rig.redis.delete(REQUESTS_STREAM, PENDING.format(lost.id))  # as if the worker died before the hand-over
    assert rig.runner.run_step(goal.id, 0) is StepOutcome.waiting
    [again] = rig.requests()
    assert again.id != lost.id and rig.goals.get(goal.id).waiting_model.request_id == again.id


def test_an_answer_set_aside_while_paused_means_asking_again(rig: Rig) -> None:
    goal = rig.new_goal(1, "plan my day")
    rig.runner.run_step(goal.id, 0)
    [request] = rig.requests()
    rig.answer(request, ModelOutcome(request_id=request.id, kind="discarded"))
    assert rig.runner.run_step(goal.id, 0) is StepOutcome.waiting  # resumed: a fresh request
    assert [r.step for r in rig.requests()] == [0, 0] and rig.requests()[1].id != request.id


def test_an_edit_makes_the_pending_answer_moot(rig: Rig) -> None:
    goal = rig.new_goal(1, "plan my day")
    rig.runner.run_step(goal.id, 0)
    [request] = rig.requests()

    def edit(g: Goal) -> Goal:  # what the bot does on Edit
        g.messages.append({"role": "user", "content": "(The user changed the goal) only the morning"})
        g.step += 1
        g.steps_base = g.step
        return g

    rig.goals.update(goal.id, edit)
    rig.reply(request, text("Your whole day is planned."))
    assert rig.runner.run_step(goal.id, 1) is StepOutcome.waiting
    fresh = rig.requests()[1]
    assert fresh.step == 1 and "only the morning" in fresh.messages[-1]["content"]
    assert rig.sent() == [], "the answer to the old goal is never delivered"


def test_model_errors_keep_the_inline_retry_semantics(rig: Rig) -> None:
    goal = rig.new_goal(1, "plan my day")
    outage = ModelFailure.of(ModelUnavailable("connection refused", "I couldn't reach the language model."))
    for attempt, step in enumerate([0, 0, 0], start=1):
        rig.runner.run_step(goal.id, step)
        request = rig.requests()[-1]
        rig.answer(request, ModelOutcome(request_id=request.id, kind="error", failure=outage))
        outcome = rig.runner.run_step(goal.id, step)
        if attempt < 3:
            assert outcome is StepOutcome.retrying and rig.dispatch.steps[-1] == (goal.id, 0, [2.0, 8.0][attempt - 1])
    assert outcome is StepOutcome.finished
    failed = rig.goals.get(goal.id)
    assert failed.status is GoalStatus.failed and failed.model_attempts == 3
    [message] = rig.sent()
    assert message.startswith("I couldn't reach the language model.") and "/retry" in message
