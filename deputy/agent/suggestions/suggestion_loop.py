"""The suggestion round on a timer, beside an agent worker: one worker of the cluster at a time
(a Redis lease) reads the services' listings and runs the round; the others skip that turn.

Listings are read through the egress guard like every other outside read (`listing_client`): each
request and redirect hop is reviewed and pinned, and a private address is reached only where the
operator opened it (DEPUTY_EGRESS_ALLOW), so a listing URL cannot be turned against the internal
network."""

from __future__ import annotations

import logging
import threading

import httpx
from redis import Redis

from deputy.sentinel.egress.context import EgressContext, EgressPolicy
from deputy.sentinel.egress.policy import reviewer
from deputy.sentinel.egress.transports.http_client import Resolver, system_resolver

from deputy.agent.suggestions.listings import read_listings
from deputy.agent.suggestions.suggestion_round import SuggestionRound
from deputy.agent.watch.check_budget import CheckBudget
from deputy.core.records.outbox import Outbox
from deputy.memory.meaning import LazyEmbedder

log = logging.getLogger(__name__)
LEASE = "deputy:suggestions:lease"


def listing_client(allow: list[str], resolver: Resolver = system_resolver) -> httpx.Client:
    """A client for the listing services that passes the egress guard (`allow`: DEPUTY_EGRESS_ALLOW)."""
    # Imported here: only the suggestions process (spawned beside a worker) reads listings, and the agent
    # worker itself loads no connector module that talks to services.
    from deputy.connectors.http.client import guarded_client

    policy = EgressPolicy(allow_private_networks=list(allow))
    return guarded_client(reviewer(policy, EgressContext()), connector="suggestions", resolver=resolver, timeout=10)


def run_once(redis: Redis, client: httpx.Client, sources: dict[str, str], every_seconds: float,
             suggestions: SuggestionRound) -> bool:
    """One turn: run the round if this worker holds the lease for it; True when it ran."""
    if not redis.set(LEASE, 1, nx=True, ex=max(int(every_seconds) - 1, 1)):
        return False
    report = suggestions.run(read_listings(client, sources))
    if report.new:
        log.info("suggestion round: %d new listings, %d cards, %.2f s", report.new, report.cards, report.seconds)
    return True


def start(redis: Redis, sources: dict[str, str], every_minutes: float, stop: threading.Event,
          budget: CheckBudget | None = None, allow: list[str] | None = None) -> threading.Thread | None:
    """Run rounds every `every_minutes` until `stop` is set (none when no source is configured);
    `allow`: the private addresses the operator opened to the egress guard."""
    if not sources or every_minutes <= 0:
        return None
    every = every_minutes * 60

    def loop() -> None:
        suggestions = SuggestionRound(redis, LazyEmbedder(), Outbox(redis), budget=budget)
        with listing_client(allow or []) as client:
            while not stop.is_set():
                try:
                    run_once(redis, client, sources, every, suggestions)
                except Exception:  # a round that fails is tried again next time; the worker goes on
                    log.exception("suggestion round failed")
                stop.wait(every)

    thread = threading.Thread(target=loop, name="suggestions", daemon=True)
    thread.start()
    return thread


__all__ = ["listing_client", "run_once", "start"]
