"""Sends WhatsApp messages within the platform's rules for one account's chat.

Within 24 hours of the user's last message anything may be sent. Outside that window
WhatsApp accepts only approved templates: the text goes out as the template's body
parameter, and the interactive parts (buttons, lists, files) wait until the user writes
again, when the window reopens and they are sent at once.

WhatsApp limits how fast a business writes to one user (the pair rate limit, error 131056)
and in all (130429). A message refused for a rate limit is not sent again from its start:
the parts already sent stay sent, and the first part not sent and everything after it wait
in the user's backlog (Redis), tried again after a growing pause by :meth:`Sender.send_due`.
The caller goes on at once, so one user's pause holds up nobody else; whatever is said to
that user meanwhile queues behind the backlog, in order.

A message WhatsApp reports as failed for another reason than the closed window (131026
undeliverable, 131051 unsupported type, …) is not lost: see :meth:`Sender.undelivered`.
"""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass
from typing import Any, Callable

import httpx
import redis.asyncio as aioredis

from deputy.core.accounts.surfaces import NUMBER_KEY, SURFACE_KEY, is_whatsapp_only, number_for
from deputy.core.records.outbox import OUTBOX_MAXLEN, OUTBOX_STREAM, OutboxMessage
from deputy.whatsapp import outbound
from deputy.whatsapp.graph import REENGAGEMENT_REQUIRED, GraphClient, GraphError
from deputy.whatsapp.store import SurfaceStore

log = logging.getLogger(__name__)

DEFERRED_NOTE = "(Reply to this message to see the buttons.)"
MORE_NOTE = "(Reply to this message to read all of it.)"
FIRST_CONTACT_NOTICE = (
    "Hi! This is Deputy on WhatsApp. One thing to know: WhatsApp lets me write to you freely only within "
    "a day of your last message. After a day of silence, my check-ins arrive as a short template message; "
    "reply to it and the rest (buttons, files) follows."
)


MISSED_INTRO = ("Some of my messages did not reach you on WhatsApp earlier (WhatsApp reported them as "
                "undeliverable). Here they are again:")
ON_TELEGRAM_NOTE = "(WhatsApp could not deliver this message to you, so it comes here.)"
FIRST_THROTTLE_WAIT = 6.0
"""Seconds before a rate-limited part is tried again: WhatsApp's pair rate is about one message in 6 s."""
MAX_THROTTLE_WAIT = 300.0
Card = tuple[int, int]  # (account, message number) of the bot message a part belongs to


def throttle_wait(tries: int) -> float:
    """The pause after the `tries`-th rate-limit refusal in a row: doubling, at most five minutes."""
    return min(FIRST_THROTTLE_WAIT * 2 ** max(tries - 1, 0), MAX_THROTTLE_WAIT)


@dataclass(frozen=True)
class Template:
    name: str
    language: str = "en"


class NoNumber(Exception):
    """The account has no WhatsApp number (it never wrote on WhatsApp)."""


