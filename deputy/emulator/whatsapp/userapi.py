"""The user side: send text, tap a reply button, choose a list row, send a file, read the chat.

Each call delivers the user's message to the webhook and answers with what the webhook
answered (``status``), so a test sees a refused signature or a retried delivery. Test hooks:
``duplicate`` delivers the same message twice, ``signature`` is ``good``, ``bad`` or ``none``,
and ``/silence`` moves the user's last message back in time (the 24-hour window). A delivery
not answered 200 is made again in the background, after growing pauses, as Meta does.

A user is a phone number (digits), or a username user whose number WhatsApp withholds, named
by a business-scoped user id (``US.13491208655302741918``): their messages carry that id in
``from``/``from_user_id`` and ``contacts[].user_id``, without ``wa_id``. A phone user may also
give ``user_id`` in a body: their messages then name both, as WhatsApp does today.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from aiohttp import web

from deputy.emulator.audio import ogg_opus_seconds
from deputy.emulator.whatsapp.delivery import envelope
from deputy.emulator.whatsapp.hub import HUB_KEY, WaHub
from deputy.emulator.whatsapp.state import new_wamid


def is_user_id(wa_id: str) -> bool:
    """A business-scoped user id: country code, a dot, letters and digits (``US.1349…``)."""
    head, dot, rest = wa_id.partition(".")
    return bool(dot) and len(head) == 2 and head.isalpha() and 0 < len(rest) <= 128 and rest.replace(".", "").isalnum()


def _wa_id(request: web.Request) -> str:
    wa_id = request.match_info["wa_id"]
    if (wa_id.isdigit() and len(wa_id) <= 15) or (request.app[HUB_KEY].config.rules.usernames and is_user_id(wa_id)):
        return wa_id
    raise web.HTTPBadRequest(text="a WhatsApp user is a phone number (digits only, at most 15) or a user id "
                                  "like US.13491208655302741918")


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise web.HTTPBadRequest(text="send JSON") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="send a JSON object")
    return body


async def _deliver(hub: WaHub, wa_id: str, body: dict[str, Any], message: dict[str, Any], shown: dict[str, Any]
                   ) -> web.Response:
    user = hub.state.user(wa_id, body.get("name"))
    wamid = new_wamid()
    now = hub.state.clock()
    message = {"from": wa_id, "id": wamid, "timestamp": str(int(now)), **message}
    contact: dict[str, Any] = {"profile": {"name": user.name}}
    if wa_id.isdigit():
        contact["wa_id"] = wa_id
    also = str(body.get("user_id") or "")
    user_id = wa_id if not wa_id.isdigit() else also if is_user_id(also) else ""
    if user_id:
        contact["user_id"] = message["from_user_id"] = user_id
    hub.state.add(wa_id, {"id": wamid, "from": "user", "buttons": [], "list": None, "media": None,
                          "template": None, **shown})
    user.last_in = now
    hub.changed()
    payload = envelope(hub.config.phone_number_id, {"contacts": [contact], "messages": [message]})
    signed = str(body.get("signature") or "good")
    statuses = [await _first_try(hub, payload, signed)]
    if body.get("duplicate"):
        statuses.append(await _first_try(hub, payload, signed))
    return web.json_response({"message_id": wamid, "status": statuses[0], "statuses": statuses})


async def _first_try(hub: WaHub, payload: dict[str, Any], signed: str) -> int:
    """What the webhook answered first; a delivery not answered 200 is made again in the background."""
    attempt = await hub.deliverer.post_once(payload, signed=signed)
    if attempt.status not in (200, 401, 403):
        hub.deliverer.retry_later(attempt)
    return attempt.status


async def send_text(request: web.Request) -> web.Response:
    hub, wa_id, body = request.app[HUB_KEY], _wa_id(request), await _body(request)
    text = str(body.get("text") or "")
    if not text:
        raise web.HTTPBadRequest(text="text is required")
    message: dict[str, Any] = {"type": "text", "text": {"body": text}}
    if body.get("reply_to"):  # a quoted reply (swipe on a message): WhatsApp names the quoted message in `context`
        found = hub.state.find(str(body["reply_to"]))
        if found is None or found[1]["from"] != "bot":
            raise web.HTTPNotFound(text="no such message from the business")
        message["context"] = {"from": "15550000000", "id": found[1]["id"]}
    return await _deliver(hub, wa_id, body, message, {"type": "text", "text": text})


async def press(request: web.Request) -> web.Response:
    hub, wa_id, body = request.app[HUB_KEY], _wa_id(request), await _body(request)
    found = hub.state.find(str(body.get("message_id") or ""))
    if found is None or found[1]["from"] != "bot":
        raise web.HTTPNotFound(text="no such message from the business")
    entry = found[1]
    wanted = body.get("button")
    ident = body.get("id")

    def match(choice: dict[str, Any]) -> bool:
        return (ident is not None and choice["id"] == ident) or (wanted is not None and choice["title"] == wanted)

    button = next((b for b in entry["buttons"] if match(b)), None)
    row = next((r for r in (entry["list"] or {}).get("rows", []) if match(r)), None)
    if button is not None:
        interactive = {"type": "button_reply", "button_reply": {"id": button["id"], "title": button["title"]}}
        title = button["title"]
    elif row is not None:
        interactive = {"type": "list_reply", "list_reply": {k: row[k] for k in ("id", "title", "description") if k in row}}
        title = row["title"]
    else:
        raise web.HTTPNotFound(text="that message has no such button or row")
    message = {"type": "interactive", "interactive": interactive,
               "context": {"from": "15550000000", "id": entry["id"]}}
    return await _deliver(hub, wa_id, body, message, {"type": "interactive", "text": title})


_KINDS = (("image", "image/"), ("audio", "audio/"), ("video", "video/"))
MEDIA_LIMIT = 16 * 1024 * 1024  # WhatsApp's limit for audio and video


async def send_file(request: web.Request) -> web.Response:
    """The user sends a picture, a document, an audio file or a video (by its type); `voice: true` with
    audio is a voice note recorded in the app."""
    hub, wa_id, body = request.app[HUB_KEY], _wa_id(request), await _body(request)
    try:
        data = base64.b64decode(str(body.get("data") or ""), validate=True)
    except (binascii.Error, ValueError):
        raise web.HTTPBadRequest(text="data must be base64") from None
    mime = str(body.get("mime_type") or "application/octet-stream")
    filename = str(body.get("filename") or "file")
    kind = next((k for k, prefix in _KINDS if mime.startswith(prefix)), "document")
    voice = kind == "audio" and bool(body.get("voice"))
    if voice and ogg_opus_seconds(data) is None:  # WhatsApp records voice notes as OGG/Opus, nothing else
        raise web.HTTPBadRequest(text="a voice note must be OGG with Opus audio")
    if voice:
        mime = "audio/ogg; codecs=opus"
    if kind in ("audio", "video") and len(data) > MEDIA_LIMIT:
        raise web.HTTPBadRequest(text="WhatsApp takes audio and video of at most 16 MB")
    media_id = hub.state.store_media(data, mime, filename)
    media: dict[str, Any] = {"id": media_id, "mime_type": mime}
    if kind == "document":
        media["filename"] = filename
    if kind == "audio":
        media["voice"] = voice
    if body.get("caption"):
        media["caption"] = str(body["caption"])
    shown = {"type": kind, "text": str(body.get("caption") or ""), "media": {"id": media_id, "filename": filename}}
    return await _deliver(hub, wa_id, body, {"type": kind, kind: media}, shown)


async def messages(request: web.Request) -> web.Response:
    hub: WaHub = request.app[HUB_KEY]
    wa_id = _wa_id(request)
    after = int(request.query.get("after", "0") or 0)
    wait = min(float(request.query.get("wait", "0") or 0), 25.0)
    user = hub.state.user(wa_id)
    found = [m for m in user.messages if m["seq"] > after]
    if not found and wait > 0:
        await hub.wait_change(wait)
        found = [m for m in user.messages if m["seq"] > after]
    return web.json_response(found)


async def silence(request: web.Request) -> web.Response:
    """Pretend the user last wrote `hours` ago (default 25: outside the window)."""
    hub, wa_id, body = request.app[HUB_KEY], _wa_id(request), await _body(request)
    user = hub.state.user(wa_id)
    user.last_in = hub.state.clock() - float(body.get("hours", 25)) * 3600
    return web.json_response({"last_in": user.last_in})


async def throttle(request: web.Request) -> web.Response:
    """The next sends are refused with these codes (e.g. 130429, the throughput limit), in order."""
    hub, body = request.app[HUB_KEY], await _body(request)
    codes = [int(code) for code in body.get("codes") or []]
    hub.forced_errors.extend(codes)
    return web.json_response({"waiting": hub.forced_errors})


async def undeliverable(request: web.Request) -> web.Response:
    """The user's next messages are accepted, then reported failed with these codes (131026...)."""
    hub, wa_id, body = request.app[HUB_KEY], _wa_id(request), await _body(request)
    hub.undeliverable.setdefault(wa_id, []).extend(int(code) for code in body.get("codes") or [131026])
    return web.json_response({"waiting": hub.undeliverable[wa_id]})


