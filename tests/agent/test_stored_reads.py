"""A step reads the goal's record, not everything the goal ever read, and the guard still sees all of it.

A long goal's step loads a bounded amount from Redis whatever the goal read before: what it read
is fetched only when something looks at it (the guard's view, an action's provenance, the answer's
check, a memory's source), and then all of it is there, so an address or a passage read at the
goal's first step still makes the guard ask at its last.
"""

from __future__ import annotations

from typing import Any

import pytest
from redis import Redis

from deputy.agent.goal_reads import ReadsNotLoaded, reads_key
from deputy.agent.goals import Goal, GoalStore, goal_key
from deputy.agent.guard_view import guard_view
from deputy.agent.model.testing import tool_call
from deputy.agent.stored_reads import StoredReads
from deputy.core.confidential import ConfidentialKeys, Locked
from deputy.memory import MemoryStore
from deputy.sentinel.provenance import UntrustedItem
from deputy.sentinel.stores.audit import AuditLog
from deputy.testing.redis_bytes import counting_client
from deputy.testing.stack import RedisServer
from tests.agent.test_goal_reads import LivePages
from tests.agent.test_model_text_provenance import ATTACKER_URL, FRIEND, PASSAGE, Rig
from tests.e2e.test_confidential_flow import leaks

USER = 5_400_001
STEP_BOUND = 128 * 1024
"""What one step of the long goals below may read from Redis: its record (whose transcript keeps a window of
pages, folded every dozen steps or so) and the few small records around it, never every page read before
(over 1 MB by the end)."""


class CountedRig(Rig):
    """A `Rig` on a Redis client that counts what it reads, and the bytes each step of the runner read."""

    def __init__(self, server: RedisServer, decide, **options: Any) -> None:
        client, self.tally = counting_client(server.url)
        super().__init__(client, decide, **options)
        self.step_bytes: list[int] = []
        run_step = self.runner.run_step

        def counted(goal_id: str, step: int):
            before = self.tally.total
            try:
                return run_step(goal_id, step)
            finally:
                self.step_bytes.append(self.tally.total - before)

        self.dispatch.runner.run_step = counted  # type: ignore[union-attr,method-assign]


def long_goal(steps: int, last: tuple[str, dict[str, Any]], urls: list[str]):
    """The model: read the attacker's email at step 1, then a new 12,000-character page every step, then
    the `last` call, then answer."""

    def decide(messages, tools):
        step = len(rig_of[0].model.calls)
        if step == 1:
            return tool_call("read_email", message_id="evil")
        if step < steps:
            return tool_call("open_page", url=f"{urls[step % len(urls)]}?page={step}")
        if step == steps:
            return tool_call(last[0], **last[1])
        return tool_call("reply", text="Here is the news.")

    rig_of: list[Rig] = []
    return decide, rig_of


URLS = [f"https://news.example/story-{i}" for i in range(6)]


def run_long_goal(server: RedisServer, steps: int, last: tuple[str, dict[str, Any]], **options: Any) -> tuple[CountedRig, str]:
    decide, rig_of = long_goal(steps, last, URLS)
    rig = CountedRig(server, decide, **options)
    rig_of.append(rig)
    rig.world.pages = LivePages()
    rig.start(f"check my email, then keep reading these for news and tell {FRIEND}: " + " ".join(URLS))
    return rig, f"g_{rig.user}_0"


def test_a_step_of_a_long_goal_reads_its_record_not_every_page_and_the_guard_still_asks(
        redis: Redis, redis_server: RedisServer) -> None:
    """120 steps of 12,000-character pages: no step loads more than a bounded amount, yet the address the
    email gave at step 1 still makes the guard ask at step 120, naming that email."""
    steps = 120
    rig, goal_id = run_long_goal(redis_server, steps, ("open_page", {"url": ATTACKER_URL}))

    read = sum(len(e) for e in redis.lrange(reads_key(goal_id), 0, -1))
    assert read > 1024 * 1024, "the goal read over a megabyte of pages"
    assert len(rig.step_bytes) >= steps
    assert max(rig.step_bytes) < STEP_BOUND, f"a step read {max(rig.step_bytes):,} bytes"
    assert rig.verdict("open_page", ATTACKER_URL) == "asked"
    [review] = [e for e in AuditLog(redis).entries(rig.user)
                if e.kind == "review" and ATTACKER_URL in e.detail["targets"]]
    assert any("the email from billing@attacker.example" in value for value in review.detail["untrusted"])


