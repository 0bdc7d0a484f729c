"""A goal that moved on always has a job to take it further, whatever stopped between the two writes.

Saving a goal and queueing its next step are two writes. A process killed between them, or a
Redis restart that loses the second's reply, used to leave a goal saved a step further with no
job: the user's goal went silent. These tests stop Deputy exactly there, on a real Redis with
RQ's own worker, and look at what the user gets.
"""

from __future__ import annotations

import json

import pytest
from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from rq import SimpleWorker
from rq.serializers import JSONSerializer

from deputy.agent.answers import add_answer
from deputy.agent.goals import GoalStatus
from deputy.agent.model.chat_model import ModelReply, ToolCall
from deputy.agent.model.testing import FunctionModel
from deputy.apps.worker_process import WorkerContext, install
from deputy.connectors.catalog import Catalog
from deputy.core.records.payloads import AGENT_QUEUE
from deputy.queue.dispatch import RQDispatch, goal_unit, make_queues
from deputy.queue.inflight import Inflight
from deputy.testing.inline import InlineDeputy, RecordingDispatch


def _never_called(messages, tools):
    raise AssertionError("the model is not asked: the step's reply was already saved")


def _deputy(redis: Redis) -> InlineDeputy:
    return InlineDeputy(redis, FunctionModel(_never_called), Catalog(), {}, dispatch=RecordingDispatch())


def _run_agent_jobs(redis: Redis, deputy: InlineDeputy) -> None:
    install(WorkerContext(redis=redis, lease_ttl=3.0, runner=deputy.runner))
    SimpleWorker([make_queues(redis)[AGENT_QUEUE]], connection=redis, serializer=JSONSerializer).work(burst=True)


def _saved_with_a_reply_to_deliver(deputy: InlineDeputy, text: str):
    """A goal whose step 0 recorded the model's answer (step 1: a reply for the user) and checkpointed it."""
    goal = deputy.new_goal(7, "say hi to me")
    call = ToolCall(id="call-1", name="reply", arguments=json.dumps({"text": text}))
    goal.messages.append(ModelReply(tool_calls=[call]).as_message())
    goal.pending_calls = [call]
    goal.step = 1
    return deputy.goals.save(goal)


def test_a_step_saved_but_never_handed_on_is_taken_by_the_jobs_rerun(redis: Redis) -> None:
    deputy = _deputy(redis)
    goal = _saved_with_a_reply_to_deliver(deputy, "Hi! Here is your answer.")
    # The job of step 0 checkpointed step 1 and stopped before queueing it: the unit still names
    # step 0's job, which the watchdog runs again.
    RQDispatch(redis).step(goal.id, 0, owner=goal.user_id)

    _run_agent_jobs(redis, deputy)

    assert deputy.sent() == ["Hi! Here is your answer."]
    assert deputy.goal(goal.id).status is GoalStatus.done
    assert Inflight(redis).get(goal_unit(goal.id)) is None


def test_a_stale_job_whose_goal_was_handed_to_another_does_nothing_twice(redis: Redis) -> None:
    deputy = _deputy(redis)
    goal = _saved_with_a_reply_to_deliver(deputy, "Only once, please.")
    dispatch = RQDispatch(redis)
    dispatch.step(goal.id, 0, owner=goal.user_id)  # an old duplicate, still in the queue
    dispatch.step(goal.id, 1, owner=goal.user_id)  # the step handed on properly: the unit names this job

    _run_agent_jobs(redis, deputy)

    assert deputy.sent() == ["Only once, please."]


def _asking_the_user(deputy: InlineDeputy):
    goal = deputy.new_goal(8, "book a table for Friday")
    goal.status, goal.step = GoalStatus.waiting_user, 2
    return deputy.goals.save(goal)


def test_an_answer_moves_the_goal_and_queues_its_step_together_or_not_at_all(redis: Redis) -> None:
    deputy = _deputy(redis)
    goal = _asking_the_user(deputy)
    dispatch = RQDispatch(redis)

    def redis_gone_while_queueing(goal_id, step, delay=0, pipeline=None, owner=None):
        dispatch.step(goal_id, step, delay=delay, pipeline=pipeline, owner=owner)
        raise RedisConnectionError("Redis restarted")

    with pytest.raises(RedisConnectionError):
        add_answer(deputy.goals, goal.id, "for four people", 0, redis_gone_while_queueing)
    # Nothing of the answer landed: the goal still asks, so the user's next try is taken as its answer.
    assert deputy.goal(goal.id).status is GoalStatus.waiting_user
    assert Inflight(redis).get(goal_unit(goal.id)) is None
    assert make_queues(redis)[AGENT_QUEUE].count == 0

    assert add_answer(deputy.goals, goal.id, "for four people", 0, dispatch.step) is not None
    stored = deputy.goal(goal.id)
    assert stored.status is GoalStatus.running and "for four people" in str(stored.messages[-1])
    registration = Inflight(redis).get(goal_unit(goal.id))
    assert registration is not None and registration.payload["step"] == stored.step
    assert make_queues(redis)[AGENT_QUEUE].job_ids == [registration.job_id]
