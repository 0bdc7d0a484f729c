"""Trip options say where and when the user will be: a confidential user's are sealed to their key."""

from __future__ import annotations

import pytest
from redis import Redis

from deputy.agent.confidential_records import seal_existing
from deputy.connectors.travel.planner import option_for
from deputy.connectors.travel.trip_store import TripStore
from deputy.core.confidential import ConfidentialKeys, Locked
from tests_support import everything_in_redis

from tests.connectors.test_trip_planner import flight, room

USER = 71
PASSPHRASE = "a long passphrase of the traveller"


def an_option():
    option = option_for("Chicago", 1, "USD", [flight("SA101-20270310", "189.10")],
                        [flight("SA151-20270313", "200.45")], [room("hotel-lakeshore-xq", "495.00")])
    assert option is not None
    return option


def test_a_confidential_users_options_are_sealed_and_open_only_while_unlocked(redis: Redis) -> None:
    keys = ConfidentialKeys(redis, b"u" * 32)
    keys.turn_on(USER, PASSPHRASE)
    store, option = TripStore(redis, keys), an_option()
    store.keep(USER, [option])
    dump = everything_in_redis(redis)
    assert "Hotel-Lakeshore-Xq" not in dump and "SA101" not in dump and "Chicago" not in dump
    with pytest.raises(Locked):
        store.get(USER, option.id)
    keys.unlock(USER, PASSPHRASE, 600)
    assert store.get(USER, option.id) == option, "booked exactly as it was offered"
    assert store.erase(USER) == 1


def test_options_kept_before_confidential_mode_are_sealed_when_it_is_turned_on(redis: Redis) -> None:
    keys = ConfidentialKeys(redis, b"u" * 32)
    option = an_option()
    TripStore(redis, keys).keep(USER, [option])
    assert "Hotel-Lakeshore-Xq" in everything_in_redis(redis)
    keys.turn_on(USER, PASSPHRASE)
    keys.unlock(USER, PASSPHRASE, 600)
    seal_existing(redis, USER, keys)
    assert "Hotel-Lakeshore-Xq" not in everything_in_redis(redis)
    assert TripStore(redis, keys).get(USER, option.id) == option
    assert 0 < redis.ttl(next(redis.scan_iter(f"deputy:trip:{USER}:*"))) <= 24 * 3600, "still kept a day only"
