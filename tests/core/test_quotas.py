"""Plans and quotas: limits per day and month in the user's zone, counted atomically in Redis."""

from __future__ import annotations

import threading
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from deputy.core.accounts.plans import PlansFileError, default_plans, parse_plans
from deputy.core.accounts.quota_periods import periods
from deputy.core.accounts.quota_texts import near_text, plan_text, refusal_text
from deputy.core.accounts.quotas import Quotas
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore

BOOK = parse_plans("""
default = "free"
upgrade = "Ask Sam for Plus."
[plans.free]
title = "Free"
active_goals = 2
capabilities = ["email"]
day = { goals = 3, checks = 2, tokens = { "*" = 1000, "helper" = 100 } }
month = { goals = 5 }
[plans.plus]
title = "Plus"
day = { goals = 100 }
""")


def at(text: str, zone: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(zone)).timestamp()


def test_the_shipped_plans_are_free_plus_and_pro():
    book = default_plans()
    assert [p.title for p in book.plans.values()] == ["Free", "Plus", "Pro"]
    assert book.get(None).title == "Free"
    assert book.plans["free"].day.goals < book.plans["plus"].day.goals < book.plans["pro"].day.goals


def test_a_mistake_in_the_plans_file_says_where():
    with pytest.raises(PlansFileError, match="plans.free.day.goalz"):
        parse_plans('default = "free"\n[plans.free]\ntitle = "Free"\nday = { goalz = 3 }\n')
    with pytest.raises(PlansFileError, match="default plan 'gold'"):
        parse_plans('default = "gold"\n[plans.free]\ntitle = "Free"\n')


def test_a_day_is_the_users_own_day_and_resets_at_their_midnight():
    # 23:30 in Los Angeles is already the next day in UTC.
    now = at("2026-03-07T23:30:00", "America/Los_Angeles")
    span = periods(now, "America/Los_Angeles")
    assert span.day == "20260307"
    assert span.day_resets == at("2026-03-08T00:00:00", "America/Los_Angeles")
    assert span.month_resets == at("2026-04-01T00:00:00", "America/Los_Angeles")
    assert periods(now, "UTC").day == "20260308"
    # The DST day (23 hours long) still resets at local midnight.
    assert periods(at("2026-03-08T12:00:00", "America/Los_Angeles"), "America/Los_Angeles").day_resets == \
        at("2026-03-09T00:00:00", "America/Los_Angeles")


def test_goals_run_out_for_the_day_and_come_back_after_the_users_midnight(redis):
    quotas = Quotas(redis, BOOK)
    UserSettingsStore(redis).save(7, UserSettings(timezone="Asia/Tokyo"))
    evening = at("2026-05-10T22:00:00", "Asia/Tokyo")
    for n in range(3):
        assert quotas.start_goal(7, f"g{n}", evening).refusal is None
        redis.set(f"deputy:goal:g{n}", '{"status": "done"}')  # finished: not holding a place
    refused = quotas.start_goal(7, "g3", evening).refusal
    assert refused is not None and (refused.counter, refused.period, refused.limit) == ("goals", "day", 3)
    assert refused.resets == at("2026-05-11T00:00:00", "Asia/Tokyo")
    text = refusal_text(refused, evening, "Asia/Tokyo", BOOK.upgrade)
    assert "today's new goals" in text and "at midnight (Asia/Tokyo time)" in text and "Ask Sam for Plus." in text
    # Past midnight in Tokyo (still the 10th in UTC) the day is fresh; the month still counts.
    after = at("2026-05-11T00:01:00", "Asia/Tokyo")
    assert quotas.start_goal(7, "g4", after).refusal is None
    redis.set("deputy:goal:g4", '{"status": "done"}')
    assert quotas.start_goal(7, "g5", after).refusal is None
    redis.set("deputy:goal:g5", '{"status": "done"}')
    monthly = quotas.start_goal(7, "g6", after).refusal
    assert monthly is not None and monthly.period == "month" and monthly.limit == 5
    assert "on Jun 1" in refusal_text(monthly, after, "Asia/Tokyo", BOOK.upgrade)


def test_a_refused_goal_counts_nothing(redis):
    quotas = Quotas(redis, BOOK)
    now = at("2026-05-10T10:00:00", "UTC")
    quotas.start_goal(1, "a", now)
    quotas.start_goal(1, "b", now)
    assert quotas.start_goal(1, "c", now).refusal.counter == "active_goals"
    assert quotas.usage(1, now).used["day"]["goals"] == 2


def test_goals_in_progress_free_their_place_when_they_finish(redis):
    quotas = Quotas(redis, BOOK)
    now = at("2026-05-10T10:00:00", "UTC")
    redis.set("deputy:goal:a", '{"status": "running", "plan": [{"status": "done"}]}')
    redis.set("deputy:goal:b", '{"status": "scheduled"}')
    assert quotas.start_goal(1, "a", now).refusal is None
    assert quotas.start_goal(1, "b", now).refusal is None
    refused = quotas.start_goal(1, "c", now).refusal
    assert refused.period == "held" and "cancel one with /goals" in refusal_text(refused, now, "UTC", BOOK.upgrade)
    redis.set("deputy:goal:a", '{"status": "cancelled"}')
    assert quotas.start_goal(1, "c", now).refusal is None
    assert quotas.usage(1, now).held == 2


