"""Prompt tokens per step, and the goal record's size, across one long goal.

    python -m bench.prompt_growth [--steps 50]

One research goal runs `steps` steps through the real runner, executor and guard
(in-process, `InlineDeputy`, a real Redis) against the sandbox world, whose pages
are ~12,000 characters each: the agent opens a page, reads an email, a document and
more of a stored page, updates its plan, over and over, then replies. Every request the
model receives is measured (tokens estimated as characters / 4, as the scripted model
server does), and so are the goal record Redis keeps (every step loads and saves it) and
the goal's reads list beside it (what it read from outside, for the guard: loaded with the
record, appended to, never rewritten).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redis import Redis

from deputy.agent.goal_reads import reads_key
from deputy.agent.goals import GoalStatus, GoalStore, goal_key
from deputy.agent.memory_tools import MemoryTools
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.reading import injection_scanner
from deputy.agent.runner import RunnerLimits
from deputy.agent.model.testing import FunctionModel, tool_call
from bench.stats import Summary, ratio
from deputy.core.records.outbox import Outbox
from deputy.testing.stack import RedisServer
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.memory import MemoryStore
from bench.guard_eval.cases import seeded_world
from deputy.sandbox.world_operations import world_catalog
from deputy.sentinel.stores.approvals import ApprovalSigner
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.detectors import HeuristicDetector
from deputy.testing.inline import InlineDeputy
from deputy.testing.redis_bytes import ByteTally, counting_client

PAGE = ("Story {i}: the city council met on Tuesday to discuss the new tram line, the library budget and "
        "the harbour project; residents asked about prices, timetables and noise. ")


@dataclass
class GrowthReport:
    steps: int
    tools_tokens: int
    prompt_tokens: list[int] = field(default_factory=list)  # per model call, in order
    record_kb: list[float] = field(default_factory=list)  # goal record size before each model call
    reads_kb: list[float] = field(default_factory=list)  # its reads list's size (elements' bytes), the same moment
    status: str = ""
    records: list[bytes] = field(default_factory=list)  # the goal record itself, when kept
    goals: list[str] = field(default_factory=list)  # the whole goal (what it read included) as JSON, when kept
    step_read_kb: list[float] = field(default_factory=list)  # bytes the agent's step(s) read from Redis, per step
    review_read_kb: list[float] = field(default_factory=list)  # bytes the executor (review, action) read, per step

    def at(self, values: list[Any], step: int) -> Any:
        return values[min(step, len(values)) - 1]

    def cycle(self, values: list[float], step: int) -> float:
        window = values[max(0, min(step, len(values) - 1) - 5):min(step, len(values) - 1)] or values[:1]
        return sum(window) / len(window)

    def flat(self) -> tuple[float, float]:
        """Mean prompt tokens over the second third and the last third of the goal."""
        n = len(self.prompt_tokens)
        middle, last = self.prompt_tokens[n // 3: 2 * n // 3], self.prompt_tokens[2 * n // 3:]
        return sum(middle) / max(len(middle), 1), sum(last) / max(len(last), 1)

    def print(self) -> None:
        print(f"(5b) Prompt size across a {self.steps}-step goal (tokens ~ characters / 4; "
              f"{self.tools_tokens:,} of them are the tool list, the same every step); goal ended {self.status}")
        marks = sorted({1, 2, 5, 10, 20, 30, 40, 100, 150, self.steps} & set(range(1, len(self.prompt_tokens) + 1)))
        print("step          " + "".join(f"{m:>8}" for m in marks) + f"{'max':>8}")
        print("prompt tokens " + "".join(f"{self.at(self.prompt_tokens, m):>8,}" for m in marks)
              + f"{max(self.prompt_tokens):>8,}")
        print("record KB     " + "".join(f"{self.at(self.record_kb, m):>8.1f}" for m in marks)
              + f"{max(self.record_kb):>8.1f}")
        print("reads list KB " + "".join(f"{self.at(self.reads_kb, m):>8.1f}" for m in marks)
              + f"{max(self.reads_kb):>8.1f}")
        if self.step_read_kb:
            # A cycle of the script is five steps (a page, an email, a document, a stored result, the plan): each
            # figure is the mean of the five steps up to the mark, the answer's step excluded (it checks the answer
            # against everything read).
            print("Redis KB read per step, mean of the 5 steps up to the mark:")
            print("  by the step " + "".join(f"{self.cycle(self.step_read_kb, m):>8.1f}" for m in marks)
                  + f"{max(self.step_read_kb[:-1]):>8.1f}")
            print("  by the review" + "".join(f"{self.cycle(self.review_read_kb, m):>7.1f}" for m in marks)
                  + f"{max(self.review_read_kb[:-1]):>8.1f}")
            print(f"  the answer's step: {self.step_read_kb[-1]:.1f} KB (its check reads everything the goal read)")
        later = self.record_kb[19:]
        if later:
            print(f"goal record from step 20 to the end: {min(later):.1f} to {max(later):.1f} KB (target: flat); "
                  f"what it read, beside it: {self.reads_kb[-1]:.1f} KB, loaded with it, appended to, never rewritten")
        middle, last = self.flat()
        print(f"mean prompt tokens, middle third {middle:,.0f} vs last third {last:,.0f} "
              f"({(last / middle - 1) * 100:+.0f}%)")
        tokens, first = Summary.of(self.prompt_tokens), self.prompt_tokens[0]
        print(f"prompt tokens per step: median {tokens.median:,.0f}, p99 {tokens.p99:,.0f}; against the first step's "
              f"prompt (the baseline: the goal and the tool list only, {first:,}): median {ratio(tokens.median, first)}, "
              f"p99 {ratio(tokens.p99, first)}")


@dataclass
class ReadCounts:
    """Bytes Deputy's client read between two model calls (one step), split between the agent's step jobs
    and the executor's jobs by who was running when they were read."""

    tally: ByteTally
    read: dict[str, int] = field(default_factory=lambda: {"agent": 0, "executor": 0})
    per_step: list[tuple[int, int]] = field(default_factory=list)
    _running: list[str] = field(default_factory=list)
    _mark: int = 0

    def _flush(self) -> None:
        if self._running:
            self.read[self._running[-1]] += self.tally.total - self._mark
        self._mark = self.tally.total

    def counted(self, run: Any, side: str) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            self._flush()
            self._running.append(side)
            try:
                return run(*args, **kwargs)
            finally:
                self._flush()
                self._running.pop()
        return wrapped

    def step_done(self) -> None:
        """A model call: what was read since the last one belongs to the step it ends."""
        self._flush()
        self.per_step.append((self.read["agent"], self.read["executor"]))
        self.read = {"agent": 0, "executor": 0}


