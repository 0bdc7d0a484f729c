"""Deputy's Prometheus metrics: every definition in this one module, moved by one-line hooks.

What each metric means is in docs/operating/health.md. Hooks are plain function calls at the
place where the thing happens (a card asked in the executor, a press in the bot, a model
call in the gateway); they never fail the work they count.

Processes that fork (RQ workers run each job in a child process) keep their counts in
prometheus_client's multiprocess mode: `deputy.core.infrastructure.metrics_dir` points it at a directory of
the worker's own before this module is imported, each child writes its own file there,
and `/metrics` adds them up. A child's file is folded into one archive file once the child has
exited, so the directory does not grow by a file per job.

Queue depths and ages are read from Redis when `/metrics` is scraped (`QueueCollector`):
every process that reports them reports the same figures, so aggregate them with `max`.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from datetime import timezone
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlparse

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.multiprocess import MultiProcessCollector
from redis import Redis
from redis.exceptions import RedisError
from rq.utils import utcparse

log = logging.getLogger(__name__)

from deputy.core.infrastructure.metrics_dir import MULTIPROCESS_ENV
_SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)

STEP_SECONDS = Histogram(
    "deputy_step_seconds", "Time one goal step took on an agent worker, from taking the job to checkpointing.",
    buckets=_SECONDS,
)
ACTION_SECONDS = Histogram(
    "deputy_action_seconds", "Time an approved or allowed action took to run in the executor, per connector.",
    ["connector"], buckets=_SECONDS,
)
CARDS = Counter(
    "deputy_cards", "Approval cards: asked, approved, denied, expired; retried/dropped for outcome-unknown cards.",
    ["event"],
)
MODEL_CALLS = Counter("deputy_model_calls", "Calls sent to the model endpoint, per provider.", ["provider"])
MODEL_TOKENS = Counter("deputy_model_tokens", "Tokens the provider counted, per provider and kind (prompt, completion).",
                       ["provider", "kind"])
MODEL_ERRORS = Counter("deputy_model_errors", "Model calls that failed (after the gateway's own retries), per provider.",
                       ["provider"])
WATCHDOG_RECOVERIES = Counter(
    "deputy_watchdog_recoveries", "Units of work the watchdog queued again (their worker stopped, or a delayed step "
    "was long overdue), per kind (goal, action, ...).", ["kind"],
)

T = TypeVar("T")


def _quietly(hook: Callable[..., None]) -> Callable[..., None]:
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            hook(*args, **kwargs)
        except Exception:  # counting must never fail the work it counts
            log.exception("metrics hook %s failed", hook.__name__)
    return run


@_quietly
def card(event: str) -> None:
    """A card was asked or expired."""
    CARDS.labels(event).inc()


@_quietly
def card_decided(approved: bool, outcome_unknown: bool = False) -> None:
    """The owner pressed a card's button and the press counted."""
    if outcome_unknown:
        CARDS.labels("retried" if approved else "dropped").inc()
    else:
        CARDS.labels("approved" if approved else "denied").inc()


@_quietly
def model_call(provider: str, calls: int, prompt_tokens: int, completion_tokens: int, failed: bool) -> None:
    MODEL_CALLS.labels(provider).inc(calls)
    MODEL_TOKENS.labels(provider, "prompt").inc(prompt_tokens)
    MODEL_TOKENS.labels(provider, "completion").inc(completion_tokens)
    if failed:
        MODEL_ERRORS.labels(provider).inc()


@_quietly
def recovered(unit: str) -> None:
    """The watchdog queued `unit` ("goal:<id>", "action:<id>", ...) again."""
    WATCHDOG_RECOVERIES.labels(unit.partition(":")[0]).inc()


def timed_action(connector: str, run: Callable[..., T], *args: Any) -> T:
    """`run(*args)`, its duration observed under `connector` (failures included)."""
    started = time.perf_counter()
    try:
        return run(*args)
    finally:
        _quietly(lambda: ACTION_SECONDS.labels(connector).observe(time.perf_counter() - started))()


def provider_of(base_url: str) -> str:
    """A provider's name for labels: its host (and port), never the rest of a URL that may carry credentials."""
    parsed = urlparse(base_url)
    return f"{parsed.hostname}:{parsed.port}" if parsed.port else (parsed.hostname or "model")


