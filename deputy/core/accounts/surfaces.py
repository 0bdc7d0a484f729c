"""Which chat app (surface) a Deputy account is reached on: Telegram or WhatsApp.

Deputy accounts are keyed by a chat user id. Telegram gives its own ids; a WhatsApp number
(its `wa_id`, digits only) gets the id ``WHATSAPP_ID_OFFSET + wa_id``, a range Telegram ids
never reach (they fit in 52 bits), until the person links WhatsApp to their Telegram account:
then the number points at the Telegram id and both apps share one account.

A linked account's messages go to the app the person last wrote from. Each outbox entry is
pinned to one surface by whichever consumer sees it first, so a switch of app between two
consumers' reads can neither deliver a message twice nor drop it.
"""

from __future__ import annotations

from typing import Literal

import redis.asyncio as aioredis
from redis import Redis

from deputy.core.records.erasure import Owned, delete_keys

Surface = Literal["telegram", "whatsapp"]

WHATSAPP_ID_OFFSET = 8_000_000_000_000_000
"""Above every Telegram id (< 2**52), below 2**53 once a number of up to 15 digits is added."""
WHATSAPP_BOT_ID = 7_999_999_999_999_999
"""The id the WhatsApp surface's bot answers `getMe` with (keys per-bot state apart from Telegram's)."""

ACCOUNT_KEY = "deputy:wa:account:{}"  # wa_id -> account id, once linked
NUMBER_KEY = "deputy:wa:number:{}"  # account id -> wa_id (where its WhatsApp messages go)
SURFACE_KEY = "deputy:surface:{}"  # account id -> the surface last written from (linked accounts)
# The WhatsApp surface's own records (deputy.whatsapp.store writes them), declared here for the erasure.
WA_TEXT_KEY = "deputy:wa:text:{}:{}"  # account, message number -> text of the bot's message
WA_MESSAGE_SEQ_KEY = "deputy:wa:msgseq:{}"  # account -> last message number
WA_WAMID_KEY = "deputy:wa:wamid:{}"  # wamid -> "account:message number"
WA_LAST_IN_KEY = "deputy:wa:last_in:{}"  # wa_id -> when the user last wrote
WA_TOLD_KEY = "deputy:wa:told:{}"  # wa_id -> told how news arrives after a day of silence
WA_DEFERRED_KEY = "deputy:wa:deferred:{}"  # wa_id -> messages waiting for the 24-hour window
WA_REFUSED_KEY = "deputy:wa:refused:{}:{}"  # account, message number -> already re-sent as a template
_ROUTE_KEY = "deputy:outbox:route:{}"  # outbox entry id -> the surface it was pinned to
_ROUTE_SECONDS = 7 * 24 * 3600
_MAX_WA_ID = 10**15


def default_account(wa_id: str) -> int:
    """The account id of a WhatsApp number that was never linked."""
    if not wa_id.isdigit() or int(wa_id) >= _MAX_WA_ID:
        raise ValueError("a WhatsApp id is a phone number of at most 15 digits")
    return WHATSAPP_ID_OFFSET + int(wa_id)


def is_whatsapp_only(account_id: int) -> bool:
    return account_id >= WHATSAPP_ID_OFFSET


async def account_for(redis: aioredis.Redis, wa_id: str) -> int:
    linked = await redis.get(ACCOUNT_KEY.format(wa_id))
    return int(linked) if linked is not None else default_account(wa_id)


async def number_for(redis: aioredis.Redis, account_id: int) -> str | None:
    raw = await redis.get(NUMBER_KEY.format(int(account_id)))
    return raw.decode() if raw is not None else None


async def surface_of(redis: aioredis.Redis, account_id: int) -> Surface:
    """Where news for this account goes now."""
    return (await _current(redis, account_id))[1]


async def _current(redis: aioredis.Redis, account_id: int) -> tuple[bool, Surface]:
    """(linked to both apps, the surface news goes to now)."""
    if is_whatsapp_only(account_id):
        return False, "whatsapp"
    pipe = redis.pipeline(transaction=False)
    pipe.exists(NUMBER_KEY.format(int(account_id)))
    pipe.get(SURFACE_KEY.format(int(account_id)))
    linked, last = await pipe.execute()
    return bool(linked), "whatsapp" if linked and last == b"whatsapp" else "telegram"


async def pin_route(redis: aioredis.Redis, entry_id: str, account_id: int) -> Surface:
    """The surface that delivers outbox entry `entry_id`, the same answer for every consumer."""
    linked, surface = await _current(redis, account_id)
    if not linked:
        return surface  # only one surface can ever answer: nothing to pin
    key = _ROUTE_KEY.format(entry_id)
    if await redis.set(key, surface, nx=True, ex=_ROUTE_SECONDS):
        return surface
    return "whatsapp" if await redis.get(key) == b"whatsapp" else "telegram"


def erase_user_surfaces(redis: Redis, owned: Owned) -> int:
    """The account's WhatsApp number and link, its window and message records, its last app."""
    user = int(owned.user_id)
    raw = redis.get(NUMBER_KEY.format(user))
    keys: list[str | bytes] = [NUMBER_KEY.format(user), SURFACE_KEY.format(user), WA_MESSAGE_SEQ_KEY.format(user)]
    keys += redis.scan_iter(WA_TEXT_KEY.format(user, "*"))
    keys += redis.scan_iter(WA_REFUSED_KEY.format(user, "*"))
    keys += [k for k in redis.scan_iter(WA_WAMID_KEY.format("*")) if (redis.get(k) or b"").startswith(f"{user}:".encode())]
    if raw is not None:
        wa_id = raw.decode()
        keys += [WA_LAST_IN_KEY.format(wa_id), WA_TOLD_KEY.format(wa_id), WA_DEFERRED_KEY.format(wa_id)]
        if redis.get(ACCOUNT_KEY.format(wa_id)) == str(user).encode():
            keys.append(ACCOUNT_KEY.format(wa_id))  # the number no longer joins this account
    return delete_keys(redis, keys)
