"""A goal step's reads of its user's records, fetched at once: each store sees them, and its own writes."""

from __future__ import annotations

import threading

from redis import Redis

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
