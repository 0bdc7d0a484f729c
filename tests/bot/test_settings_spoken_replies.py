"""/settings voice on|off: each user's own choice about spoken replies, where the operator offers them."""

from __future__ import annotations

import dataclasses

from redis import Redis

from deputy.bot.services import BotServices
from deputy.bot.spoken_replies import wants_spoken_replies
from tests.bot.test_settings_rates import settings

ANN, BEN = 881, 882


def test_a_user_turns_spoken_replies_off_for_themselves_only(redis: Redis) -> None:
    services = dataclasses.replace(BotServices.create(redis, "secret", None), spoken_replies=True)
    assert "Answers to your voice notes as voice notes too: yes\n" in settings(services, ANN)
    assert wants_spoken_replies(redis, ANN)
    assert "Answers to your voice notes as voice notes too: no\n" in settings(services, ANN, "voice off")
    assert not wants_spoken_replies(redis, ANN) and wants_spoken_replies(redis, BEN)
    assert "/settings voice on|off" in settings(services, ANN, "voice loud")
    assert wants_spoken_replies(redis, ANN) is False, "a word that is neither on nor off changes nothing"
    settings(services, ANN, "voice on")
    assert wants_spoken_replies(redis, ANN)


def test_where_the_operator_does_not_offer_them_the_settings_say_so(redis: Redis) -> None:
    services = BotServices.create(redis, "secret", None)
    assert "voice notes too: yes (not offered here)" in settings(services, ANN)
