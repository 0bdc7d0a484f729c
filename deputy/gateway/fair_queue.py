"""Round robin between users: who gets the model's next free slot (a pure core, no IO).

Each user has a first-come queue of their own waiting items; the users take turns, one
item each, in the order they started waiting. A user with ten goals therefore cannot
starve a user with one: the one goal is served within one round of the others, that is
after at most one item of every other user who was waiting before it.

`ahead(item)` says how many items will be served before `item` if nothing else arrives
or leaves, which is what the user is told while a goal waits ("3 goals ahead of yours").
Items arriving later can still be served earlier (a new user joins the round), so the
count is exact for the moment it is asked, not a promise.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

T = TypeVar("T", bound=Hashable)
U = TypeVar("U", bound=Hashable)


class FairQueue(Generic[U, T]):
    def __init__(self) -> None:
        self._queues: dict[U, deque[T]] = {}
        self._turns: deque[U] = deque()  # users with waiting items, the next to be served first
        self._owner: dict[T, U] = {}

    def __len__(self) -> int:
        return len(self._owner)

    def __contains__(self, item: object) -> bool:
        return item in self._owner

    def push(self, user: U, item: T) -> None:
        if item in self._owner:
            raise ValueError("item is already waiting")
        self._owner[item] = user
        queue = self._queues.get(user)
        if queue is None:
            queue = self._queues[user] = deque()
            self._turns.append(user)  # a user who starts waiting joins the end of the round
        queue.append(item)

    def pop(self) -> tuple[U, T] | None:
        """The next item to serve (and its user), or None when nobody waits."""
        if not self._turns:
            return None
        user = self._turns.popleft()
        queue = self._queues[user]
        item = queue.popleft()
        del self._owner[item]
        if queue:
            self._turns.append(user)  # served: to the end of the round
        else:
            del self._queues[user]
        return user, item

    def remove(self, item: T) -> bool:
        """Take a waiting item out (nobody waits for its answer any more); False if it was not waiting."""
        user = self._owner.pop(item, None)
        if user is None:
            return False
        queue = self._queues[user]
        queue.remove(item)
        if not queue:
            del self._queues[user]
            self._turns.remove(user)
        return True

    def ahead(self, item: T) -> int:
        """How many items would be served before `item` (0: it is next)."""
        user = self._owner[item]
        rank = self._queues[user].index(item)  # served in round `rank` of the round robin
        count = rank  # the user's own earlier items
        before = True  # users ahead of `user` in this round are served in rounds 0..rank
        for other in self._turns:
            if other == user:
                before = False
                continue
            count += min(len(self._queues[other]), rank + 1 if before else rank)
        return count

    def waiting(self, user: U) -> int:
        queue = self._queues.get(user)
        return len(queue) if queue else 0