def _script(urls: list[str], steps: int, records: list[bytes], reads: list[int], redis: Redis, goal_id: str,
            goals: list[str] | None = None, counts: ReadCounts | None = None):
    """The model: a cycle of reads and plan updates, then `reply` at the last step."""

    def decide(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        if counts is not None:
            counts.step_done()
        records.append(redis.get(goal_key(goal_id)) or b"")  # the checkpoint this step just saved
        reads.append(sum(len(e) for e in redis.lrange(reads_key(goal_id), 0, -1)))
        if goals is not None:
            goals.append(GoalStore(redis).get(goal_id).model_dump_json())
        step = len(records)
        if step >= steps:
            return tool_call("reply", text="Here is the summary of the stories you asked about.")
        kind = step % 5
        if kind == 1:
            return tool_call("open_page", url=urls[(step // 5) % len(urls)])
        if kind == 2:
            return tool_call("read_email", message_id="m1")
        if kind == 3:
            return tool_call("read_document", name="notes.txt")
        if kind == 4:
            handle = _last_handle(messages)
            if handle:
                return tool_call("read_result", handle=handle, offset=4000)
        return tool_call("update_plan", steps=[{"title": f"read story {i}", "status": "done" if i < step // 5 else "todo"}
                                              for i in range(min(len(urls), 8))])

    return decide


def _last_handle(messages: list[dict[str, Any]]) -> str | None:
    for message in reversed(messages):
        text = json.dumps(message.get("content"))
        if "read_result with handle" in text:
            return text.split("handle '", 1)[1].split("'", 1)[0]
    return None


def run(workdir: Path, steps: int = 50, keep_records: bool = False) -> GrowthReport:
    server = RedisServer(workdir / "redis").start()
    try:
        redis = server.client()
        world = seeded_world()
        urls = [f"https://news.example/story-{i}" for i in range(12)]
        for i, url in enumerate(urls):
            world.pages[url] = (PAGE.format(i=i) * 80)[:12_000]
        goal_id, records, reads, goals = "g_growth", [], [], []
        client, tally = counting_client(server.url)  # Deputy's own: what it reads is counted
        counts = ReadCounts(tally)
        model = FunctionModel(_script(urls, steps, records, reads, redis, goal_id, goals if keep_records else None,
                                      counts))
        deputy = InlineDeputy(
            client, model, world_catalog(), world.runners(), clock=time.time, approval_ttl=3600,
            signer=ApprovalSigner("bench"), limits=RunnerLimits(max_steps=steps + 10),
            scanner=injection_scanner(HeuristicDetector()),
            memory=MemoryTools(MemoryStore(client), Outbox(client), AuditLog(client)), settings=UserSettingsStore(client),
        )
        inline = deputy.dispatch
        inline.runner.run_step = counts.counted(inline.runner.run_step, "agent")  # type: ignore[union-attr]
        inline.executor.handle = counts.counted(inline.executor.handle, "executor")  # type: ignore[union-attr]
        text = "Read these stories and summarise what matters for me: " + " ".join(urls)
        deputy.new_goal(42, text, goal_id=goal_id)
        deputy.dispatch.step(goal_id, 0)
        deputy.dispatch.drain(max_jobs=steps * 4)
        final = deputy.goals.get(goal_id)
        tools_tokens = len(json.dumps(model.calls[0][1])) // 4 if model.calls else 0
        tokens = [len(json.dumps(messages)) // 4 + tools_tokens for messages, _ in model.calls]
        status = final.status.value if final else "missing"
        if final is not None and final.status is not GoalStatus.done:
            status += f" ({final.error or 'not finished'})"
        sizes = [len(r) / 1024 for r in records]
        # The first model call ends no step: what was read before it (storing the goal) is not a step's.
        per_step = counts.per_step[1:] + [(counts.read["agent"], counts.read["executor"])]
        return GrowthReport(steps, tools_tokens, tokens, sizes, [r / 1024 for r in reads], status,
                            records if keep_records else [], goals,
                            [a / 1024 for a, _ in per_step], [e / 1024 for _, e in per_step])
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.prompt_growth", description=__doc__)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        run(Path(tmp), args.steps).print()


if __name__ == "__main__":
    main()
