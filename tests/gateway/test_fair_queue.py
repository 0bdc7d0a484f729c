"""The model queue's order: users take turns, nobody's goals are lost, the "ahead" count is right."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from deputy.gateway.fair_queue import FairQueue

# An operation: push an item for user u, pop the next item, or remove the i-th item pushed so far.
operations = st.lists(
    st.one_of(
        st.tuples(st.just("push"), st.integers(0, 5)),
        st.tuples(st.just("pop"), st.just(0)),
        st.tuples(st.just("remove"), st.integers(0, 60)),
    ),
    max_size=60,
)


def run(ops: list[tuple[str, int]]) -> tuple[FairQueue[int, int], list[int], list[int], list[int]]:
    """Apply `ops`; returns the queue, every item pushed, popped and removed."""
    queue: FairQueue[int, int] = FairQueue()
    pushed: list[int] = []
    popped: list[int] = []
    removed: list[int] = []
    for op, arg in ops:
        if op == "push":
            item = len(pushed)
            queue.push(arg, item)
            pushed.append(item)
        elif op == "pop":
            got = queue.pop()
            if got is not None:
                popped.append(got[1])
        elif arg < len(pushed) and queue.remove(arg):
            removed.append(arg)
    return queue, pushed, popped, removed


def drain(queue: FairQueue[int, int]) -> list[tuple[int, int]]:
    out = []
    while (got := queue.pop()) is not None:
        out.append(got)
    return out


def test_one_user_with_ten_goals_does_not_starve_another_with_one() -> None:
    queue: FairQueue[str, str] = FairQueue()
    for n in range(10):
        queue.push("busy", f"busy-{n}")
    queue.push("quiet", "quiet-0")
    assert queue.ahead("quiet-0") == 1
    assert [item for _, item in drain(queue)][:3] == ["busy-0", "quiet-0", "busy-1"]


def test_three_users_take_turns_and_each_keeps_their_own_order() -> None:
    queue: FairQueue[str, str] = FairQueue()
    for user, count in (("a", 3), ("b", 1), ("c", 2)):
        for n in range(count):
            queue.push(user, f"{user}{n}")
    assert queue.ahead("a2") == 5 and queue.ahead("c1") == 4 and queue.ahead("b0") == 1
    assert [item for _, item in drain(queue)] == ["a0", "b0", "c0", "a1", "c1", "a2"]


@given(operations)
def test_nothing_waiting_is_lost_or_served_twice(ops: list[tuple[str, int]]) -> None:
    queue, pushed, popped, removed = run(ops)
    rest = [item for _, item in drain(queue)]
    assert sorted(popped + removed + rest) == pushed
    assert len(queue) == 0


@given(operations)
def test_ahead_counts_exactly_the_items_served_first(ops: list[tuple[str, int]]) -> None:
    queue, *_ = run(ops)
    waiting = [item for item in range(100) if item in queue]
    predicted = {item: queue.ahead(item) for item in waiting}
    order = [item for _, item in drain(queue)]
    assert {item: order.index(item) for item in waiting} == predicted


@given(operations)
def test_users_take_turns_and_each_users_goals_keep_their_order(ops: list[tuple[str, int]]) -> None:
    queue, *_ = run(ops)
    left = {user: queue.waiting(user) for user in range(6)}
    served = {user: 0 for user in range(6)}
    last_item = {user: -1 for user in range(6)}
    for user, item in drain(queue):
        # Round robin: nobody still waiting has been served two fewer than this user.
        assert all(served[user] <= served[other] for other in left if left[other] > 0 and other != user)
        served[user] += 1
        left[user] -= 1
        assert item > last_item[user], "first come, first served within one user's goals"
        last_item[user] = item
