"""Soak under faults: many goals with approvals while processes are SIGKILLed at random.

A longer run of `deputy.testing.chaos` than `tests/e2e/test_faults.py` (more users, more kills,
and a Redis restart with append-only persistence). Prints what was injected, what was
checked, and how long the run took; a broken promise makes the section fail.
`python -m bench.faults [--quick]`.
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from deputy.testing.chaos import FaultPlan, FaultReport, run_faults

FULL = [
    FaultPlan(seed=1, users=20, kills=16, model_refusals=3, active=150.0),
    FaultPlan(seed=2, users=10, kills=6, redis_restart="appendonly", active=60.0),
]
QUICK = [FaultPlan(seed=3, users=6, kills=4, active=30.0)]
# The bot's crash window, widened: the bot killed three times between recording a texted goal and
# confirming it to Telegram, on top of random kills and the executor's chosen moments.
BOT_WINDOW = [FaultPlan(seed=4, users=4, kills=2, active=40.0,
                        chosen=("dequeue", "smtp_after", "bot_write_confirm", "bot_write_confirm", "bot_write_confirm"))]


@dataclass
class FaultBench:
    reports: list[FaultReport] = field(default_factory=list)

    def print(self) -> None:
        for report in self.reports:
            print(report.text())
        for report in self.reports:
            plan = report.plan
            print(f"faults: {plan.users} users, {report.goals} goals, {plan.kills} random kills + "
                  f"{len(plan.chosen)} chosen, redis restart {plan.redis_restart}: "
                  f"{report.doubled_goals} doubled goals, {len(report.violations)} broken promises "
                  f"in {report.seconds:.0f} s")
        broken = [r for r in self.reports if not r.ok]
        if broken:
            raise RuntimeError(f"{len(broken)} fault run(s) broke a promise (see above)")


def run(directory: Path, plans: list[FaultPlan] | None = None) -> FaultBench:
    bench = FaultBench()
    for index, plan in enumerate(plans or FULL):
        bench.reports.append(run_faults(plan, directory / f"run-{index}"))
    return bench


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.faults", description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--bot-window", action="store_true", help="only the run with the bot's crash window widened")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deputy-faults-") as tmp:
        run(Path(tmp), QUICK if args.quick else BOT_WINDOW if args.bot_window else FULL + BOT_WINDOW).print()


if __name__ == "__main__":
    main()