def test_two_goals_racing_for_the_last_place_only_one_gets_it(redis):
    quotas = Quotas(redis, parse_plans('default = "f"\n[plans.f]\ntitle = "F"\nday = { goals = 50 }\n'))
    now = at("2026-05-10T10:00:00", "UTC")
    for n in range(49):
        assert quotas.start_goal(3, f"x{n}", now).refusal is None
    barrier = threading.Barrier(16)
    results: list[bool] = []

    def race(n: int) -> None:
        barrier.wait()
        results.append(quotas.start_goal(3, f"r{n}", now).refusal is None)

    threads = [threading.Thread(target=race, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count(True) == 1
    assert quotas.usage(3, now).used["day"]["goals"] == 50


def test_tokens_counted_per_model_stop_the_goal_once_used_up(redis):
    quotas = Quotas(redis, BOOK)
    now = at("2026-05-10T10:00:00", "UTC")
    quotas.count_tokens(1, "main", 700, now)
    refusal, near = quotas.over_tokens(1, now)
    assert refusal is None and near == []
    quotas.count_tokens(1, "helper", 150, now)  # the helper model has its own, smaller limit
    refusal, _ = quotas.over_tokens(1, now)
    assert (refusal.counter, refusal.period, refusal.limit) == ("tokens:helper", "day", 100)
    assert "use of the model helper" in refusal_text(refusal, now, "UTC", BOOK.upgrade, "go on")


def test_near_a_limit_is_said_once(redis):
    quotas = Quotas(redis, BOOK)
    now = at("2026-05-10T10:00:00", "UTC")
    quotas.count_tokens(1, "main", 850, now)
    _, near = quotas.over_tokens(1, now)
    assert [(n.counter, n.period) for n in near] == [("tokens", "day")]
    assert "85% of today's model use" in near_text(near[0], now, "UTC")
    assert quotas.over_tokens(1, now)[1] == []


def test_background_checks_are_counted_and_refused_over_the_plan(redis):
    quotas = Quotas(redis, BOOK)
    now = at("2026-05-10T10:00:00", "UTC")
    assert quotas.take_check(1, now) is None and quotas.take_check(1, now) is None
    assert quotas.take_check(1, now).counter == "checks"


def test_capabilities_and_held_things_follow_the_plan(redis):
    quotas = Quotas(redis, BOOK)
    assert quotas.capability_refusal(1, "email") is None
    refused = quotas.capability_refusal(1, "purchases")
    assert "doesn't include purchases and anything that spends money" in refusal_text(refused, 0, "UTC", BOOK.upgrade)
    quotas.accounts.set_plan(1, "plus")
    assert quotas.capability_refusal(1, "purchases") is None


def test_a_suspended_user_starts_nothing_and_a_plan_change_applies_at_once(redis):
    quotas = Quotas(redis, BOOK)
    now = at("2026-05-10T10:00:00", "UTC")
    quotas.accounts.set_suspended(1, True)
    refusal = quotas.start_goal(1, "a", now).refusal
    assert "on hold" in refusal_text(refusal, now, "UTC", BOOK.upgrade)
    quotas.accounts.set_suspended(1, False)
    quotas.accounts.set_plan(1, "plus")
    for n in range(10):
        assert quotas.start_goal(1, f"p{n}", now).refusal is None


def test_plan_summary_shows_use_and_resets(redis):
    quotas = Quotas(redis, BOOK)
    UserSettingsStore(redis).save(1, UserSettings(timezone="Europe/Berlin"))
    now = at("2026-05-10T10:00:00", "Europe/Berlin")
    quotas.start_goal(1, "a", now)
    quotas.count_tokens(1, "main", 120, now)
    text = plan_text(quotas.usage(1, now), now, BOOK.upgrade)
    assert "Your plan: Free" in text
    assert "new goals: 1 of 3" in text and "model use: 120 of 1,000" in text
    assert "Today (resets at midnight (Europe/Berlin time))" in text
    assert "This month (resets on Jun 1 (Europe/Berlin time))" in text
    assert "Goals in progress: 1 of 2" in text


def test_invitations_let_a_stranger_in_as_often_as_they_allow(redis):
    quotas = Quotas(redis, BOOK)
    code = quotas.accounts.invite("plus", uses=1)
    assert not quotas.accounts.invited(5)
    assert quotas.accounts.redeem(code, 5) and quotas.accounts.invited(5)
    assert quotas.plan_of(5).title == "Plus"
    assert quotas.accounts.redeem(code, 5)  # the same user again: still in, no use spent
    assert not quotas.accounts.redeem(code, 6)
    assert not quotas.accounts.redeem("nonsense", 6)


def test_a_place_whose_goal_never_got_stored_is_freed_after_a_minute(redis):
    quotas = Quotas(redis, BOOK)
    now = at("2026-05-10T10:00:00", "UTC")
    quotas.start_goal(1, "lost", now)
    quotas.start_goal(1, "b", now)
    assert quotas.start_goal(1, "c", now + 30).refusal is not None  # "lost" may still be on its way
    assert quotas.start_goal(1, "c", now + 61).refusal is None  # erased (or never stored): its place is free
