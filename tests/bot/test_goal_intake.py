"""A text message becomes a goal: stored, audited and queued together, then acknowledged (real Redis).

The bot's real handler runs on a minimal Telegram update. What a user notices: every
acknowledged message has its goal stored and its first step waiting for a worker, the
audit trail stays intact even when a worker writes to it at the same moment, and a
message meant as a correction (a memory or a goal being edited) is taken as one.
"""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

from redis import Redis
from rq import Queue
from rq.job import Job
from rq.serializers import JSONSerializer

from deputy.agent.goals import Goal, GoalStatus, GoalStore
from deputy.agent.origins import user_message
from deputy.bot import texts
from deputy.bot.goal_controls import press_goal_control
from deputy.bot.handlers import Handlers
from deputy.bot.memory_view import press_memory
from deputy.bot.services import BotServices
from deputy.bot.updates import PerChatOrder
from deputy.memory import MemoryItem, MemoryKind, MemoryStore
from deputy.sentinel.stores.audit import AuditLog
from deputy.queue.job_paths import RUN_GOAL_STEP
from deputy.queue.inflight import Inflight
from deputy.core.records.payloads import AGENT_QUEUE, GoalStepJob

USER = 4242


class _Message:
    message_id = 1

    def __init__(self, text: str) -> None:
        self.text = text
        self.replies: list[str] = []

    async def reply_text(self, text: str, **_: object) -> None:
        self.replies.append(text)


def send(services: BotServices, text: str, user: int = USER) -> list[str]:
    """The user texts the bot; returns the bot's answers."""
    message = _Message(text)
    update = SimpleNamespace(effective_user=SimpleNamespace(id=user), effective_chat=SimpleNamespace(id=user),
                             effective_message=message)
    asyncio.run(Handlers(services).text(update, None))
    return message.replies


def queued_steps(redis: Redis) -> list[Job]:
    queue = Queue(AGENT_QUEUE, connection=redis, serializer=JSONSerializer)
    return [job for job in queue.jobs if job.func_name == RUN_GOAL_STEP.path]


