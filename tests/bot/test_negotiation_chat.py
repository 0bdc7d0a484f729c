"""Setting a negotiation mandate in the chat: read by code, confirmed with a tap, paused and stopped by buttons."""

from __future__ import annotations

import time

from redis import Redis

from deputy.agent.goals import GoalStatus
from deputy.bot.negotiation import negotiations_text, propose
from deputy.bot.presses import FORGED, decide_press
from deputy.bot.services import BotServices
from deputy.sentinel.negotiation.mandate import MandateStatus
from deputy.sentinel.stores.mandates import MandateStore

OWNER, STRANGER = 501, 502
WORDS = ("sell my 2017 Civic on the marketplace, listed at $16,500, target $15,500, at least $14,000, steps of $500, "
         "6 rounds, private: moving to Berlin, fact: mileage = 62,000 miles")


def _services(redis: Redis) -> BotServices:
    services = BotServices.create(redis, "negotiation-secret", None)
    now = float(int(time.time()))
    services.clock = lambda: now
    return services


def _press(services: BotServices, kind: str, ident: str, user: int = OWNER):
    return decide_press(services, services.buttons.data(kind, ident, user), user)


def test_a_mandate_is_shown_back_and_only_the_owners_tap_starts_the_negotiation(redis: Redis) -> None:
    services = _services(redis)
    text, buttons = propose(services, OWNER, WORDS)
    assert "floor $14,000" in text and "target $15,500" in text and "steps of at most $500" in text
    assert [label for label, _, _ in buttons] == ["Confirm", "Cancel"]
    store = MandateStore(redis)
    assert store.goal_ids(OWNER) == [], "nothing is stored before the tap"
    proposal = buttons[0][2]
    # Someone else's press, or data they made up, does nothing.
    assert decide_press(services, services.buttons.data("nc", proposal, STRANGER), OWNER) == FORGED
    answer = _press(services, "nc", proposal)
    assert "Confirmed" in (answer.card_suffix or "")
    [goal_id] = store.goal_ids(OWNER)
    mandate, _ = store.get(OWNER, goal_id)
    assert mandate.status is MandateStatus.active and mandate.private == ["moving to Berlin"]
    assert mandate.counterparts == ["market:*"] and mandate.facts == {"mileage": "62,000 miles"}
    assert services.goals.get(goal_id).text == WORDS
    # The same proposal cannot start a second negotiation.
    assert "expired or was already answered" in _press(services, "nc", proposal).toast
    assert "floor $14,000" in negotiations_text(services, OWNER)


def test_missing_limits_are_asked_for_not_guessed(redis: Redis) -> None:
    text, buttons = propose(_services(redis), OWNER, "sell my bike on the marketplace, target $300")
    assert buttons == [] and "lowest price" in text


def test_pause_resume_stop_and_change_from_the_chat(redis: Redis) -> None:
    services = _services(redis)
    _, buttons = propose(services, OWNER, WORDS)
    _press(services, "nc", buttons[0][2])
    store = MandateStore(redis)
    [goal_id] = store.goal_ids(OWNER)
    assert "/negotiate change" in _press(services, "na", goal_id).toast
    assert "Paused" in _press(services, "np", goal_id).toast
    assert store.get(OWNER, goal_id)[0].status is MandateStatus.paused
    assert services.goals.get(goal_id).status is GoalStatus.paused
    _press(services, "nr", goal_id)
    assert store.get(OWNER, goal_id)[0].status is MandateStatus.active
    text, change = propose(services, OWNER, "change at least $14,500, 8 rounds")
    assert "floor $14,500" in text and "8 rounds" in text
    _press(services, "nc", change[0][2])
    changed = store.get(OWNER, goal_id)[0]
    assert changed.reservation == 14500 and changed.max_rounds == 8 and changed.target == 15500
    _press(services, "ns", goal_id)
    assert store.get(OWNER, goal_id)[0].status is MandateStatus.stopped
    assert services.goals.get(goal_id).status is GoalStatus.cancelled


def test_a_deadline_in_the_users_words_is_resolved_in_their_zone_and_echoed(redis: Redis) -> None:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore

    services = _services(redis)
    berlin = ZoneInfo("Europe/Berlin")
    wednesday = datetime(2026, 12, 2, 9, 0, tzinfo=berlin).timestamp()
    services.clock = lambda: wednesday
    UserSettingsStore(redis).save(OWNER, UserSettings(timezone="Europe/Berlin"))
    text, buttons = propose(services, OWNER, "sell my bike on the marketplace, at least $200, by Friday")
    assert "until Fri 4 Dec 23:59 CET" in text and buttons
    _press(services, "nc", buttons[0][2])
    [goal_id] = MandateStore(redis).goal_ids(OWNER)
    friday_night = datetime(2026, 12, 4, 23, 59, tzinfo=berlin).timestamp()
    assert MandateStore(redis).get(OWNER, goal_id)[0].deadline == friday_night
    text, _ = propose(services, OWNER, "sell my bike on the marketplace, at least $200, by 5pm tomorrow")
    assert "until Thu 3 Dec 17:00 CET" in text


def test_walk_away_conditions_are_read_or_asked_about_before_confirming(redis: Redis) -> None:
    services = _services(redis)
    text, buttons = propose(services, OWNER, WORDS + ", walk away if they want a deposit or won't meet in person")
    assert "walks away if they want a deposit or won't meet in person" in text and buttons
    text, buttons = propose(services, OWNER, WORDS + ", walk away if the vibe is off")
    assert buttons == [] and "I can't check “the vibe is off” myself" in text
