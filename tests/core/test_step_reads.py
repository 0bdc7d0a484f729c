"""A goal step's reads of its user's records, fetched at once: each store sees them, and its own writes."""

from __future__ import annotations

import threading
import time

import pytest
from redis import Redis

from deputy.agent.goals import ConcurrentUpdate, Goal, GoalStore, goal_key
from deputy.core.accounts.quota_periods import periods
from deputy.core.accounts.quota_store import QuotaStore, keys

from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from deputy.core.infrastructure import step_reads
from deputy.memory.store import MemoryItem, MemoryStore
from deputy.testing.redis_counts import counting_round_trips


def test_a_step_reads_what_it_fetched_sees_its_own_writes_and_nothing_outlives_it(redis: Redis) -> None:
    settings, memory = UserSettingsStore(redis), MemoryStore(redis)
    settings.save(5, UserSettings(timezone="Europe/Lisbon"))
    with step_reads.one_step():
        step_reads.fetch(redis, [("GET", UserSettingsStore.key(5)), ("HVALS", MemoryStore.key(5))])
        with counting_round_trips() as trips:
            assert settings.get(5).timezone == "Europe/Lisbon"
            assert settings.clock_settings(5).timezone == "Europe/Lisbon"
            assert memory.list(5) == []
        assert trips[0] == 0, "what the step fetched is not read again"
        memory.add(5, MemoryItem(text="likes window seats", created_at=1.0, updated_at=1.0))
        assert [m.text for m in memory.list(5)] == ["likes window seats"], "the step reads its own write"
        settings.save(5, UserSettings(timezone="Asia/Tokyo"))
        assert settings.get(5).timezone == "Asia/Tokyo"
        redis.set(UserSettingsStore.key(6), UserSettings(timezone="America/Lima").model_dump_json())
        assert settings.get(6).timezone == "America/Lima", "what the step did not fetch is read as before"
    redis.set(UserSettingsStore.key(5), UserSettings(timezone="Africa/Accra").model_dump_json())
    assert settings.get(5).timezone == "Africa/Accra", "after the step, reads go to Redis"


def test_each_thread_has_its_own_step(redis: Redis) -> None:
    settings = UserSettingsStore(redis)
    settings.save(7, UserSettings(timezone="Europe/Paris"))
    seen: list[str] = []
    fetched, checked = threading.Event(), threading.Event()

    def other_step() -> None:
        with step_reads.one_step():
            step_reads.fetch(redis, [("GET", UserSettingsStore.key(7))])
            fetched.set()
            checked.wait(10)
            seen.append(settings.get(7).timezone)

    thread = threading.Thread(target=other_step)
    thread.start()
    fetched.wait(10)
    settings.save(7, UserSettings(timezone="Asia/Seoul"))  # outside any step on this thread: written, read anew
    assert settings.get(7).timezone == "Asia/Seoul"
    checked.set()
    thread.join(10)
    assert seen == ["Europe/Paris"], "the other step keeps what it fetched when it started"


def test_a_goal_fetched_when_its_step_starts_is_read_again_once_saved(redis: Redis) -> None:
    goals = GoalStore(redis)
    now = time.time()
    goal = goals.save(Goal(id="g_fetched", user_id=9, chat_id=9, text="hi", created_at=now, updated_at=now))
    with step_reads.one_step():
        step_reads.fetch(redis, [("GET", goal_key(goal.id))])
        loaded = goals.get(goal.id)
        assert loaded is not None and loaded.revision == goal.revision
        loaded.text = "hi again"
        saved = goals.save(loaded)
        again = goals.get(goal.id)
        assert again is not None and again.revision == saved.revision, "after its save the step reads the record anew"
        with pytest.raises(ConcurrentUpdate):
            goals.save(loaded)  # the copy it loaded first is out of date, as without the fetch


def test_plan_counters_fetched_for_a_step_count_what_the_step_adds(redis: Redis) -> None:
    store = QuotaStore(redis)
    span = periods(time.time(), None)
    store.add(11, span, {"tokens": 5})
    day, month = keys(11, span)[:2]
    with step_reads.one_step():
        step_reads.fetch(redis, [("HGETALL", day), ("HGETALL", month)])
        assert store.used(11, span)["day"] == {"tokens": 5}
        store.add(11, span, {"tokens": 7})
        assert store.used(11, span)["day"] == {"tokens": 12}, "the step's own count is seen by its next check"
