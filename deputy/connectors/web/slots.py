"""The cap on browsers running at once, across every executor: leased slots in Redis, and a fair queue.

A browser (Chromium, its worker and its proxy) costs a few hundred megabytes and a share of the
CPU, so at most `capacity` run at once on the whole deployment, however many executor processes
there are. Each open browser holds a slot: a member of one sorted set in Redis whose score is the
end of its lease. The process holding it renews the lease while the browser is open
(`deputy.connectors.web.browser` does so every second); a process that crashes stops renewing,
and its slots are free again once their lease ends. Nothing else has to notice the crash.

A step that finds every slot taken waits its turn in a second sorted set (its ticket, scored by
arrival), renewing its own place while it waits, so a waiter that died leaves the queue too. The
order is fair across users (`fair_order`): users take turns, one browser each per round, in the
order they started waiting; a user with five steps waiting cannot keep a user with one out for
more than one round. When `n` slots are free, the first `n` tickets in that order may take them.

Every change happens in one Redis transaction (WATCH/MULTI), so two executors can never both
take the last slot. Times are Redis's own clock, so executors on several machines agree on when a
lease ends.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from redis import Redis
from redis.exceptions import WatchError

PREFIX = "deputy:browsers"


def waiting_text(ahead: int) -> str:
    """What the user whose step waits for a browser is told, once."""
    if ahead <= 0:
        return "Waiting for a browser: yours is next."
    return f"Waiting for a browser: {ahead} ahead of yours."


def user_of(ticket: str) -> str:
    return ticket.split(":", 1)[0]


def arrival_of(ticket: str) -> int:
    return int(ticket.split(":", 2)[1])


def fair_order(tickets: Iterable[str]) -> list[str]:
    """Waiting tickets in the order they get browsers (a pure core).

    Round `r` serves each waiting user's `r`-th ticket; within a round, users go in the order of
    their oldest waiting ticket. This is round robin between users without any state of its own:
    a user who was just served has a younger oldest ticket, so goes after those who waited longer.
    """
    by_user: dict[str, list[str]] = {}
    for ticket in sorted(tickets, key=arrival_of):
        by_user.setdefault(user_of(ticket), []).append(ticket)
    ranked = [
        (rank, arrival_of(mine[0]), arrival_of(ticket), ticket)
        for mine in by_user.values()
        for rank, ticket in enumerate(mine)
    ]
    return [ticket for *_, ticket in sorted(ranked)]


class BrowserSlots:
    """At most `capacity` browsers open at once across all processes sharing `redis`; see the module docstring."""

    def __init__(self, redis: Redis, capacity: int, lease_seconds: float = 30.0, prefix: str = PREFIX) -> None:
        if capacity < 1:
            raise ValueError("at least one browser must be allowed")
        self.capacity = capacity
        self.prefix = prefix
        self.lease_seconds = lease_seconds
        self._redis = redis
        self._held = f"{prefix}:held"
        """Holders (tickets) scored by the end of their lease, in Redis milliseconds."""
        self._waiting = f"{prefix}:waiting"
        """Waiting tickets scored by the end of their place's lease."""
        self._arrivals = f"{prefix}:arrivals"

    def ticket(self, user_id: int) -> str:
        """A new ticket for one of `user_id`'s steps: the user, the arrival number and a random tail."""
        return f"{int(user_id)}:{int(self._redis.incr(self._arrivals))}:{secrets.token_hex(6)}"

    def try_take(self, ticket: str) -> int | None:
        """Take a slot for `ticket` if its turn has come (None); else how many tickets are ahead of it.

        A ticket that must wait keeps its place in the queue until it takes a slot or `leave`s; each
        call renews the place, so a waiter must call again within the lease.
        """
        with self._redis.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(self._held, self._waiting)
                    now = self._now_ms(pipe)
                    holders = int(pipe.zcount(self._held, f"({now}", "+inf"))
                    queued = [_text(t) for t in pipe.zrangebyscore(self._waiting, f"({now}", "+inf")]
                    order = fair_order({*queued, ticket})
                    position = order.index(ticket)
                    granted = position < self.capacity - holders
                    pipe.multi()
                    pipe.zremrangebyscore(self._held, "-inf", now)
                    pipe.zremrangebyscore(self._waiting, "-inf", now)
                    lease_end = now + int(self.lease_seconds * 1000)
                    if granted:
                        pipe.zadd(self._held, {ticket: lease_end})
                        pipe.zrem(self._waiting, ticket)
                    else:
                        pipe.zadd(self._waiting, {ticket: lease_end})
                    pipe.execute()
                    return None if granted else position
                except WatchError:
                    continue  # another executor changed the slots meanwhile: look again

    def leave(self, ticket: str) -> None:
        """Stop waiting (the step gave up or failed)."""
        self._redis.zrem(self._waiting, ticket)

    def release(self, ticket: str) -> None:
        """Give the slot back (its browser closed)."""
        self._redis.zrem(self._held, ticket)

    def renew(self, tickets: Iterable[str]) -> None:
        """Extend the leases of slots this process still holds (a slot already expired stays free)."""
        tickets = list(tickets)
        if not tickets:
            return
        lease_end = self._now_ms(self._redis) + int(self.lease_seconds * 1000)
        self._redis.zadd(self._held, dict.fromkeys(tickets, lease_end), xx=True)

    def waiting(self) -> int:
        """How many steps wait for a browser right now."""
        return int(self._redis.zcount(self._waiting, f"({self._now_ms(self._redis)}", "+inf"))

    def shortfall(self) -> int:
        """How many waiting steps the free slots cannot serve: browsers some idle ones should make room for."""
        now = self._now_ms(self._redis)
        with self._redis.pipeline(transaction=False) as pipe:
            pipe.zcount(self._waiting, f"({now}", "+inf")
            pipe.zcount(self._held, f"({now}", "+inf")
            waiting, holders = pipe.execute()
        return max(0, int(waiting) - (self.capacity - int(holders)))

    def holders(self) -> list[str]:
        """The tickets holding a slot right now."""
        now = self._now_ms(self._redis)
        return [_text(t) for t in self._redis.zrangebyscore(self._held, f"({now}", "+inf")]

    @staticmethod
    def _now_ms(redis: Redis) -> int:
        seconds, micros = redis.time()
        return int(seconds) * 1000 + int(micros) // 1000


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