class Sender:
    def __init__(self, graph: GraphClient, store: SurfaceStore, template: Template, clock: Callable[[], float]) -> None:
        self.graph = graph
        self.store = store
        self._template = template
        self._clock = clock
        self._node = f"{socket.gethostname()}-{os.getpid()}"

    async def number(self, chat_id: int) -> str:
        wa_id = await number_for(self.store.redis, chat_id)
        if wa_id is None:
            raise NoNumber(f"chat {chat_id} has no WhatsApp number")
        return wa_id

    async def deliver(self, wa_id: str, payloads: list[dict[str, Any]], text: str, card: Card | None = None
                      ) -> list[str]:
        """Send `payloads` (which together say `text`, the bot message `card`); the wamids sent now
        (the parts waiting out a rate limit are remembered under `card` when they go)."""
        if await self.store.window_open(wa_id, self._clock()):
            try:
                return await self.in_order(wa_id, payloads, card)
            except GraphError as exc:
                if exc.code != REENGAGEMENT_REQUIRED:
                    raise
                # Our clock and WhatsApp's disagree (a message we never saw): follow WhatsApp's.
        return await self._as_template(wa_id, payloads, text, card)

    async def in_order(self, wa_id: str, payloads: list[dict[str, Any]], card: Card | None = None) -> list[str]:
        """Send in order; from a part refused for a rate limit on, the rest waits in the backlog."""
        if await self.store.backlogged(wa_id):
            await self.store.queue(wa_id, payloads, card, self._clock())  # behind what already waits
            return []
        sent: list[str] = []
        for index, payload in enumerate(payloads):
            try:
                sent.append(await self.graph.send(payload))
            except GraphError as exc:
                if not exc.retryable:
                    raise
                await self._wait_out(wa_id, payloads[index:], card, exc)
                return sent
            except httpx.TransportError as exc:  # Graph unreachable: this part (only) goes again later
                await self._wait_out(wa_id, payloads[index:], card, exc)
                return sent
        return sent

    async def _wait_out(self, wa_id: str, rest: list[dict[str, Any]], card: Card | None, why: Exception) -> None:
        log.info("whatsapp: %d message part(s) wait to be sent again later: %s", len(rest), why)
        await self.store.queue(wa_id, rest, card, self._clock() + throttle_wait(1))

    async def send_due(self) -> int:
        """Send the backlogs whose pause is over, each user's in order; how many parts went."""
        count = 0
        for wa_id in await self.store.due_backlogs(self._clock()):
            if not await self.store.lock_backlog(wa_id, self._node):
                continue  # another process sends this user's backlog
            try:
                count += await self._send_backlog(wa_id)
            finally:
                await self.store.unlock_backlog(wa_id, self._node)
        return count

    async def _send_backlog(self, wa_id: str) -> int:
        count = 0
        while (head := await self.store.backlog_head(wa_id)) is not None:
            payload, card = head
            try:
                wamid = await self.graph.send(payload)
            except (GraphError, httpx.TransportError) as exc:
                if isinstance(exc, GraphError) and not exc.retryable:
                    log.warning("whatsapp: a message part that waited for a rate limit was refused: %s", exc)
                    await self.store.backlog_refused(wa_id)
                    continue
                due = await self.store.backlog_throttled(wa_id, throttle_wait, self._clock())
                log.info("whatsapp: still limited (%s); trying again in %.0f s", exc, due - self._clock())
                return count
            if card is not None:
                await self.store.remember_wamid(card[0], card[1], wamid)
            await self.store.backlog_sent(wa_id)
            count += 1
        await self.store.backlog_emptied(wa_id)
        return count

    async def _as_template(self, wa_id: str, payloads: list[dict[str, Any]], text: str, card: Card | None
                           ) -> list[str]:
        # A text too long for the template's parameter waits whole for the reply, like the buttons.
        whole = len(text) + len(DEFERRED_NOTE) + 1 > outbound.MAX_TEMPLATE_PARAMETER
        waiting = [p for p in payloads if whole or p.get("type") != "text"]
        for payload in waiting:
            await self.store.defer(wa_id, payload)
        body = f"{text}\n{DEFERRED_NOTE if not whole else MORE_NOTE}" if waiting else text
        return await self.in_order(wa_id, [self._template_for(wa_id, body)], card)

    def _template_for(self, wa_id: str, text: str) -> dict[str, Any]:
        return outbound.template_message(wa_id, self._template.name, self._template.language, text)

    async def refused_outside_window(self, wa_id: str, wamid: str) -> bool:
        """WhatsApp refused a message as outside the window (its clock, not ours): the window is
        closed from now on, and the message's text goes again, once, as the template.

        False when the message is not known yet: its status can overtake the sender's record of it."""
        await self.store.window_closed(wa_id)
        sent = await self.store.chat_of(wamid)
        if sent is None:
            return False
        if not await self.store.first_refusal(*sent):
            return True
        text = await self.store.text_of(*sent)
        if text:
            await self.in_order(wa_id, [self._template_for(wa_id, text)], sent)
        return True

    async def undelivered(self, wa_id: str, wamid: str, reason: str) -> bool:
        """WhatsApp could not deliver a message (not for the window: undeliverable, unsupported...).

        Once per message, its text is not lost: an account linked to Telegram gets it there, with a
        note, and its news goes to Telegram until the user writes on WhatsApp again; a WhatsApp-only
        user gets it again, with a note, as soon as they next write (WhatsApp delivers then).
        False when the message is not known yet (its status overtook the record of it)."""
        sent = await self.store.chat_of(wamid)
        if sent is None:
            return False
        account, number = sent
        if not await self.store.first_failure(account, number):
            return True
        text = (await self.store.text_of(account, number) or "").strip()
        if not text or text == "(a file)":
            text = "(a file I sent could not be delivered)"
        log.warning("whatsapp: message %s for account %s undeliverable (%s); its text is kept", wamid, account, reason)
        redis: aioredis.Redis = self.store.redis
        if not is_whatsapp_only(account) and await redis.exists(NUMBER_KEY.format(account)):
            await redis.set(SURFACE_KEY.format(account), "telegram")
            message = OutboxMessage(chat_id=account, text=f"{ON_TELEGRAM_NOTE}\n\n{text}")
            await redis.xadd(OUTBOX_STREAM, {"json": message.model_dump_json()}, maxlen=OUTBOX_MAXLEN,
                             approximate=True)
            return True
        await self.store.missed(wa_id, text)
        return True

    async def user_wrote(self, wa_id: str) -> None:
        """The window (re)opens: note when, tell a first-time user how news arrives, say again what
        could not be delivered, send what waited."""
        await self.store.wrote(wa_id, self._clock())
        payloads: list[dict[str, Any]] = []
        if await self.store.first_contact(wa_id):
            payloads.append(outbound.text_message(wa_id, FIRST_CONTACT_NOTICE))
        missed = await self.store.take_missed(wa_id)
        if missed:
            said = "\n\n".join([MISSED_INTRO, *(f"• {text}" for text in missed)])
            payloads += [outbound.text_message(wa_id, part) for part in outbound.split_text(said)]
        payloads += await self.store.take_deferred(wa_id)
        for payload in payloads:
            try:
                await self.in_order(wa_id, [payload])
            except GraphError as exc:
                log.warning("whatsapp: a message that waited for the window was refused: %s", exc)
