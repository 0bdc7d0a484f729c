"""/delete_me erases a user's plan counters, but not the operator's suspension of them."""

from __future__ import annotations

from redis import Redis

from deputy.core.accounts.accounts import Accounts, erase_user_account_traces
from deputy.core.records.erasure import Owned
from deputy.core.accounts.quota_store import erase_user_quotas


def test_erasing_a_user_drops_their_counters_and_keeps_a_suspension(redis: Redis) -> None:
    accounts = Accounts(redis)
    accounts.set_suspended(71, True)
    redis.sadd("deputy:accounts", 71, 72)
    redis.set("deputy:quota:71:day:20261202:goals", 3)
    redis.zadd("deputy:quota:71:active", {"g_1": 1.0})
    redis.set("deputy:quota:72:day:20261202:goals", 9)  # someone else's

    owned = Owned(user_id=71)
    erase_user_quotas(redis, owned)
    erase_user_account_traces(redis, owned)

    assert list(redis.scan_iter("deputy:quota:71:*")) == []
    assert redis.get("deputy:quota:72:day:20261202:goals") == b"9", "only that user's counters"
    assert redis.smembers("deputy:accounts") == {b"72"}
    assert accounts.get(71).suspended, "erasing one's data is not a way out of a suspension"


def test_an_account_with_no_operator_decision_goes_entirely(redis: Redis) -> None:
    accounts = Accounts(redis)
    accounts.set_suspended(73, True)
    accounts.set_suspended(73, False)  # resumed: nothing of the operator's left to keep
    erase_user_account_traces(redis, Owned(user_id=73))
    assert not redis.exists(Accounts.key(73))
