"""`deputy users ...`: the operator's view of who uses this Deputy, on which plan, and how much.

list      every user with their plan, goals today and this month, tokens today
show      one user: plan, on hold or not, use today and this month, goals in progress
set-plan  move a user to another plan (applies from their next goal or step)
suspend   put a user on hold: no new goals; running goals pause at their next step
resume    lift the hold
usage     the same figures as `list`, as JSON lines (for scripts)
invite    an invitation code for `/start <code>` (optionally with a plan and a number of uses)
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Callable

from deputy.core.accounts.quota_texts import plan_text
from deputy.core.accounts.quotas import Quotas

Print = Callable[[str], None]


def add_parser(sub: argparse._SubParsersAction) -> None:
    users = sub.add_parser("users", help="users, their plans and what they used: list, show, set-plan, suspend...")
    users_sub = users.add_subparsers(dest="users_command", required=True)
    users_sub.add_parser("list", help="every user with their plan and today's use")
    for name, text in (("show", "one user's plan and use"), ("suspend", "put a user on hold (no new goals)"),
                       ("resume", "lift a user's hold"), ("usage", "one user's use as JSON (all users if no id)")):
        command = users_sub.add_parser(name, help=text)
        command.add_argument("user", type=int, nargs="?" if name == "usage" else None, help="the chat user id")
    set_plan = users_sub.add_parser("set-plan", help="move a user to another plan")
    set_plan.add_argument("user", type=int)
    set_plan.add_argument("plan", help="a plan's name in the plans file (e.g. free, plus, pro)")
    invite = users_sub.add_parser("invite", help="an invitation code for /start <code>")
    invite.add_argument("--plan", default=None, help="the plan the newcomer gets (default: the default plan)")
    invite.add_argument("--uses", type=int, default=1, help="how many people may use the code (default 1)")


def run(args: argparse.Namespace, quotas: Quotas, out: Print, now: float | None = None) -> int:
    now = time.time() if now is None else now
    command = args.users_command
    if command == "list":
        users = quotas.accounts.users()
        if not users:
            out("No users yet.")
        for user_id in users:
            out(_line(quotas, user_id, now))
        return 0
    if command == "usage":
        for user_id in ([args.user] if args.user is not None else quotas.accounts.users()):
            out(json.dumps(usage_record(quotas, user_id, now), sort_keys=True))
        return 0
    if command == "invite":
        if args.plan is not None and args.plan not in quotas.book.plans:
            out(f"There is no plan {args.plan!r}; the plans are: {', '.join(quotas.book.plans)}.")
            return 2
        code = quotas.accounts.invite(args.plan, max(1, args.uses))
        out(f"Invitation code: {code}\nThe newcomer sends: /start {code}")
        return 0
    user_id = args.user
    if command == "show":
        out(f"User {user_id}")
        out(plan_text(quotas.usage(user_id, now), now, "").rstrip())
        return 0
    if command == "set-plan":
        if args.plan not in quotas.book.plans:
            out(f"There is no plan {args.plan!r}; the plans are: {', '.join(quotas.book.plans)}.")
            return 2
        quotas.accounts.set_plan(user_id, args.plan)
        out(f"User {user_id} is now on the {quotas.book.plans[args.plan].title} plan.")
        return 0
    if command in ("suspend", "resume"):
        quotas.accounts.set_suspended(user_id, command == "suspend")
        out(f"User {user_id} is {'on hold' if command == 'suspend' else 'no longer on hold'}.")
        return 0
    raise AssertionError(command)


def usage_record(quotas: Quotas, user_id: int, now: float) -> dict:
    usage = quotas.usage(user_id, now)
    return {"user": user_id, "plan": usage.plan.name, "suspended": usage.suspended, "day": usage.periods.day,
            "month": usage.periods.month, "used_today": usage.used["day"], "used_this_month": usage.used["month"],
            "goals_in_progress": usage.held}


def _line(quotas: Quotas, user_id: int, now: float) -> str:
    record = usage_record(quotas, user_id, now)
    hold = " (on hold)" if record["suspended"] else ""
    today, month = record["used_today"], record["used_this_month"]
    return (f"{user_id}\t{record['plan']}{hold}\tgoals today {today.get('goals', 0)}, this month "
            f"{month.get('goals', 0)}\ttokens today {today.get('tokens', 0):,}\tin progress "
            f"{record['goals_in_progress']}")
