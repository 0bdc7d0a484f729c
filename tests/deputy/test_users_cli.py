"""`deputy users ...`: the operator lists users, reads their use, changes plans, puts users on hold, invites."""

from __future__ import annotations

import json
import time

from redis import Redis

from deputy.cli import _parser
from deputy.admin.users import run
from deputy.core.accounts.plans import default_plans
from deputy.core.accounts.quotas import Quotas


def users(redis: Redis, *argv: str) -> tuple[int, list[str]]:
    lines: list[str] = []
    code = run(_parser().parse_args(["users", *argv]), Quotas(redis, default_plans()), lines.append)
    return code, lines


def test_the_operator_sees_each_users_plan_and_use(redis: Redis) -> None:
    quotas = Quotas(redis, default_plans())
    now = time.time()
    quotas.start_goal(11, "g1", now)
    quotas.count_tokens(11, "gpt", 1234, now)
    quotas.start_goal(12, "g2", now)
    code, lines = users(redis, "list")
    assert code == 0 and len(lines) == 2
    assert lines[0].startswith("11\tfree\tgoals today 1, this month 1\ttokens today 1,234")
    _, [record] = users(redis, "usage", "11")
    data = json.loads(record)
    assert data["used_today"] == {"goals": 1, "tokens": 1234, "tokens:gpt": 1234} and data["plan"] == "free"
    _, shown = users(redis, "show", "11")
    assert shown[0] == "User 11" and "Your plan: Free" in shown[1] and "new goals: 1 of 10" in shown[1]


def test_set_plan_suspend_and_resume_take_effect_for_the_user(redis: Redis) -> None:
    quotas = Quotas(redis, default_plans())
    assert users(redis, "set-plan", "11", "gold") == (2, ["There is no plan 'gold'; the plans are: free, plus, pro."])
    assert users(redis, "set-plan", "11", "pro") == (0, ["User 11 is now on the Pro plan."])
    assert quotas.plan_of(11).title == "Pro"
    users(redis, "suspend", "11")
    assert quotas.start_goal(11, "g", time.time()).refusal.period == "suspended"
    assert "(on hold)" in users(redis, "list")[1][0]
    users(redis, "resume", "11")
    assert quotas.start_goal(11, "g", time.time()).refusal is None


def test_an_invitation_lets_one_newcomer_in_on_its_plan(redis: Redis) -> None:
    code, lines = users(redis, "invite", "--plan", "plus")
    invite = lines[0].splitlines()[0].removeprefix("Invitation code: ")
    quotas = Quotas(redis, default_plans())
    assert quotas.accounts.redeem(invite, 500) and quotas.plan_of(500).title == "Plus"
    assert not quotas.accounts.redeem(invite, 501)


def test_metrics_show_users_and_use_per_plan(redis: Redis) -> None:
    from deputy.core.accounts.metrics_plans import PlanCollector

    quotas = Quotas(redis, default_plans())
    now = time.time()
    quotas.start_goal(11, "g1", now)
    quotas.count_tokens(11, "gpt", 500, now)
    quotas.accounts.set_plan(12, "pro")
    quotas.accounts.set_suspended(12, True)
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in PlanCollector(quotas, lambda: now).collect() for s in family.samples}
    assert samples[("deputy_plan_users", (("plan", "free"), ("state", "active")))] == 1
    assert samples[("deputy_plan_users", (("plan", "pro"), ("state", "on_hold")))] == 1
    assert samples[("deputy_plan_goals_today", (("plan", "free"),))] == 1
    assert samples[("deputy_plan_tokens_today", (("plan", "free"),))] == 500
    assert samples[("deputy_plan_goals_in_progress", (("plan", "free"),))] == 1
