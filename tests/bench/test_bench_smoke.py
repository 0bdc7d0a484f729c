"""Tiny runs of every benchmark, so that `make test` notices when one stops working.

Benchmarks are not tests: nothing here asserts a timing. Each benchmark runs with small
loads against its real parts (redis-server, the emulator, bot and worker processes, the
scripted model) and must produce sane, non-empty figures and the printed report.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import (
    approvals,
    concurrency,
    fair_queue,
    frontend,
    frontend_profile,
    guard_cost,
    profile,
    prompt_growth,
    redis_counts,
    redis_memory,
    steps,
)
from bench.stats import Summary, percentile, table

pytestmark = pytest.mark.timeout(180)


def _sane(summary: Summary) -> None:
    assert summary.sane(), summary


def test_stats_helpers() -> None:
    assert percentile([1, 2, 3, 4], 50) == 2 and percentile(list(range(1, 101)), 99) == 99
    assert Summary.of([]).n == 0 and not Summary.of([]).sane()
    assert "x" in table(["a", "b"], [("x", 1.5)])


def test_frontend_smoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = frontend.Plan(sequential=3, users=(4,), seconds=0.5, think=0.1, bursts=((4, 1),), rate_limited=False,
                         warmup=2, rounds=2)
    report = frontend.run(tmp_path, plan)
    assert {(r.bot, r.load) for r in report.rows} == {
        (bot, load) for bot in ("echo", "deputy") for load in ("1 user", "4 users", "burst of 4")}
    for row in report.rows:
        _sane(row.handled)
        assert row.handled.median <= row.end_to_end.median
    jobs, messages = report.enqueued["deputy"]
    assert jobs == messages > 0, "every acknowledged goal must have its first step enqueued"
    assert report.cpu_ms["deputy"] > 0 and report.redis_commands["deputy"] > 0
    report.print()
    out = capsys.readouterr().out
    assert "our own time" in out and "deputy" in out and "p99 ratio" in out


def test_frontend_profile_smoke(tmp_path: Path) -> None:
    report = frontend_profile.run(tmp_path, users=5, seconds=1.0, think=0.1)
    assert report.messages > 0
    _sane(report.handled)
    assert report.samples > 0, "py-spy (installed with the test extra) must have sampled the bot"
    assert abs(sum(share for _, share in report.shares) - 1) < 1e-6
    assert any(name != "other" for name, _ in report.shares), report.shares
    report.print()


def test_guard_cost_smoke(tmp_path: Path) -> None:
    report = guard_cost.run(tmp_path, rounds=2)
    assert set(report.decisions) == {"allow", "ask", "deny"}
    assert [row[0] for row in report.rows][-2:] == ["executor: context from Redis + review",
                                                  "executor, + the values' sources kept for the record"]
    for _, wall, cpu, rate in report.rows:
        _sane(wall)
        _sane(cpu)
        assert rate > 0
    report.print()


def test_steps_smoke(tmp_path: Path) -> None:
    report = steps.run(tmp_path, goals=1, steps=4, floor_jobs=5, throughput_goals=2, throughput_steps=2,
                       simple_goals=2, two_workers=False)
    for summary in (report.floor_round_trip, report.simple_round_trip, report.floor_chain,
                    report.noop_on_deputy_worker, report.model_call, report.step, report.queue_wait, report.job_body):
        _sane(summary)
    assert report.step.n == 3  # 4 steps: 3 intervals between model requests
    [(workers, steps_per_s, goals_per_s, noop_per_s)] = report.throughput
    assert workers == 1 and steps_per_s > 0 and goals_per_s > 0 and noop_per_s > 0
    report.print()


def test_redis_memory_smoke(tmp_path: Path) -> None:
    report = redis_memory.run(tmp_path, users=40, goals=10, active=4, entries=300)
    assert report.rows[0][0] == "idle user"
    idle, whole, windowed = (size for _, _, size in report.active)
    assert idle < windowed < whole, "a windowed trail holds more than a week's entries, fewer than the whole trail"
    assert all(count > 0 and size > 0 for _, count, size in report.rows)
    assert report.bytes_each("running goal (research, step 10)") > report.bytes_each("finished goal (history)")
    assert report.sweep[0] == 20  # the running goals' and the monitors' registrations
    assert report.floor > 0
    _sane(report.sweeps)
    report.print()


def test_prompt_growth_smoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = prompt_growth.run(tmp_path, steps=12)
    assert report.status == "done"
    assert len(report.prompt_tokens) == len(report.record_kb) == 12
    assert report.tools_tokens > 0 and min(report.prompt_tokens) > report.tools_tokens
    assert len(report.step_read_kb) == len(report.review_read_kb) == 12 and min(report.step_read_kb) > 0
    report.print()
    assert "median" in capsys.readouterr().out


def test_approvals_smoke(tmp_path: Path) -> None:
    report = approvals.run(tmp_path, samples=1, warmups=0)
    for summary in (report.to_bot, report.to_start, report.to_sent, report.floor, report.card):
        _sane(summary)
    assert report.to_bot.median < report.to_start.median <= report.to_sent.median
    report.print()


def test_concurrency_smoke(tmp_path: Path) -> None:
    plan = [concurrency.Point(0.2, 1, 1, 3)]
    report = concurrency.run(tmp_path, plan, gateway_calls=5, gateway_delay=0.1)
    assert [r.point for r in report.results] == plan
    for result in report.results:
        _sane(result.overhead)
        assert result.memory_mb > 0 and result.cpu_ms_per_step > 0 and result.steps_per_s > 0
    assert [probe["count"] for _, probe in report.gateway] == [5, 5]
    report.print()


def test_concurrency_with_the_gateway_smoke(tmp_path: Path) -> None:
    plan = [concurrency.Point(0.2, 1, 4, 3)]
    [result] = concurrency.run_gateway(tmp_path, plan)
    _sane(result.overhead)
    assert result.processes >= 2 and result.rss_mb > 0 and result.cpu_ms_per_step > 0
    assert result.max_in_flight >= 1
    concurrency.ConcurrencyReport(with_gateway=[result]).print()


def test_profile_smoke(tmp_path: Path) -> None:
    report = profile.run(tmp_path, goals=1, steps=3, seconds=1, experiments=False)
    [variant] = report.variants
    _sane(variant.step)
    assert variant.horse_cpu_ms > 0
    assert report.categories, "py-spy (installed with the test extra) must have sampled the work horses"
    assert all(share > 0 for _, share in report.categories)
    report.print()


def test_negotiation_smoke(capsys: pytest.CaptureFixture[str]) -> None:
    from bench import negotiation

    negotiation.main(["--only", "car-honest"])
    out = capsys.readouterr().out
    assert "| car | adaptive | 1 | 1 / 1 |" in out and "| car | fixed | 1 | 1 / 1 |" in out


def test_fair_queue_smoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found = fair_queue.run(tmp_path, light=5, heavy=40, cost_ms=0.5)
    for alone, behind in found.values():
        _sane(alone)
        _sane(behind)
    # Not a timing target: behind a 40-job backlog, first come first served makes each light user
    # wait for all 40 jobs and in turn for one, so the order holds on however slow a machine.
    assert found["FairQueue"][1].p99 < found["Queue"][1].p99
    assert "FairQueue" in capsys.readouterr().out


def test_redis_counts_smoke(capsys: pytest.CaptureFixture[str]) -> None:
    found = redis_counts.measure(goals=2)
    assert set(found) == set(redis_counts.KINDS)
    assert all(figures["sent"] >= 1 and figures["executed"] >= figures["sent"] for figures in found.values())
    redis_counts.report(found, None, detail=True)
    assert "new goal (pro)" in capsys.readouterr().out


def test_turn_counts_smoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench import turn_counts

    found = turn_counts.measure(tmp_path / "counts", goals=1, steps=3, at_once=1, idle=0.5)
    assert found["turns"] >= 3
    busy = found["busy"]
    assert busy["round_trips"] > 0 and busy["commands"] and busy["ran"]
    assert any(caller.startswith("agent.") for caller in busy["callers"]), "commands are traced to Deputy's code"
    turn_counts.report(found)
    assert "round trips" in capsys.readouterr().out