async def deliveries(request: web.Request) -> web.Response:
    return web.json_response(request.app[HUB_KEY].deliverer.log)


async def config(request: web.Request) -> web.Response:
    hub: WaHub = request.app[HUB_KEY]
    return web.json_response({"telegram_page": hub.config.telegram_page, "business": "Deputy"})


async def media(request: web.Request) -> web.Response:
    """A file in the chat, for the page (no token: this is the user's own phone)."""
    item = request.app[HUB_KEY].state.media.get(request.match_info["media"])
    if item is None:
        raise web.HTTPNotFound()
    return web.Response(body=item.data, content_type=item.mime_type,
                        headers={"Content-Disposition": f'inline; filename="{item.filename}"'})


def setup(app: web.Application) -> None:
    app.router.add_post("/api/users/{wa_id}/messages", send_text)
    app.router.add_post("/api/users/{wa_id}/press", press)
    app.router.add_post("/api/users/{wa_id}/files", send_file)
    app.router.add_post("/api/users/{wa_id}/silence", silence)
    app.router.add_get("/api/users/{wa_id}/messages", messages)
    app.router.add_get("/api/deliveries", deliveries)
    app.router.add_post("/api/throttle", throttle)
    app.router.add_post("/api/users/{wa_id}/undeliverable", undeliverable)
    app.router.add_get("/api/config", config)
    app.router.add_get("/api/media/{media}", media)
