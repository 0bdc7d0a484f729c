"""Sends WhatsApp messages within the platform's rules for one account's chat.

Within 24 hours of the user's last message anything may be sent. Outside that window
WhatsApp accepts only approved templates: the text goes out as the template's body
parameter, and the interactive parts (buttons, lists, files) wait until the user writes
again, when the window reopens and they are sent at once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable

from deputy.core.accounts.surfaces import number_for
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

    async def number(self, chat_id: int) -> str:
        wa_id = await number_for(self.store.redis, chat_id)
        if wa_id is None:
            raise NoNumber(f"chat {chat_id} has no WhatsApp number")
        return wa_id

    async def deliver(self, wa_id: str, payloads: list[dict[str, Any]], text: str) -> list[str]:
        """Send `payloads` (which together say `text`); the wamids sent."""
        if await self.store.window_open(wa_id, self._clock()):
            try:
                return [await self.graph.send(payload) for payload in payloads]
            except GraphError as exc:
                if exc.code != REENGAGEMENT_REQUIRED:
                    raise
                # Our clock and WhatsApp's disagree (a message we never saw): follow WhatsApp's.
        return [await self._as_template(wa_id, payloads, text)]

    async def _as_template(self, wa_id: str, payloads: list[dict[str, Any]], text: str) -> str:
        # A text too long for the template's parameter waits whole for the reply, like the buttons.
        whole = len(text) + len(DEFERRED_NOTE) + 1 > outbound.MAX_TEMPLATE_PARAMETER
        waiting = [p for p in payloads if whole or p.get("type") != "text"]
        for payload in waiting:
            await self.store.defer(wa_id, payload)
        body = f"{text}\n{DEFERRED_NOTE if not whole else MORE_NOTE}" if waiting else text
        return await self.graph.send(outbound.template_message(wa_id, self._template.name, self._template.language,
                                                               body))

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
            await self.graph.send(outbound.template_message(wa_id, self._template.name, self._template.language, text))
        return True

    async def user_wrote(self, wa_id: str) -> None:
        """The window (re)opens: note when, tell a first-time user how news arrives, send what waited."""
        await self.store.wrote(wa_id, self._clock())
        if await self.store.first_contact(wa_id):
            await self.graph.send(outbound.text_message(wa_id, FIRST_CONTACT_NOTICE))
        for payload in await self.store.take_deferred(wa_id):
            try:
                await self.graph.send(payload)
            except GraphError as exc:
                log.warning("whatsapp: a message that waited for the window was refused: %s", exc)