class MeteredModel:
    """A synchronous `ChatModel` whose calls, tokens and errors are counted under `provider`."""

    def __init__(self, model: Any, provider: str) -> None:
        self._model = model
        self._provider = provider

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        try:
            reply = self._model.complete(messages, tools)
        except Exception:
            model_call(self._provider, 1, 0, 0, failed=True)
            raise
        usage = getattr(reply, "usage", None)
        model_call(self._provider, 1, getattr(usage, "prompt_tokens", 0), getattr(usage, "completion_tokens", 0),
                   failed=False)
        return reply

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)


class QueueCollector:
    """Jobs waiting per RQ queue and the age of the oldest, read from Redis at each scrape."""

    def __init__(self, redis: Redis, queues: Iterable[str], streams: dict[str, str] | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self._redis = redis
        self._queues = list(queues)
        self._streams = streams or {}  # name -> Redis stream (the model gateway's requests)
        self._clock = clock

    def collect(self) -> Iterable[GaugeMetricFamily]:
        depth = GaugeMetricFamily("deputy_queue_jobs", "Jobs waiting in a queue (model: calls waiting or in flight "
                                  "at the gateway).", labels=["queue"])
        age = GaugeMetricFamily("deputy_queue_oldest_job_age_seconds", "How long the oldest waiting job has waited.",
                                labels=["queue"])
        try:
            for name in self._queues:
                waiting, oldest = self._rq_queue(name)
                depth.add_metric([name], waiting)
                age.add_metric([name], oldest)
            for name, stream in self._streams.items():
                waiting, oldest = self._stream(stream)
                depth.add_metric([name], waiting)
                age.add_metric([name], oldest)
        except RedisError:
            return []  # Redis unreachable: /readyz says so; no figures rather than wrong ones
        return [depth, age]

    def _rq_queue(self, name: str) -> tuple[int, float]:
        key = f"rq:queue:{name}"
        pipe = self._redis.pipeline(transaction=False)
        pipe.llen(key)
        pipe.lindex(key, 0)  # RQ pushes at the tail and takes from the head
        waiting, head = pipe.execute()
        if not head:
            return int(waiting), 0.0
        enqueued = self._redis.hget(f"rq:job:{head.decode()}", "enqueued_at")
        return int(waiting), max(0.0, self._clock() - _rq_time(enqueued)) if enqueued else 0.0

    def _stream(self, stream: str) -> tuple[int, float]:
        waiting = self._redis.xlen(stream)
        first = self._redis.xrange(stream, count=1)
        if not first:
            return int(waiting), 0.0
        millis = int(first[0][0].decode().split("-")[0])
        return int(waiting), max(0.0, self._clock() - millis / 1000)


def _rq_time(value: bytes) -> float:
    return utcparse(value.decode()).replace(tzinfo=timezone.utc).timestamp()


class Exposition:
    """What `/metrics` answers: this process's metrics (and its children's), plus `collectors`."""

    def __init__(self, collectors: Iterable[Any] = ()) -> None:
        directory = os.environ.get(MULTIPROCESS_ENV)
        self._directory = Path(directory) if directory else None
        self._lock = threading.Lock()
        if self._directory is not None:
            self._registry = CollectorRegistry()
            MultiProcessCollector(self._registry, path=str(self._directory))
        else:
            self._registry = REGISTRY
        for collector in collectors:
            self._registry.register(collector)

    def render(self) -> bytes:
        with self._lock:
            if self._directory is not None:
                fold_exited_processes(self._directory)
            return generate_latest(self._registry)


def fold_exited_processes(directory: Path) -> None:
    """Add the counts of processes that have exited into one archive file per kind and delete theirs."""
    for path in sorted(directory.glob("*.db")):
        kind, _, ident = path.stem.partition("_")
        if kind not in ("counter", "histogram") or not ident.isdigit() or _alive(int(ident)):
            continue
        archive = MmapedDict(str(directory / f"{kind}_archive.db"))
        try:
            for key, value, timestamp, _ in MmapedDict.read_all_values_from_file(str(path)):
                total, _ = archive.read_value(key)
                archive.write_value(key, total + value, timestamp)
        finally:
            archive.close()
        path.unlink()


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
