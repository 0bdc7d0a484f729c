"""Redis commands per message at the goal intake: before and after, in one run.

    python -m bench.redis_counts [--goals 10] [--before REV | --no-before] [--detail]

Deputy's bot is built as `deputy bot` builds it (`deputy.bot.app.build_application`: the
durable long polling of `deputy run`, the shipped plans with `pro` as the default plan,
`DEPUTY_MESSAGES_PER_MINUTE` at 30 as with a real Telegram token, an allow-list) and is
handed Telegram updates in process; the Bot API is answered in process too, so only the
bot talks to a private redis-server. For each kind of message it prints (see
`deputy.testing.redis_counts`): the commands the bot sent, the commands Redis ran (those
inside scripts and transactions one by one) and the round trips, per message:

- new goal: an allowed user on `pro` sends a goal (a mean over `--goals` goals, each
  user's goals staying in progress, as with no worker running), and one by a user with 40
  goals in progress; also by a confidential user, whose goal is sealed;
- plan refusal: a user on `free` with its 2 goals in progress sends a third;
- flood limit: a message past the limit (the 32nd in a minute; the 31st got the one polite answer);
- duplicate: a copy of an update already handled arrives again (a re-fetched poll), and an
  update handled again after a crash, its goal already stored.

The baseline is the same measurement on the code of `--before` (a git revision, by default
the one before the intake's scripts), run from a copy of that revision's `deputy` package in
a subprocess, on its own redis-server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path
from typing import Any

from bench.stats import table

BEFORE = "c6288d8"  # main before the intake's Lua scripts
USER, FREE_USER, SEALED_USER, FLOOD_USER, OTHER_USER, BUSY_USER = 5001, 5002, 5003, 5004, 5005, 5006
BUSY_GOALS = 40
FLOOD_LIMIT = 30
KINDS = ["new goal (pro)", f"new goal (pro, {BUSY_GOALS} in progress)", "new goal (confidential)", "plan refusal",
         "flood limit", "duplicate (re-fetched)",
         "duplicate (after a crash)"]


async def _measure(url: str, goals: int) -> dict[str, dict]:
    from deputy.core.accounts.plans import default_plans
    from deputy.core.confidential.keys import ConfidentialKeys
    from deputy.testing.bot_in_process import InProcessBot
    from deputy.testing.redis_counts import counting_commands

    plans = default_plans().model_copy(update={"default": "pro"})  # as `deputy run` (DEPUTY_DEFAULT_PLAN)
    users = frozenset({USER, FREE_USER, SEALED_USER, FLOOD_USER, OTHER_USER, BUSY_USER})
    bot = InProcessBot(url, users, plans, FLOOD_LIMIT)
    await bot.start()
    results: dict[str, dict] = {}

    async def count(kind: str, work: Any, times: int = 1) -> None:
        totals: dict[str, Any] = {}
        for _ in range(times):
            with counting_commands(url) as counted:
                await work()
            for key in ("sent", "executed", "round_trips"):
                totals[key] = totals.get(key, 0) + getattr(counted, key)
            for key in ("commands", "executed_commands"):
                totals.setdefault(key, {})
                for name, n in getattr(counted, key).items():
                    totals[key][name] = totals[key].get(name, 0) + n
        results[kind] = {k: (v / times if isinstance(v, int) else {n: c / times for n, c in v.items()})
                         for k, v in totals.items()}

    try:
        for user in (USER, FREE_USER, SEALED_USER, OTHER_USER):  # connections opened, scripts loaded
            await bot.send(user, "/help")
        await bot.send(OTHER_USER, "warm up: find me a plumber")
        await count("new goal (pro)", lambda: bot.send(USER, "find me a cheap flight to Lisbon in May"), goals)
        for n in range(BUSY_GOALS):
            if n % 20 == 0:
                bot.now += 60  # a new minute: under the flood limit
            await bot.send(BUSY_USER, f"goal {n}")
        await count(f"new goal (pro, {BUSY_GOALS} in progress)", lambda: bot.send(BUSY_USER, "one more goal"))
        ConfidentialKeys(bot.redis).turn_on(SEALED_USER, "a long enough passphrase")
        await count("new goal (confidential)", lambda: bot.send(SEALED_USER, "find a dentist near me"), goals)
        bot.services.quotas.accounts.set_plan(FREE_USER, "free")
        for n in range(2):
            await bot.send(FREE_USER, f"goal {n}")
        await count("plan refusal", lambda: bot.send(FREE_USER, "one more goal"))
        for _ in range(FLOOD_LIMIT + 1):  # the 31st is told once; later ones are dropped quietly
            await bot.send(FLOOD_USER, "/help")
        await count("flood limit", lambda: bot.send(FLOOD_USER, "one goal too many"))
        handled = await bot.send(USER, "book a table for two")
        await count("duplicate (re-fetched)", lambda: bot.deliver(handled))
        await count("duplicate (after a crash)", lambda: bot.after_a_crash(handled))
    finally:
        await bot.stop()
    return results


def measure(goals: int) -> dict[str, dict]:
    """Counts per kind of message, on a fresh private redis-server."""
    from deputy.testing.stack import RedisServer

    server = RedisServer().start()
    try:
        return asyncio.run(_measure(server.url, goals))
    finally:
        server.stop()


def _before(revision: str, goals: int) -> dict[str, dict] | None:
    """The same measurement on `revision`'s code, in a subprocess importing that revision's `deputy`."""
    root = Path(__file__).resolve().parent.parent
    try:
        archive = subprocess.run(["git", "archive", revision, "deputy"], cwd=root, capture_output=True,
                                 check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"(no baseline: revision {revision} could not be read: {exc})")
        return None
    with tempfile.TemporaryDirectory(prefix="deputy-before-") as old:
        tarfile.open(fileobj=BytesIO(archive)).extractall(old)
        # Only the bot's code is the revision's: the counting helper and the rig are this run's.
        for helper in ("redis_counts.py", "bot_in_process.py"):
            (Path(old) / "deputy" / "testing" / helper).write_text((root / "deputy" / "testing" / helper).read_text())
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([old, str(root)])}
        command = [sys.executable, "-m", "bench.redis_counts", "--json", "--no-before", "--goals", str(goals)]
        done = subprocess.run(command, cwd=old, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"(no baseline: the run on {revision} failed)\n{done.stderr[-2000:]}")
            return None
        return json.loads(done.stdout)


def report(after: dict[str, dict], before: dict[str, dict] | None, detail: bool) -> None:
    rows = []
    for kind in KINDS:
        a, b = after[kind], (before or {}).get(kind)
        rows.append([kind,
                     f"{b['sent']:.1f}" if b else "-", f"{a['sent']:.1f}",
                     f"{b['executed']:.1f}" if b else "-", f"{a['executed']:.1f}",
                     f"{b['round_trips']:.1f}" if b else "-", f"{a['round_trips']:.1f}"])
    print(table(["message", "sent before", "sent after", "ran before", "ran after", "round trips before",
                 "round trips after"], rows))
    print("sent: commands the bot sent (a script is one); ran: commands Redis ran, those inside scripts and "
          "transactions one by one (INFO commandstats); round trips: requests written to Redis")
    if detail:
        for label, figures in (("before", before), ("after", after)):
            if not figures:
                continue
            for kind in KINDS:
                sent = ", ".join(f"{n} {c:g}" for n, c in sorted(figures[kind]["commands"].items()))
                ran = ", ".join(f"{n} {c:g}" for n, c in sorted(figures[kind]["executed_commands"].items()))
                print(f"{label} / {kind}\n  sent: {sent}\n  ran:  {ran}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.redis_counts", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--goals", type=int, default=10, help="new goals to average over (default 10)")
    parser.add_argument("--before", default=BEFORE, help=f"the revision to compare with (default {BEFORE})")
    parser.add_argument("--no-before", action="store_true", help="measure this code only")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--detail", action="store_true", help="also list the commands of each message")
    args = parser.parse_args()
    after = measure(args.goals)
    if args.json:
        print(json.dumps(after))
        return
    before = None if args.no_before else _before(args.before, args.goals)
    report(after, before, args.detail)


if __name__ == "__main__":
    main()
