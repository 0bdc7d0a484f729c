"""Which app a message goes to, one-time link codes, and what erasing an account removes."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis
from redis import Redis

from deputy.core.accounts.account_links import AccountLinks, LinkError
from deputy.core.records.erasure import Owned
from deputy.core.accounts.surfaces import (
    ACCOUNT_KEY,
    NUMBER_KEY,
    SURFACE_KEY,
    account_for,
    default_account,
    erase_user_surfaces,
    pin_route,
)
from deputy.testing.stack import RedisServer

WA = "15550003003"


@pytest.fixture
async def aredis(redis_server: RedisServer, redis: Redis):
    client = aioredis.Redis.from_url(redis_server.url)
    yield client
    await client.aclose()


async def test_each_message_goes_to_exactly_one_app_even_when_the_user_switches(redis: Redis, aredis) -> None:
    assert await pin_route(aredis, "1-0", 42) == "telegram"
    assert await pin_route(aredis, "1-0", default_account(WA)) == "whatsapp"
    redis.set(NUMBER_KEY.format(42), WA)  # linked
    redis.set(SURFACE_KEY.format(42), "whatsapp")
    assert await pin_route(aredis, "2-0", 42) == "whatsapp"
    redis.set(SURFACE_KEY.format(42), "telegram")  # the user wrote on Telegram in between
    assert await pin_route(aredis, "2-0", 42) == "whatsapp", "the other consumer gets the same answer"
    assert await pin_route(aredis, "3-0", 42) == "telegram"


async def test_a_code_links_a_whatsapp_number_to_the_telegram_account_once(redis: Redis, aredis) -> None:
    links = AccountLinks(redis)
    wa_account = default_account(WA)
    redis.set(NUMBER_KEY.format(wa_account), WA)
    code = links.issue(42, "telegram")
    with pytest.raises(LinkError, match="other app"):
        links.redeem(code, 42, "telegram")
    linked = links.redeem(code.lower(), wa_account, "whatsapp")
    assert (linked.account_id, linked.wa_id) == (42, WA)
    assert await account_for(aredis, WA) == 42
    with pytest.raises(LinkError, match="unknown or has expired"):
        links.redeem(code, wa_account, "whatsapp")


def test_erasing_an_account_removes_its_number_link_window_and_records(redis: Redis) -> None:
    redis.set(NUMBER_KEY.format(42), WA)
    redis.set(ACCOUNT_KEY.format(WA), 42)
    redis.set(SURFACE_KEY.format(42), "whatsapp")
    redis.set(f"deputy:wa:last_in:{WA}", "1.0")
    redis.set("deputy:wa:text:42:3", "Send this email?")
    redis.set("deputy:wa:wamid:wamid.abc", "42:3")
    redis.set("deputy:wa:wamid:wamid.other", "43:1")
    erase_user_surfaces(redis, Owned(user_id=42))
    assert sorted(k.decode() for k in redis.keys("*")) == ["deputy:wa:wamid:wamid.other"]


def test_a_code_from_whatsapp_redeemed_on_telegram_joins_the_same_way(redis: Redis) -> None:
    links = AccountLinks(redis)
    wa_account = default_account(WA)
    redis.set(NUMBER_KEY.format(wa_account), WA)
    code = links.issue(wa_account, "whatsapp")
    linked = links.redeem(f" {code[:4]}-{code[4:]} ", 42, "telegram")
    assert (linked.account_id, linked.wa_id) == (42, WA)
    assert redis.get(ACCOUNT_KEY.format(WA)) == b"42" and redis.get(SURFACE_KEY.format(42)) == b"telegram"


async def test_a_username_user_gets_one_account_of_their_own_and_erasure_forgets_it(aredis, redis: Redis) -> None:
    from deputy.core.accounts.surfaces import USER_ID_ACCOUNTS, WA_USER_ID_KEY, also_known_as, is_whatsapp_only

    first = await account_for(aredis, "US.13491208655302741918")
    assert first > USER_ID_ACCOUNTS and is_whatsapp_only(first) and first < 2**53
    assert await account_for(aredis, "US.13491208655302741918") == first
    assert await account_for(aredis, "BR.1502576394655843") not in (first, default_account(WA))
    await also_known_as(aredis, "US.999", default_account(WA))
    assert await account_for(aredis, "US.999") == default_account(WA), "a withheld number keeps its account"
    redis.set(NUMBER_KEY.format(first), "US.13491208655302741918")
    erase_user_surfaces(redis, Owned(user_id=first))
    assert redis.get(ACCOUNT_KEY.format("US.13491208655302741918")) is None
    assert redis.get(WA_USER_ID_KEY.format(first)) is None


async def test_linking_carries_the_numbers_user_id_along(aredis, redis: Redis) -> None:
    from deputy.core.accounts.surfaces import also_known_as

    whatsapp = default_account(WA)
    redis.set(NUMBER_KEY.format(whatsapp), WA)
    await also_known_as(aredis, "US.4242", whatsapp)
    links = AccountLinks(redis)
    code = links.issue(77, "telegram")
    links.redeem(code, whatsapp, "whatsapp")
    assert await account_for(aredis, "US.4242") == 77, "the withheld-number name joins the linked account too"
