"""Which chat app (surface) a Deputy account is reached on: Telegram or WhatsApp.

Deputy accounts are keyed by a chat user id. Telegram gives its own ids; a WhatsApp number
(its `wa_id`, digits only) gets the id ``WHATSAPP_ID_OFFSET + wa_id``, a range Telegram ids
never reach (they fit in 52 bits), until the person links WhatsApp to their Telegram account:
then the number points at the Telegram id and both apps share one account.

A WhatsApp user with a username may withhold their number: WhatsApp then names them by a
business-scoped user id (``US.13491208655302741918``, not all digits). Such a user gets the next
id of a range of its own (above every number's), kept under that user id, so they have one
account every time they write. When a message names both the number and the user id, the user
id is kept as another name of the number's account: the day the number is withheld, the same
account answers.

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
WA_FAILED_KEY = "deputy:wa:failed:{}:{}"  # account, message number -> its failed delivery already handled
WA_MISSED_KEY = "deputy:wa:missed:{}"  # wa_id -> texts WhatsApp could not deliver, said when the user writes
WA_BACKLOG_KEY = "deputy:wa:backlog:{}"  # wa_id -> messages waiting out a rate limit, in order
WA_BACKLOG_TRIES_KEY = "deputy:wa:backlog_tries:{}"  # wa_id -> rate-limit refusals in a row
WA_USER_ID_KEY = "deputy:wa:user_id:{}"  # account -> its business-scoped user id (a username user)
_ROUTE_KEY = "deputy:outbox:route:{}"  # outbox entry id -> the surface it was pinned to
_ROUTE_SECONDS = 7 * 24 * 3600
_MAX_WA_ID = 10**15
USER_ID_ACCOUNTS = WHATSAPP_ID_OFFSET + _MAX_WA_ID
"""Accounts of users known only by a business-scoped user id: the next number above this."""
_USER_ID_SEQ_KEY = "deputy:wa:user_id_seq"
_MAX_ACCOUNT = 2**53  # ids travel as JSON numbers (Telegram's chat ids)
MAX_USER_ID = 160


def default_account(wa_id: str) -> int:
    """The account id of a WhatsApp number that was never linked."""
    if not wa_id.isdigit() or int(wa_id) >= _MAX_WA_ID:
        raise ValueError("a WhatsApp id is a phone number of at most 15 digits")
    return WHATSAPP_ID_OFFSET + int(wa_id)


def is_whatsapp_only(account_id: int) -> bool:
    return account_id >= WHATSAPP_ID_OFFSET


def is_user_id(address: str) -> bool:
    """A business-scoped user id (a username user whose number is withheld), not a phone number."""
    return (0 < len(address) <= MAX_USER_ID and not address.isdigit()
            and all(c.isalnum() or c in "._-" for c in address) and address.isascii())


async def account_for(redis: aioredis.Redis, wa_id: str) -> int:
    """The account of a WhatsApp number, or of a business-scoped user id (given one the first time)."""
    linked = await redis.get(ACCOUNT_KEY.format(wa_id))
    if linked is not None:
        return int(linked)
    if not is_user_id(wa_id):
        return default_account(wa_id)
    candidate = USER_ID_ACCOUNTS + int(await redis.incr(_USER_ID_SEQ_KEY))
    if candidate >= _MAX_ACCOUNT:
        raise ValueError("no account ids left for WhatsApp user ids")
    if await redis.set(ACCOUNT_KEY.format(wa_id), candidate, nx=True):
        await redis.set(WA_USER_ID_KEY.format(candidate), wa_id)
        return candidate
    return int(await redis.get(ACCOUNT_KEY.format(wa_id)) or candidate)  # another message of theirs won


async def also_known_as(redis: aioredis.Redis, user_id: str, account_id: int) -> None:
    """Keep `user_id` as another name of the account (a message gave both the number and the user id)."""
    if is_user_id(user_id) and await redis.set(ACCOUNT_KEY.format(user_id), int(account_id), nx=True):
        await redis.set(WA_USER_ID_KEY.format(int(account_id)), user_id)


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
    keys += redis.scan_iter(WA_FAILED_KEY.format(user, "*"))
    alias = redis.get(WA_USER_ID_KEY.format(user))
    keys.append(WA_USER_ID_KEY.format(user))
    for address in {raw.decode() if raw is not None else None, alias.decode() if alias is not None else None} - {None}:
        keys += [WA_LAST_IN_KEY.format(address), WA_TOLD_KEY.format(address), WA_DEFERRED_KEY.format(address),
                 WA_MISSED_KEY.format(address), WA_BACKLOG_KEY.format(address), WA_BACKLOG_TRIES_KEY.format(address)]
        if redis.get(ACCOUNT_KEY.format(address)) == str(user).encode():
            keys.append(ACCOUNT_KEY.format(address))  # the number (or user id) no longer joins this account
    return delete_keys(redis, keys)
