"""Goals that take a chosen number of steps, run by real `deputy worker` processes.

A private redis-server, the scripted OpenAI-compatible model server (optionally slow) and
N agent workers started exactly as an operator starts them. A bench goal asks for
`steps` steps: the model answers each turn with an `update_plan` call naming the next
step (different each time, so the loop breaker never fires), then ends with `reply`.
Each step is one RQ job and one model call; the model server notes when every request
arrived, so the interval between two requests of the same goal is one whole step cycle
(model answer, checkpoint, enqueue, dequeue and fork, load, prompt, next request).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Self

from deputy.agent.goals import Goal, GoalStatus, GoalStore
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, ScriptedResponse, tool_call
from bench.procs import Processes, deputy_env, pss_mb
from deputy.core.records.ids import new_id
from deputy.core.records.outbox import OUTBOX_STREAM
from deputy.testing.stack import RedisServer, wait_for
from deputy.queue.dispatch import RQDispatch
from deputy.queue.step_engine import live_engines
from deputy.core.records.payloads import AGENT_QUEUE

GOAL_TEXT = "bench goal {key}: take {steps} steps, then say done"
_GOAL = re.compile(r"bench goal (\S+): take (\d+) steps")
_STEP = re.compile(r"bench step (\d+)")


@dataclass(frozen=True)
class Arrival:
    """One model request: which goal, which step it asks for, when (perf_counter)."""

    key: str
    step: int
    at: float


class StepModel:
    """The responder: `update_plan` for steps 1..n-1, `reply` at step n; records arrivals."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.arrivals: list[Arrival] = []
        self._lock = threading.Lock()

    def __call__(self, request: ChatRequest) -> ScriptedResponse:
        now = time.perf_counter()
        goal_text = next((m.get("content") for m in request.messages if m.get("role") == "user"), "")
        found = _GOAL.search(str(goal_text))
        key, steps = (found.group(1), int(found.group(2))) if found else ("?", 1)
        step = _last_step(request.messages) + 1
        with self._lock:
            self.arrivals.append(Arrival(key, step, now))
        if step >= steps:
            reply: ModelReply = tool_call("reply", text="Done.")
        else:
            reply = tool_call("update_plan", steps=[{"title": f"bench step {step}", "status": "doing"}])
        return ScriptedResponse(reply=reply, delay_seconds=self.delay)

    def intervals(self, keys: set[str] | None = None) -> list[float]:
        """Seconds between consecutive requests of the same goal (one step cycle each)."""
        by_goal: dict[str, list[float]] = {}
        for arrival in sorted(self.arrivals, key=lambda a: a.at):
            if keys is None or arrival.key in keys:
                by_goal.setdefault(arrival.key, []).append(arrival.at)
        return [b - a for times in by_goal.values() for a, b in pairwise(times)]

    def clear(self) -> None:
        with self._lock:
            self.arrivals.clear()


def _last_step(messages: list[dict]) -> int:
    for message in reversed(messages):
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            found = _STEP.search(json.dumps(call.get("function", {}).get("arguments", "")))
            if found:
                return int(found.group(1))
        return 0
    return 0


class StepRig:
    """Redis, the scripted model and `deputy worker` processes; starts and watches bench goals."""

    def __init__(self, workdir: Path, delay: float = 0.0) -> None:
        self.model = StepModel(delay)
        self.redis_server = RedisServer(workdir / "redis")
        self.server = ScriptedModelServer(self.model)
        self.processes = Processes(workdir / "procs")
        self._workers = 0

    def __enter__(self) -> Self:
        self.redis_server.start()
        self.server.start()
        self.redis = self.redis_server.client()
        self.goals = GoalStore(self.redis)
        self.dispatch = RQDispatch(self.redis)
        self.env = deputy_env(self.redis_server.url, self.server.base_url, self.processes.workdir)
        return self

    def __exit__(self, *exc: object) -> None:
        self.processes.stop()
        self.server.stop()
        self.redis_server.stop()

    # -- workers ------------------------------------------------------------------------

    def add_workers(self, count: int) -> None:
        """Start `count` more agent workers and wait until RQ lists them as idle."""
        for _ in range(count):
            self._workers += 1
            self.processes.deputy(f"worker-{self._workers:03d}", "worker", self.env)
        self.wait_for_workers(self._workers)

    def wait_for_workers(self, count: int) -> None:
        """Wait until RQ lists `count` agent workers (they register once started)."""
        wait_for(lambda: self.worker_count() >= count, timeout=60 + 5 * count, interval=0.2,
                 what=f"{count} agent workers")

    def worker_count(self) -> int:
        """Agent workers up: RQ workers on the agent queue, or step engines (`DEPUTY_STEP_ENGINE`)."""
        from rq import Worker

        return sum(1 for w in Worker.all(connection=self.redis) if "agent" in w.queue_names()) + live_engines(self.redis, AGENT_QUEUE)

    def use_gateway(self, concurrency: int = 2_000) -> None:
        """Start `deputy gateway`; workers started from now on hand their model calls to it."""
        self.env = {**self.env, "DEPUTY_MODEL_GATEWAY": "on", "DEPUTY_GATEWAY_CONCURRENCY": str(concurrency)}
        self.processes.deputy("gateway-1", "gateway", self.env)

    def stop_workers(self) -> None:
        self.processes.stop("worker-")
        self._workers = 0
        wait_for(lambda: self.worker_count() == 0, timeout=30, what="workers to stop")

    def worker_memory_mb(self) -> float:
        """PSS of every agent worker process and its work horses, in MB."""
        return pss_mb(self.processes.pids("worker-"))

    # -- goals --------------------------------------------------------------------------

    def start_goal(self, steps: int, user_id: int = 1) -> str:
        """Store a goal and enqueue its first step, as the bot does for a text message."""
        key = new_id("b")
        now = time.time()
        text = GOAL_TEXT.format(key=key, steps=steps)
        goal = self.goals.save(Goal(id=new_id("g"), user_id=user_id, chat_id=user_id, text=text,
                                    messages=[{"role": "user", "content": text}], created_at=now, updated_at=now))
        self.dispatch.step(goal.id, goal.step)
        return key

    def finished(self) -> int:
        """Goals that ended (each sends one final message to the outbox)."""
        return int(self.redis.xlen(OUTBOX_STREAM))

    def wait_finished(self, count: int, timeout: float) -> None:
        wait_for(lambda: self.finished() >= count, timeout=timeout, interval=0.005, what=f"{count} goals to finish")

    def statuses(self) -> dict[GoalStatus, int]:
        counts: dict[GoalStatus, int] = {}
        for key in self.redis.scan_iter("deputy:goal:*", count=1000):
            if key.count(b":") == 2:
                goal = self.goals.get(key.decode().split(":", 2)[2])
                if goal is not None:
                    counts[goal.status] = counts.get(goal.status, 0) + 1
        return counts
