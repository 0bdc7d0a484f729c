"""Digests of long goals, written by code: a week-long watch on the sandbox ticket API tells the
user once a week what its checks found, how the price moved and what is next, with no model call.
Real parts: the ticket site over its OpenAPI description through the egress guard, the executor,
Redis. The clock is the test's."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import httpx
import pytest
from redis import Redis

from deputy.agent.goal_tally import GoalTally, count_action
from deputy.agent.goals import Goal, Monitor
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import FunctionModel, tool_call
from deputy.agent.watch import digests
from deputy.connectors.default import default_catalog
from deputy.connectors.http.client import guarded_client
from deputy.connectors.openapi.document import fetch_openapi
from deputy.connectors.openapi.importer import import_openapi
from deputy.connectors.openapi.runner import OpenApiRunner
from deputy.core.records.actions import Action, ActionState
from deputy.core.records.effects import EffectClass
from deputy.sandbox.tickets import OFFICE, create_app
from deputy.sandbox.webapp_common import SiteServer
from deputy.sentinel.egress.policy import EgressContext, EgressPolicy, reviewer
from deputy.testing.inline import InlineDeputy

USER = 81
DAY = 86400


@pytest.fixture
def tickets() -> Iterator[tuple[Any, str]]:
    app = create_app()
    site = SiteServer(app)
    url = site.start()
    yield app, url
    site.stop()


def watch(redis: Redis, url: str, checks: dict[str, Any]) -> tuple[InlineDeputy, FunctionModel, httpx.Client]:
    with httpx.Client(trust_env=False) as plain:
        api = import_openapi(fetch_openapi(plain, f"{url}/openapi.json"), service="tickets")
    client = guarded_client(reviewer(EgressPolicy(allow_private_networks=[url.removeprefix("http://")]),
                                     EgressContext()), connector="openapi", timeout=5)

    def decide(messages: list[dict[str, Any]], tools: Any) -> ModelReply:
        return tool_call("schedule_check", what="Hamlet seats under 80 USD", **checks,
                         probe={"tool": "tickets_get_event", "arguments": {"event_id": "hamlet"},
                                "compare": "threshold", "field": "sections.*.price", "below": 80})

    model = FunctionModel(decide)
    catalog = default_catalog().merged(api.catalog())
    return InlineDeputy(redis, model, catalog, OpenApiRunner(api, client).runners()), model, client


def test_a_week_long_watch_sends_a_weekly_digest_with_the_right_figures_and_no_model_call(
    redis: Redis, tickets: tuple[Any, str]
) -> None:
    app, url = tickets
    hamlet = app[OFFICE].events["hamlet"]
    hamlet.sections[0].price, hamlet.sections[1].price = Decimal(95), Decimal(120)
    deputy, model, client = watch(redis, url, {"every_minutes": 24 * 60, "max_checks": 21})
    deputy.start(USER, "tell me when a Hamlet ticket drops below $80 over the next three weeks", goal_id="g_week")
    assert digests.digest_choice(deputy.goal("g_week")) == "weekly", "weekly by default for a watch over a week"

    for day, price in enumerate((93, 91, 90, 88, 86, 84, 83), start=1):
        hamlet.sections[0].price = Decimal(price)
        deputy.tick(DAY)
        if day < 6:
            assert deputy.messages() == [], f"nothing before the week is over (day {day})"
    # Day 6: 84 is within 5 % of the limit of 80, so the plan may be stale: the change is offered once.
    offer, digest = deputy.messages()
    assert offer.text == ("💡 “Hamlet seats under 80 USD”: sections.*.price is 84, only 4 above your limit of 80. "
                          "If 84 is good enough, press Edit and say so; I'll go on as it is otherwise.")
    assert [b.text for b in offer.buttons[0]] == ["Edit", "Keep"] and offer.proactive
    text = digest.text
    assert text.startswith("🗞 Weekly digest: “Hamlet seats under 80 USD”")
    assert "• 7 checks run (7 in all); nothing new found" in text
    assert "sections.*.price now 83" in text and "12 better than when I started (95)" in text
    assert "14 checks left" in text
    # The digest offers it again with the figure of the day; the user decides.
    assert "only 3 above your limit of 80" in text
    assert digest.proactive, "a digest is unprompted news: held in quiet hours"
    assert [b.text for b in digest.buttons[0]] == ["Daily digest", "No digest"]
    assert len(model.calls) == 1, "the digest and the quiet checks called no model"

    # The next week's digest counts from this one; turned off, none comes.
    hamlet.sections[0].price = Decimal(82)
    for _ in range(7):
        deputy.tick(DAY)
    second = deputy.messages()[-1].text
    assert "• 7 checks run (14 in all)" in second and "(was 83 at the last digest)" in second
    deputy.goals.update("g_week", lambda g: _set(g, "off"))
    for _ in range(7):
        deputy.tick(DAY)
    after = deputy.sent()[3:]
    assert [t for t in after if "digest" in t] == [] and after[-1].startswith("I stopped watching"), after
    client.close()


def test_a_daily_choice_sends_one_each_day_and_a_short_watch_gets_none_by_default(
    redis: Redis, tickets: tuple[Any, str]
) -> None:
    app, url = tickets
    hamlet = app[OFFICE].events["hamlet"]
    hamlet.sections[0].price, hamlet.sections[1].price = Decimal(99), Decimal(120)
    deputy, model, client = watch(redis, url, {"every_minutes": 6 * 60, "max_checks": 12})  # three days
    deputy.start(USER, "watch Hamlet for three days", goal_id="g_short")
    assert digests.digest_choice(deputy.goal("g_short")) == "off"
    for _ in range(4):
        deputy.tick(6 * 3600)
    assert deputy.messages() == []
    deputy.goals.update("g_short", lambda g: _set(g, "daily"))
    for _ in range(4):
        deputy.tick(6 * 3600)
    [daily] = deputy.messages()
    assert daily.text.startswith("🗞 Daily digest") and "• 4 checks run (8 in all)" in daily.text
    client.close()


def test_cards_answers_and_money_are_counted_from_the_goals_actions() -> None:
    tally = GoalTally()

    def action(effect: EffectClass, amount: str | None = None) -> Action:
        return Action(id="a", goal_id="g", user_id=1, chat_id=1, connector="shop", operation="buy", effect=effect,
                      arguments={}, created_at=0, tool_call_id="c", amount=Decimal(amount) if amount else None,
                      currency="usd" if amount else None)

    count_action(tally, action(EffectClass.spend, "40"), ActionState.succeeded, carded=True)
    count_action(tally, action(EffectClass.spend, "25.50"), ActionState.succeeded, carded=False)
    count_action(tally, action(EffectClass.spend, "99"), ActionState.declined, carded=True)
    count_action(tally, action(EffectClass.read), ActionState.succeeded, carded=False)
    assert (tally.cards, tally.approved, tally.declined, tally.actions_done) == (2, 1, 1, 2)
    assert tally.spent == {"USD": "65.50"}

    goal = Goal(id="g", user_id=1, chat_id=1, text="sell my bike", created_at=0, updated_at=0,
                monitor=Monitor(what="offers for the bike", next_at=9 * DAY, every_seconds=DAY, max_checks=30,
                                checks_done=8), tally=tally, done=["shop.buy (40 USD)", "shop.buy (25.50 USD)"])
    goal.monitor.digest_mark = digests.mark_now(goal, 0)
    goal.monitor.digest_mark.tally = GoalTally()
    goal.monitor.digest_mark.checks_done = 1
    text = digests.digest_text(goal, 8 * DAY)
    assert "• 7 checks run (8 in all)" in text
    assert "• 2 cards for you: 1 approved, 1 declined or expired" in text
    assert "• 2 actions done:\n   – shop.buy (40 USD)\n   – shop.buy (25.50 USD)" in text
    assert "• Spent: 65.50 USD" in text and "22 checks left" in text


def _set(goal: Goal, choice: str) -> Goal:
    assert goal.monitor is not None
    goal.monitor.digest = choice  # type: ignore[assignment]
    return goal


def test_the_digest_counts_the_cards_answers_and_money_of_the_goals_own_actions(redis: Redis) -> None:
    from deputy.agent.model.testing import message_text
    from deputy.sandbox.world import World
    from deputy.sandbox.world_operations import world_catalog
    from deputy.sentinel.stores.approvals import Choice

    def decide(messages: list[dict[str, Any]], tools: Any) -> ModelReply:
        last = message_text(messages[-1])
        if messages[-1].get("role") == "tool" and "Scheduled" not in last:
            return tool_call("no_news")
        if "(Scheduled check 3 of" in last or "(Scheduled check 5 of" in last:
            return tool_call("buy", item_id="ink-black", quantity=1, unit_price="12.50", currency="USD")
        if "Scheduled check" in last:
            return tool_call("no_news")
        return tool_call("schedule_check", what="printer ink deals", every_minutes=24 * 60, max_checks=21)

    world = World()
    deputy = InlineDeputy(redis, FunctionModel(decide), world_catalog(), world.runners(), approval_ttl=30 * DAY)
    deputy.start(USER, "keep an eye on printer ink deals for three weeks and buy one black cartridge (ink-black) at $12.50 "
                 "when it is on offer",
                 goal_id="g_ink")
    for day in range(1, 8):
        deputy.tick(DAY)
        goal = deputy.goal("g_ink")
        if goal.pending_action_id:
            record = deputy.actions.get(goal.pending_action_id)
            if record is not None and record.approval_id:
                deputy.press(record.approval_id, USER, Choice.approve if day == 3 else Choice.deny)
    digest = next(text for text in deputy.sent() if text.startswith("🗞 Weekly digest"))
    assert "• 2 cards for you: 1 approved, 1 declined or expired" in digest, digest
    assert "• 1 action done:" in digest and "• Spent: 12.50 USD" in digest, digest
    assert len(world.executed) == 1


def test_a_negotiating_goals_watch_digest_tells_its_rounds_and_offers(redis: Redis, tickets: tuple[Any, str]) -> None:
    from bench.negotiation_eval.scenarios import CAR
    from deputy.sentinel.negotiation.state import NegotiationState, record_ours, record_theirs
    from deputy.sentinel.stores.mandates import MandateStore

    app, url = tickets
    hamlet = app[OFFICE].events["hamlet"]
    hamlet.sections[0].price, hamlet.sections[1].price = Decimal(95), Decimal(120)
    deputy, _, client = watch(redis, url, {"every_minutes": 24 * 60, "max_checks": 21})
    now = deputy.clock()
    state = record_ours(NegotiationState(), "market:c1", Decimal(16200), "I can do $16,200.", now + 60)
    state = record_theirs(state, "market:c1", "I'd pay $14,900.", CAR, now + 120)
    store = MandateStore(redis)
    store.put(USER, "g_neg_watch", CAR)
    store.update_state(USER, "g_neg_watch", lambda m, s: state)
    deputy.start(USER, "sell my Civic, and check the tickets meanwhile", goal_id="g_neg_watch")
    for _ in range(7):
        deputy.tick(DAY)
    client.close()
    [digest] = [m for m in deputy.messages() if m.text.startswith("🗞 Weekly digest")]
    assert ("🤝 Negotiating my 2017 Honda Civic:\n• market:c1: 1 offer from me, 1 message from them; round 1/6; "
            "their last $14,900, mine $16,200\n• Best offer so far: $14,900, $600 from your target of $15,500.\n"
            "Next: ") in digest.text