def test_a_new_goal_is_stored_audited_and_queued_before_the_acknowledgement(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", None)
    assert send(services, "find me a cheap flight to Lisbon in May") == [texts.ACK_NEW_GOAL]

    [goal] = GoalStore(redis).recent(USER)
    assert goal.text == "find me a cheap flight to Lisbon in May" and goal.status is GoalStatus.running
    assert goal.revision == 0 and goal.messages == [user_message(goal.text)]
    assert goal.user_words() == [goal.text], "the guard takes the goal as the user's own words"
    [job] = queued_steps(redis)
    assert GoalStepJob.model_validate(job.args[0]) == GoalStepJob(goal_id=goal.id, step=0)
    registration = Inflight(redis).get(f"goal:{goal.id}")
    assert registration is not None and registration.job_id == job.id, "the watchdog knows which job runs it"
    audit = AuditLog(redis)
    [entry] = audit.entries(USER)
    assert entry.kind == "goal_created" and entry.detail == {"goal_id": goal.id, "files": 0}
    assert audit.verify(USER)


def test_the_audit_chain_holds_when_a_worker_appends_at_the_same_moment(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", None)
    audit = AuditLog(redis)
    audit.append(USER, "review", time.time(), verdict="allow")
    original = services.intake.pending

    async def pending_then_a_worker_writes(*args, **kwargs):
        found = await original(*args, **kwargs)
        audit.append(USER, "action_succeeded", time.time(), action_id="a_1")  # after the tip was read
        return found

    services.intake.pending = pending_then_a_worker_writes
    assert send(services, "book dinner for 4 on Friday") == [texts.ACK_NEW_GOAL]
    assert [e.kind for e in audit.entries(USER)] == ["review", "action_succeeded", "goal_created"]
    assert audit.verify(USER), "the goal's entry is chained to the worker's, not to the tip read before"
    assert len(queued_steps(redis)) == 1


def test_a_message_that_takes_the_trail_past_its_window_folds_it(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", None, audit_keep=3)
    for i in range(4):  # the window (3) and its slack (1) are full
        AuditLog(redis, keep=10**9).append(USER, "review", time.time(), i=i)
    assert send(services, "book dinner for 4 on Friday") == [texts.ACK_NEW_GOAL]
    audit = AuditLog(redis)
    checkpoint = audit.checkpoint(USER)
    assert checkpoint is not None and checkpoint.kinds == {"review": 2}, "the two oldest entries were folded"
    assert [e.kind for e in audit.entries(USER)] == ["review", "review", "goal_created"]
    assert audit.verify(USER)


def test_a_correction_is_taken_as_one_and_in_order(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", None)
    now = time.time()
    store = MemoryStore(redis)
    item = MemoryItem(text="I live in Boston", kind=MemoryKind.fact, created_at=now, updated_at=now)
    store.add(USER, item)
    goal = GoalStore(redis).save(Goal(id="g_edited", user_id=USER, chat_id=USER, text="plan a trip to Rome",
                                      messages=[{"role": "user", "content": "plan a trip to Rome"}],
                                      created_at=now, updated_at=now))
    press_goal_control(services, "ge", goal.id, USER)
    press_memory(services, "me", item.id, USER)

    assert send(services, "I live in Berlin") == ["Updated: I now remember “I live in Berlin”."]
    assert send(services, "make it Florence instead") == ["Got it: I've updated “plan a trip to Rome”."]
    edited = GoalStore(redis).get(goal.id)
    assert edited.messages[-1]["content"] == "(The user changed the goal) make it Florence instead"
    assert edited.user_words() == ["plan a trip to Rome", "make it Florence instead"], "the edit is the user's word"
    [memory] = store.list(USER)
    assert memory.user_words() == ["I live in Berlin"], "a memory the user rewrote is their own word"
    assert send(services, "and find me a hotel") == [texts.ACK_NEW_GOAL], "the edits were used up"
    assert [g.text for g in GoalStore(redis).recent(USER)] == ["and find me a hotel", "plan a trip to Rome"]


def test_a_memory_edit_for_a_forgotten_memory_falls_through_to_the_goal_edit(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", None)
    now = time.time()
    store = MemoryStore(redis)
    item = MemoryItem(text="I like trains", kind=MemoryKind.preference, created_at=now, updated_at=now)
    store.add(USER, item)
    goal = GoalStore(redis).save(Goal(id="g_edit2", user_id=USER, chat_id=USER, text="find a train to Paris",
                                      messages=[{"role": "user", "content": "find a train to Paris"}],
                                      created_at=now, updated_at=now))
    press_goal_control(services, "ge", goal.id, USER)
    press_memory(services, "me", item.id, USER)
    store.forget(USER, item.id)

    assert send(services, "on Saturday morning") == ["Got it: I've updated “find a train to Paris”."]
    assert GoalStepJob.model_validate(queued_steps(redis)[-1].args[0]) == GoalStepJob(goal_id=goal.id, step=1)


def test_updates_of_one_chat_run_in_order_and_other_chats_do_not_wait() -> None:
    async def scenario() -> list[str]:
        processor = PerChatOrder(8)
        events: list[str] = []
        release = asyncio.Event()

        async def handle(name: str, wait: bool) -> None:
            events.append(f"start {name}")
            if wait:
                await release.wait()
            events.append(f"end {name}")

        def update(chat: int) -> object:
            from telegram import Update

            return Update.de_json({"update_id": chat, "message": {
                "message_id": 1, "date": 0, "chat": {"id": chat, "type": "private"}, "text": "hi"}}, None)

        first = asyncio.create_task(processor.process_update(update(1), handle("1a", wait=True)))
        second = asyncio.create_task(processor.process_update(update(1), handle("1b", wait=False)))
        other = asyncio.create_task(processor.process_update(update(2), handle("2", wait=False)))
        await other
        release.set()
        await asyncio.gather(first, second)
        return events

    assert asyncio.run(scenario()) == ["start 1a", "start 2", "end 2", "end 1a", "start 1b", "end 1b"]
