"""The WhatsApp webhook: Meta's deliveries, checked, recorded, answered, then handled by the bot's handlers.

- ``GET``: Meta's verification handshake (``hub.mode=subscribe``, ``hub.verify_token``,
  ``hub.challenge``): the challenge is echoed only for our verify token.
- ``POST``: the raw body must carry Meta's ``X-Hub-Signature-256`` made with the app secret,
  else 401 (missing) or 403 (wrong) and nothing is read. Each message and status of the
  delivery is recorded once in Redis (:mod:`deputy.whatsapp.inbox`) and the delivery is
  answered 200 at once (behind Redis Sentinel, once a replica has the record, so a promotion
  cannot lose what Meta was told was received); 503 only when it could not be recorded (Redis down), so Meta delivers
  it again. Meta retries slow answers with a growing backoff, so nothing slow happens before
  the answer, and one message that fails to be handled no longer makes Meta deliver them all again.
- Afterwards each message is claimed by its wamid (:mod:`deputy.bot.update_claims`: handled
  once however often it comes), turned into a Telegram-shaped update and handled by the same
  Application as Telegram's. A sender is a phone number, or, for a user with a username whose
  number is withheld, a business-scoped user id; both name one Deputy account. Status
  callbacks (sent, delivered, read, failed) are logged, a failure with its error code and
  title only (no numbers, no texts); a failed message's text is not lost (see
  :meth:`deputy.whatsapp.sender.Sender.undelivered`). A correctly signed delivery of a shape
  Deputy cannot read is answered 200 and dropped with a log line: Meta would otherwise deliver
  it again and again.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import secrets
import socket
import time
from typing import Any

import redis.asyncio as aioredis
from aiohttp import web
from telegram import Update
from telegram.ext import Application

from deputy.bot.update_claims import UpdateClaims, Verdict, delivered, delivering, identity_seed
from deputy.queue.replication import async_replica_confirmation
from deputy.core.accounts.surfaces import SURFACE_KEY, NUMBER_KEY, account_for, also_known_as, is_user_id, is_whatsapp_only
from deputy.whatsapp import outbound
from deputy.whatsapp.graph import REENGAGEMENT_REQUIRED, GraphError
from deputy.whatsapp.inbound import to_update
from deputy.whatsapp.inbox import Inbox, InboxWorker
from deputy.whatsapp.request import WhatsAppRequest, callback_id
from deputy.whatsapp.sender import Sender
from deputy.whatsapp.signature import SIGNATURE_HEADER, verify

log = logging.getLogger(__name__)

STATUS_PATIENCE = 60.0
"""Seconds during which a failed status of a message we have no record of yet is asked for again."""
SILENT_TYPES = {"reaction", "system", "ephemeral"}
MENU_WORDS = {"menu", "/help", "/menu"}
MENU_INTRO = "Text me a goal in plain words, or choose a command:"


class WhatsAppWebhook:
    def __init__(self, application: Application, claims: UpdateClaims, sender: Sender, app_secret: str,
                 verify_token: str, commands: list[tuple[str, str]], request: WhatsAppRequest | None = None) -> None:
        self._app = application
        self._request = request
        self._claims = claims
        self._sender = sender
        self._redis: aioredis.Redis = sender.store.redis
        self._secret = app_secret
        self._verify_token = verify_token.encode()
        self._commands = commands
        self._node = f"{socket.gethostname()}-{os.getpid()}"
        self.inbox = Inbox(self._redis)
        self.worker = InboxWorker(self._redis, self.handle)
        self._replicated = async_replica_confirmation(self._redis)

    async def verify(self, request: web.Request) -> web.Response:
        query = request.query
        given = query.get("hub.verify_token", "").encode()
        if query.get("hub.mode") == "subscribe" and given and hmac.compare_digest(given, self._verify_token):
            return web.Response(text=query.get("hub.challenge", ""))
        return web.Response(status=403, text="verification failed")

    async def deliver(self, request: web.Request) -> web.Response:
        raw = await request.read()
        header = request.headers.get(SIGNATURE_HEADER)
        if not header:
            return web.Response(status=401, text="missing signature")
        if not verify(raw, header, self._secret):
            log.warning("whatsapp: refused a delivery with a wrong signature")
            return web.Response(status=403, text="wrong signature")
        try:
            body = json.loads(raw)
        except ValueError:
            log.warning("whatsapp: dropped a signed delivery that is not JSON")
            return web.Response(text="ok")
        try:
            await self.inbox.record(records(body))
            # Behind Sentinel: answered once a promotion cannot lose it (no replica answering: as without one).
            await self._replicated()
        except aioredis.RedisError as exc:
            log.warning("whatsapp: could not record a delivery (%s); Meta will deliver it again", exc)
            return web.Response(status=503, headers={"Retry-After": "1"})
        return web.Response(text="ok")

    async def handle(self, item: dict[str, Any]) -> bool:
        """One recorded message or status; False: not yet (a status that overtook our record)."""
        if item.get("kind") == "status":
            return await self._status(_dict(item.get("status")))
        return await self._one(_dict(item.get("message")), str(item.get("user") or ""), str(item.get("name") or ""),
                               str(item.get("also") or ""))

    async def _status(self, status: dict[str, Any]) -> bool:
        """Log a status; a failed message goes again (as the template when refused as outside the
        window, else kept for the user). False while the message is not known yet: the callback
        can overtake our record of the message."""
        errors = _dicts(status.get("errors"))
        codes = {e.get("code") for e in errors}
        wamid, wa_id = str(status.get("id") or ""), status_recipient(status)
        _log_status(status)
        if status.get("status") != "failed" or not wa_id:
            return True
        try:
            if REENGAGEMENT_REQUIRED in codes:
                known = await self._sender.refused_outside_window(wa_id, wamid)
            else:
                reason = "; ".join(f"{e.get('code')} {e.get('title')}" for e in errors) or "no reason given"
                known = await self._sender.undelivered(wa_id, wamid, reason)
        except GraphError as exc:
            log.warning("whatsapp: could not send a failed message again: %s", exc)
            return True
        if known:
            return True
        try:
            age = time.time() - float(status.get("timestamp") or 0)
        except (TypeError, ValueError):
            age = STATUS_PATIENCE
        return age >= STATUS_PATIENCE  # a fresh one is tried again; an old unknown message is not ours to chase

    async def _one(self, message: dict[str, Any], wa_id: str, name: str, also: str = "") -> bool:
        """Handle one message exactly once; False to try it again later."""
        wamid = str(message.get("id") or "")
        if not wamid or not wa_id:
            log.warning("whatsapp: ignored a message without id or sender")
            return True
        owner = f"{self._node}-{secrets.token_hex(6)}"
        verdict, delivery = await self._claims.claim(wamid, owner, identity_seed("whatsapp", wamid))
        if verdict is Verdict.done:
            return True
        if verdict is Verdict.busy or delivery is None:
            return False
        keeping = asyncio.create_task(self._claims.keep(wamid, owner))
        token = delivering(delivery)
        try:
            await self._handle(message, wa_id, name, also)
        except BaseException:
            await self._claims.release(wamid, owner)
            raise
        finally:
            delivered(token)
            keeping.cancel()
        await self._claims.done(wamid)
        return True

    async def _handle(self, message: dict[str, Any], wa_id: str, name: str, also: str = "") -> None:
        account = await account_for(self._redis, wa_id)
        if also:  # the message named both the number and the user id: the user id finds this account too
            await also_known_as(self._redis, also, account)
        pipe = self._redis.pipeline(transaction=False)
        pipe.set(NUMBER_KEY.format(account), wa_id)
        if not is_whatsapp_only(account):
            pipe.set(SURFACE_KEY.format(account), "whatsapp")
        await pipe.execute()
        await self._sender.user_wrote(wa_id)
        if message.get("type") in SILENT_TYPES:
            return  # an emoji reaction to a message, a system notice: nothing to answer
        if message.get("type") == "text" and str(_dict(message.get("text")).get("body") or "").strip().lower() in MENU_WORDS:
            payloads = outbound.command_menu(wa_id, self._commands, MENU_INTRO)
            await self._sender.deliver(wa_id, payloads, MENU_INTRO)
            return
        update_id = await self._sender.store.next_update_id()
        try:
            # A press answers a card; any other message quoting one of Deputy's (a quoted reply) replies to it.
            card = await self._sender.store.card(_dict(message.get("context")).get("id"))
            data = to_update(message, update_id=update_id, message_id=await self._sender.store.next_message_id(account),
                             account_id=account, name=name, card=card)
            if "callback_query" in data:
                data["callback_query"]["id"] = callback_id(update_id, account)
            update = Update.de_json(data, self._app.bot)
        except (AttributeError, TypeError, ValueError, KeyError):
            log.warning("whatsapp: dropped a message of a shape Deputy cannot read (type %r)", str(message.get("type"))[:20])
            return  # answered as handled: read again, it would fail again
        await self._app.update_processor.process_update(update, self._handled(update, account))

    async def _handled(self, update: Update, account: int) -> None:
        """The update through the bot's handlers (in the chat's order), then the toast nobody said."""
        await self._app.process_update(update)
        if self._request is not None:
            await self._request.flush_toasts(account)

    async def healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok" if self._app.running else "stopping", status=200 if self._app.running else 503)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    """The objects of a list a delivery should hold; anything else in it (or instead of it) is skipped."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def records(body: Any) -> list[tuple[str, dict[str, Any]]]:
    """The messages and statuses of a delivery as inbox records: (the key that makes each one
    once, the record). A record names its user, whose records are handled in order."""
    out: list[tuple[str, dict[str, Any]]] = []
    changes = [_dict(change.get("value")) for entry in _dicts(_dict(body).get("entry"))
               for change in _dicts(entry.get("changes"))]
    for value in changes:
        for status in _dicts(value.get("statuses")):
            key = f"status:{status.get('id')}:{status.get('status')}"
            out.append((key, {"kind": "status", "user": status_recipient(status), "status": status}))
        contacts = _dicts(value.get("contacts"))
        for message in _dicts(value.get("messages")):
            user, also, name = sender_of(message, contacts)
            wamid = str(message.get("id") or "")
            if not wamid or not user:
                log.warning("whatsapp: ignored a message without id or sender")
                continue
            out.append((f"message:{wamid}", {"kind": "message", "user": user, "also": also, "name": name,
                                             "message": message}))
    return out


