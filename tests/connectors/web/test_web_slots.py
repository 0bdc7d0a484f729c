"""The cap on browsers open at once, across executors: a step that finds none free waits its turn, fairly
between users, its user told once in the chat; a crashed executor's browsers free their slots when the
lease ends."""

from __future__ import annotations

import asyncio
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable

import pytest
from conftest import POLICY, Site, fake_dns, fresh_user_id, make_action

from deputy.connectors.web.browser import BrowserSessions
from deputy.connectors.web.runners import WebRunners
from deputy.connectors.web.session import BrowserConfig, UserSession
from deputy.connectors.web.slots import BrowserSlots, fair_order, waiting_text
from deputy.core.records.actions import Action
from deputy.core.records.outbox import OUTBOX_STREAM, Outbox, OutboxMessage
from deputy.sentinel.egress.policy import EgressContext, reviewer
from deputy.testing.stack import RedisServer


def slots_in(server: RedisServer, capacity: int, lease: float = 30.0) -> BrowserSlots:
    """Slots of their own (a fresh prefix), so tests sharing the Redis never see each other's browsers."""
    return BrowserSlots(server.client(), capacity, lease, prefix=f"test:browsers:{secrets.token_hex(4)}")


def wait_until(check: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def test_users_take_turns_in_the_queue_and_each_users_own_steps_keep_their_order() -> None:
    # Ann queued three steps before Bob and Cy queued one each: Bob and Cy do not wait behind all of Ann's.
    queued = ["1:1:a", "1:2:b", "1:3:c", "2:4:d", "3:5:e", "2:6:f"]
    assert fair_order(queued) == ["1:1:a", "2:4:d", "3:5:e", "1:2:b", "2:6:f", "1:3:c"]
    assert waiting_text(0) == "Waiting for a browser: yours is next."
    assert waiting_text(2) == "Waiting for a browser: 2 ahead of yours."


def test_a_full_cap_queues_steps_fairly_and_a_released_slot_goes_to_the_next(redis_server: RedisServer) -> None:
    slots = slots_in(redis_server, capacity=1)
    holder = slots.ticket(1)
    assert slots.try_take(holder) is None
    ann_first, ann_second, bob = slots.ticket(2), slots.ticket(2), slots.ticket(3)
    assert [slots.try_take(t) for t in (ann_first, ann_second, bob)] == [0, 1, 1]
    # Bob's step came last but goes before Ann's second: one browser per user per round.
    assert [slots.try_take(t) for t in (ann_first, ann_second, bob)] == [0, 2, 1]
    slots.release(holder)
    assert slots.try_take(ann_second) == 2 and slots.try_take(bob) == 1
    assert slots.try_take(ann_first) is None
    assert slots.holders() == [ann_first] and slots.waiting() == 2 and slots.shortfall() == 2


_HOLDER = """
import sys, time
from redis import Redis
from deputy.connectors.web.slots import BrowserSlots
port, prefix = int(sys.argv[1]), sys.argv[2]
slots = BrowserSlots(Redis(port=port), 1, lease_seconds=1.0, prefix=prefix)
ticket = slots.ticket(1)
assert slots.try_take(ticket) is None
print(ticket, flush=True)
while True:  # renews its lease, as an executor with an open browser does
    slots.renew([ticket])
    time.sleep(0.2)
"""


def test_a_killed_executors_slot_frees_when_its_lease_ends(redis_server: RedisServer) -> None:
    slots = slots_in(redis_server, capacity=1, lease=1.0)
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(redis_server.port), slots.prefix],
                              stdout=subprocess.PIPE, text=True)
    try:
        held = holder.stdout.readline().strip()  # type: ignore[union-attr]
        assert slots.holders() == [held]
        mine = slots.ticket(2)
        # Alive, it keeps the slot past several leases...
        for _ in range(3):
            assert slots.try_take(mine) == 0
            time.sleep(1.0)
        assert slots.holders() == [held]
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        # ...killed, it renews nothing and the slot is free once the lease runs out.
        wait_until(lambda: slots.try_take(mine) is None, "the dead executor's slot to free", timeout=15)
        assert slots.holders() == [mine]
    finally:
        holder.kill()
        holder.wait(10)


def _tell_through_outbox(redis_server: RedisServer) -> Callable[[Action, str, str], None]:
    outbox = Outbox(redis_server.client())
    return lambda action, text, key: outbox.send(action.chat_id, text, dedupe_key=key)


def _sent_to(redis_server: RedisServer, chat_id: int) -> list[str]:
    entries = redis_server.client().xrange(OUTBOX_STREAM)
    messages = [OutboxMessage.model_validate_json(fields[b"json"]) for _, fields in entries]
    return [m.text for m in messages if m.chat_id == chat_id]


@pytest.mark.browser
def test_with_one_browser_allowed_a_second_users_step_waits_is_told_once_and_then_runs(
    redis_server: RedisServer, site: Site
) -> None:
    """Two executors (each its own browser manager), one browser allowed between them."""
    slots = slots_in(redis_server, capacity=1)
    config = BrowserConfig(max_open=1, navigation_timeout=10, content_wait=4, operation_timeout=30)
    first = BrowserSessions(config, slots=slots, resolver=fake_dns)
    second = BrowserSessions(config, slots=BrowserSlots(redis_server.client(), 1, prefix=slots.prefix),
                             resolver=fake_dns)
    tell = _tell_through_outbox(redis_server)
    allowed = lambda action: reviewer(POLICY, EgressContext())  # noqa: E731
    ann, bob = fresh_user_id(), fresh_user_id()
    release_ann = threading.Event()

    async def ann_reads_slowly(session: UserSession) -> str:
        page = await session.page()
        await page.goto(site.url("/article"))
        await asyncio.to_thread(release_ann.wait, 60)
        return "ann done"

    results: dict[str, object] = {}
    ann_step = threading.Thread(target=lambda: results.update(
        ann=first.run(ann, allowed(None), ann_reads_slowly)))
    try:
        ann_step.start()
        wait_until(lambda: first.open_users() == [ann], "Ann's browser to open")
        bob_runners = WebRunners(second, allowed, tell_user=tell)
        action = make_action("open_page", {"url": site.url("/article")}, bob)

        def bob_opens() -> None:
            try:
                results["bob"] = bob_runners.runners()["web.open_page"](action, "k")
            except Exception as failed:  # shown by the assertion below
                results["bob"] = failed

        bob_step = threading.Thread(target=bob_opens)
        bob_step.start()
        wait_until(lambda: _sent_to(redis_server, bob) != [], "Bob to be told he waits")
        assert _sent_to(redis_server, bob) == ["Waiting for a browser: yours is next."]
        assert second.open_users() == [] and "bob" not in results, "Bob's browser waits while Ann's is busy"
        release_ann.set()
        bob_step.join(60)
        assert results["ann"] == "ann done"
        assert "Four days in Lisbon" in results["bob"].summary, results["bob"]  # type: ignore[union-attr]
        # Ann's executor closed her idle browser to make room; Bob was told once, not on every look.
        assert first.open_users() == [] and second.open_users() == [bob]
        assert _sent_to(redis_server, bob) == ["Waiting for a browser: yours is next."]
        assert slots.holders() == [second._sessions[bob].slot]
    finally:
        release_ann.set()
        ann_step.join(60)
        first.close()
        second.close()
    assert slots.holders() == [], "closing the browsers gave their slots back"
