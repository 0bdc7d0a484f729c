"""Goals started by a button count against the plan like typed ones: a Book press (or a check-in's yes)
over the plan's goal limit gets the plan's refusal words in the chat, starts nothing, and loses
nothing (the card's buttons work again once there is room). Real Redis and the real quota counters."""

from __future__ import annotations

import base64
import time

import numpy as np
from redis import Redis

from deputy.agent.check_in_offers import CheckInOffer, CheckInOffers
from deputy.agent.suggestions.listings import Listing
from deputy.agent.suggestions.suggestion_round import Suggestion, keep_suggestion
from deputy.bot.button_goals import NO_ROOM
from deputy.bot.check_in_presses import press_check_in
from deputy.bot.services import BotServices
from deputy.bot.suggestion_presses import press_suggestion
from deputy.core.accounts.plans import parse_plans
from deputy.core.records.outbox import OUTBOX_STREAM, OutboxMessage

USER = 311
NOW = float(int(time.time()))
PLANS = parse_plans('default = "free"\nupgrade = "Ask Sam for Plus."\n[plans.free]\ntitle = "Free"\n'
                    'day = { goals = 1 }\n')


def services_with_plans(redis: Redis) -> BotServices:
    services = BotServices.create(redis, "button-goal-secret", None, plans=PLANS)
    services.clock = lambda: NOW
    return services


def chat(redis: Redis) -> list[str]:
    return [OutboxMessage.model_validate_json(f[b"json"]).text for _, f in redis.xrange(OUTBOX_STREAM)]


def goals_started(redis: Redis) -> list[bytes]:
    """The goal records in Redis (a goal's reads live beside its record under a longer key)."""
    return [key for key in redis.keys("deputy:goal:*") if key.count(b":") == 2]


def a_suggestion(redis: Redis) -> Suggestion:
    listing = Listing(id="tickets:jazz-trio", service="tickets", title="Jazz Trio", place="The Blue Room",
                      price="40.00", starts_at=NOW + 3 * 86400)
    suggestion = Suggestion(id="sg_test1", user_id=USER, chat_id=USER, listing=listing, line="Jazz Trio",
                            interest="jazz", vector=base64.b64encode(np.zeros(4, np.float32).tobytes()).decode())
    keep_suggestion(redis, suggestion)
    return suggestion


def test_book_over_the_plans_goal_limit_gets_the_plans_refusal_and_keeps_the_card(redis: Redis) -> None:
    services = services_with_plans(redis)
    assert services.quotas.start_goal(USER, "g_typed", NOW).refusal is None  # today's one goal, typed
    suggestion = a_suggestion(redis)

    answer = press_suggestion(services, "xb", suggestion.id, USER)

    assert answer.toast == NO_ROOM and answer.alert
    [said] = chat(redis)
    assert said.startswith("You have used today's new goals on your Free plan (limit 1), so I can't start this "
                           "booking. It resets ")
    assert said.endswith("Ask Sam for Plus. /plan shows what you have used.")
    assert goals_started(redis) == [], "nothing started"
    # Tomorrow there is room again, and the same card's Book still works.
    services.clock = lambda: NOW + 86400
    started = press_suggestion(services, "xb", suggestion.id, USER)
    assert started.toast == "Starting the booking."
    assert len(goals_started(redis)) == 1


def test_a_check_in_yes_over_the_limit_is_refused_the_same_way(redis: Redis) -> None:
    services = services_with_plans(redis)
    assert services.quotas.start_goal(USER, "g_typed", NOW).refusal is None
    offer = CheckInOffer(id="ci_test1", user_id=USER, chat_id=USER, words="my interview is on Thursday",
                         starts=NOW + 2 * 86400, has_clock=False, zone="UTC", after_at=NOW + 3 * 86400)
    CheckInOffers(redis).put_back(offer, NOW)

    answer = press_check_in(services, "ka", offer.id, USER)

    assert answer.toast == NO_ROOM
    assert chat(redis)[0].startswith("You have used today's new goals on your Free plan (limit 1), so I can't set "
                                     "this check-in.")
    assert goals_started(redis) == []
    assert CheckInOffers(redis).take(USER, offer.id) is not None, "the card's buttons still work"


def test_keep_on_an_offered_change_leaves_the_goal_as_it_is(redis: Redis) -> None:
    from deputy.agent.goals import Goal
    from deputy.bot.goal_controls import press_goal_control

    services = services_with_plans(redis)
    goal = services.goals.save(Goal(id="g_watch", user_id=USER, chat_id=USER, text="watch the fare",
                                    created_at=NOW, updated_at=NOW))
    answer = press_goal_control(services, "gk", goal.id, USER)
    assert (answer.toast, answer.card_suffix) == ("Kept as it is.", "👍 Kept as it is.")
    assert services.goals.get(goal.id).revision == goal.revision, "nothing about the goal changed"


def test_a_negotiations_confirm_over_the_limit_is_refused_and_can_be_pressed_again(redis: Redis) -> None:
    from deputy.bot.negotiation import press_negotiation, propose

    services = services_with_plans(redis)
    assert services.quotas.start_goal(USER, "g_typed", NOW).refusal is None
    _, buttons = propose(services, USER, "sell my bike on the marketplace, target $400, at least $300, steps of $20")
    [(_, _, proposal)] = [b for b in buttons if b[1] == "nc"]

    assert press_negotiation(services, "nc", proposal, USER).toast == NO_ROOM
    assert "so I can't start this negotiation." in chat(redis)[0]
    assert goals_started(redis) == []
    services.clock = lambda: NOW + 86400
    assert press_negotiation(services, "nc", proposal, USER).toast == "Negotiation started."
