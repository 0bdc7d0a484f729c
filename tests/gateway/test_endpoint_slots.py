"""An endpoint's slots: never more calls than it has, turns shared between users, nothing stuck on cancel."""

from __future__ import annotations

import asyncio

from deputy.gateway.endpoint_slots import EndpointSlots
from deputy.gateway.wait_notices import waiting_text, worth_telling


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_one_slot_serves_users_in_turn_and_counts_who_is_ahead() -> None:
    slots = EndpointSlots(capacity=1)
    served: list[str] = []
    release = asyncio.Event()

    async def call(user: str, key: str) -> None:
        async with slots.turn(user, key):
            served.append(key)
            if key == "a0":
                await release.wait()

    tasks = [asyncio.create_task(call(u, k)) for u, k in
             [("a", "a0"), ("a", "a1"), ("a", "a2"), ("b", "b0"), ("c", "c0")]]
    await settle()
    assert served == ["a0"] and slots.busy == 1 and slots.waiting == 4
    assert slots.ahead("b0") == 1 and slots.ahead("c0") == 2 and slots.ahead("a2") == 3
    assert slots.ahead("a0") is None  # it has its slot
    release.set()
    await asyncio.gather(*tasks)
    assert served == ["a0", "a1", "b0", "c0", "a2"]
    assert slots.busy == 0


async def test_a_cancelled_waiter_leaves_the_queue_and_a_cancelled_call_frees_its_slot() -> None:
    slots = EndpointSlots(capacity=1)
    served: list[str] = []
    hold = asyncio.Event()

    async def call(user: str, key: str) -> None:
        async with slots.turn(user, key):
            served.append(key)
            await hold.wait()

    first = asyncio.create_task(call("a", "first"))
    second = asyncio.create_task(call("b", "second"))
    third = asyncio.create_task(call("c", "third"))
    await settle()
    second.cancel()  # nobody waits for it any more: out of the queue
    await settle()
    assert slots.waiting == 1 and slots.ahead("third") == 0
    first.cancel()  # cancelled in flight: its slot goes to the next
    await settle()
    assert served == ["first", "third"] and slots.busy == 1
    hold.set()
    await asyncio.gather(first, second, third, return_exceptions=True)
    assert slots.busy == 0 and slots.waiting == 0


async def test_a_slot_granted_to_a_waiter_cancelled_at_that_moment_is_passed_on() -> None:
    slots = EndpointSlots(capacity=1)
    served: list[str] = []

    async def call(user: str, key: str, gate: asyncio.Event | None = None) -> None:
        async with slots.turn(user, key):
            served.append(key)
            if gate is not None:
                await gate.wait()

    gate = asyncio.Event()
    first = asyncio.create_task(call("a", "first", gate))
    second = asyncio.create_task(call("b", "second"))
    third = asyncio.create_task(call("c", "third"))
    await settle()
    gate.set()
    await asyncio.sleep(0)  # "first" releases: the slot is granted to "second"...
    second.cancel()  # ...which is cancelled before it runs
    # A slot lost here would leave "third" waiting for ever.
    await asyncio.wait_for(asyncio.gather(first, second, third, return_exceptions=True), 10)
    assert "third" in served and slots.busy == 0


def test_waiting_notices_are_few_and_plain() -> None:
    assert waiting_text(3) == "Waiting for the model: 3 goals ahead of yours."
    assert waiting_text(1) == "Waiting for the model: 1 goal ahead of yours."
    assert waiting_text(0) == "Waiting for the model: yours is next."
    assert not worth_telling(1.0, None, 12, notice_after=3.0)  # a short wait is not worth a message
    assert worth_telling(3.0, None, 12, notice_after=3.0)
    told, updates = 12, []
    for ahead in range(12, -1, -1):
        if worth_telling(10.0, told, ahead):
            told = ahead
            updates.append(ahead)
    assert updates == [6, 3, 1, 0]
    assert not worth_telling(10.0, 3, 5), "a count that grows is not news"