def _phone(value: Any) -> str:
    text = str(value or "")
    return text if text.isdigit() and len(text) <= 15 else ""


def _user_id(value: Any) -> str:
    text = str(value or "")
    return text if is_user_id(text) else ""


def sender_of(message: dict[str, Any], contacts: list[dict[str, Any]]) -> tuple[str, str, str]:
    """(whom to answer, another name of the same user, their name) of a message.

    Whom to answer is the phone number when WhatsApp gives it, else the business-scoped user id
    of a user with a username (``from`` or ``from_user_id``, and ``contacts[].user_id``); when both
    are given, the user id is the other name, kept so the account is found when the number is not."""
    sent_from = message.get("from")
    phone, user_id = _phone(sent_from), _user_id(message.get("from_user_id")) or _user_id(sent_from)
    contact = next((c for c in contacts if (phone and _phone(c.get("wa_id")) == phone)
                    or (user_id and _user_id(c.get("user_id")) == user_id)), None)
    if contact is None and len(contacts) == 1:
        contact = contacts[0]
    contact = contact or {}
    phone = phone or _phone(contact.get("wa_id"))
    user_id = user_id or _user_id(contact.get("user_id"))
    profile = _dict(contact.get("profile"))
    name = str(profile.get("name") or profile.get("username") or contact.get("username") or "")
    return (phone or user_id), (user_id if phone else ""), name


def status_recipient(status: dict[str, Any]) -> str:
    return _phone(status.get("recipient_id")) or _user_id(status.get("recipient_user_id")) or _user_id(
        status.get("recipient_id"))


def _log_status(status: dict[str, Any]) -> None:
    state = status.get("status")
    if state == "failed":
        errors = [f"{e.get('code')} {e.get('title')}" for e in _dicts(status.get("errors"))]
        log.warning("whatsapp: message %s failed: %s", status.get("id"), "; ".join(errors) or "no reason given")
    else:
        log.debug("whatsapp: message %s %s", status.get("id"), state)


def build_server(webhook: WhatsAppWebhook, path: str) -> web.Application:
    server = web.Application(client_max_size=4 * 1024 * 1024)
    server.router.add_get(path, webhook.verify)
    server.router.add_post(path, webhook.deliver)
    server.router.add_get("/healthz", webhook.healthz)
    return server
