"""Pausing and resuming a monitored goal from its card keeps the watch going."""

from __future__ import annotations

import time

from redis import Redis
from rq import Queue
from rq.job import Job
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from deputy.agent.goals import Goal, GoalStatus, Monitor
from deputy.bot.goal_controls import press_goal_control
from deputy.bot.services import BotServices
from deputy.core.records.ids import new_id
from deputy.core.records.payloads import AGENT_QUEUE

OWNER = 111
NOW = float(int(time.time()))


def test_resuming_a_paused_monitor_queues_its_next_check(redis: Redis) -> None:
    services = BotServices.create(redis, "resume-test-secret", None)
    services.clock = lambda: NOW
    goal = services.goals.save(Goal(
        id=new_id("g"), user_id=OWNER, chat_id=OWNER, text="tell me when Sam replies", status=GoalStatus.scheduled,
        step=1, monitor=Monitor(what="new email from Sam", every_seconds=300, next_at=NOW + 120),
        created_at=NOW, updated_at=NOW,
    ))
    assert press_goal_control(services, "gp", goal.id, OWNER).toast == "Paused."
    # The queued check runs during the pause, finds the goal paused and ends; so resuming must queue one.
    assert press_goal_control(services, "gr", goal.id, OWNER).toast == "Back to work."
    queue = Queue(AGENT_QUEUE, connection=redis, serializer=JSONSerializer)
    [job_id] = ScheduledJobRegistry(queue=queue).get_job_ids()
    job = Job.fetch(job_id, connection=redis, serializer=JSONSerializer)
    assert job.args[0] == {"schema_version": 1, "goal_id": goal.id, "step": 1}
    assert services.goals.get(goal.id).status is GoalStatus.scheduled