def test_a_passage_copied_from_the_first_read_is_still_flagged_a_hundred_steps_later(
        redis: Redis, redis_server: RedisServer) -> None:
    """The email read at step 1 said something; at step 100 the model mails it, word for word, to a friend the
    user named: the guard asks, and says where the words came from."""
    rig, goal_id = run_long_goal(redis_server, 100, ("send_email", {"to": [FRIEND], "subject": "News",
                                                     "body": f"The email says: {PASSAGE}"}), permissive=True)
    assert rig.verdict("send_email", FRIEND) == "asked"
    [review] = [e for e in AuditLog(redis).entries(rig.user)
                if e.kind == "review" and FRIEND in e.detail["targets"]]
    [body] = [s for s in review.detail["sources"] if s["field"] == "body"]
    assert body["source"] == "outside" and body["origin"].startswith("the email from billing@attacker.example")
    assert body["passage"] == PASSAGE


def test_a_memory_worded_from_the_first_read_is_held_a_hundred_steps_later(
        redis: Redis, redis_server: RedisServer) -> None:
    rig, goal_id = run_long_goal(redis_server, 100, ("remember", {"text": PASSAGE}))
    [held] = MemoryStore(redis).list(rig.user)
    assert held.trust.value == "pending"
    assert "an email from billing@attacker.example" in held.source, "its source is every read, the first one too"


def item(text: str) -> UntrustedItem:
    return UntrustedItem(origin="the web page https://news.example/", text=text, at=1.0)


def stored_goal(redis: Redis, reads: list[str]) -> GoalStore:
    goals = GoalStore(redis)
    goals.save(Goal(id="g_lazy", user_id=USER, chat_id=USER, text="read", created_at=1.0, updated_at=1.0,
                    messages=[{"role": "user", "content": "read"}], untrusted=[item(t) for t in reads]))
    return goals


def test_a_loaded_goal_fetches_what_it_read_only_when_something_looks_and_then_sees_all_of_it(
        redis_server: RedisServer) -> None:
    client, tally = counting_client(redis_server.url)
    client.flushall()
    goals = stored_goal(client, ["an email naming billing@evil.example", "a page about trams"])

    before = tally.total
    goal = goals.get("g_lazy")
    assert tally.total - before == len(client.get(goal_key("g_lazy")))  # the record only
    assert len(goal.untrusted) == 2 and goal.untrusted  # counted without fetching
    goal.untrusted.append(item("a page about ferries"))
    goal.step += 1
    saved = goals.save(goal)
    assert isinstance(goal.untrusted, StoredReads) and not goal.untrusted.fetched, "saving fetched nothing"
    saved.untrusted.append(item("a page about the library"))
    goals.save(saved)  # a second save in the same step appends only the newest
    assert client.llen(reads_key("g_lazy")) == 4

    again = goals.get("g_lazy")
    assert [i.text for i in guard_view(goals, again).untrusted] == [
        "an email naming billing@evil.example", "a page about trams", "a page about ferries",
        "a page about the library"]
    assert "billing@evil.example" in again.model_dump_json(), "dumped, a goal has every read"


def test_a_goal_whose_reads_were_erased_after_its_load_never_passes_for_one_that_read_nothing(
        redis: Redis) -> None:
    goals = stored_goal(redis, ["an email naming billing@evil.example"])
    goal = goals.get("g_lazy")
    redis.delete(reads_key("g_lazy"))
    with pytest.raises(ReadsNotLoaded):
        list(goal.untrusted)


def test_a_confidential_users_reads_are_opened_when_fetched_and_never_pass_for_none_once_locked(
        redis: Redis) -> None:
    keys = ConfidentialKeys(redis, b"u" * 32)
    keys.turn_on(USER, "the passphrase only I know")
    keys.unlock(USER, "the passphrase only I know", 3600)
    goals = GoalStore(redis, keys)
    goals.save(Goal(id="g_lazy", user_id=USER, chat_id=USER, text="read", created_at=1.0, updated_at=1.0,
                    messages=[{"role": "user", "content": "read"}], untrusted=[item("the code is okapi-5521")]))
    assert not leaks(redis, ["okapi-5521"])

    assert [i.text for i in goals.get("g_lazy").untrusted] == ["the code is okapi-5521"]
    loaded = goals.get("g_lazy")
    keys.lock(USER)
    with pytest.raises(Locked):
        list(loaded.untrusted)
    assert len(loaded.untrusted) == 1 and loaded.untrusted, "still counted: a guard never takes it for nothing read"
