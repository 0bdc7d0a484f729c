"""The Graph API endpoints Deputy calls: send a message, upload media, look up and download media."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from deputy.emulator.whatsapp.hub import HUB_KEY, WaHub
from deputy.emulator.whatsapp.rules import (
    MEDIA_UPLOAD_ERROR,
    PAIR_RATE_LIMITED,
    Refused,
    check,
    media_refusal,
    recipient_of,
)
from deputy.emulator.whatsapp.state import new_wamid


FAILURE_TITLES = {131026: "Message undeliverable", 131051: "Unsupported message type",
                  130472: "User's number is part of an experiment", 131000: "Something went wrong"}


def _error(status: int, code: int, message: str) -> web.Response:
    return web.json_response({"error": {"message": message, "type": "OAuthException" if status == 401 else
                                        "GraphMethodException", "code": code}}, status=status)


def _authorised(hub: WaHub, request: web.Request) -> bool:
    return request.headers.get("Authorization", "") == f"Bearer {hub.config.token}"


async def messages(request: web.Request) -> web.Response:
    hub: WaHub = request.app[HUB_KEY]
    if not _authorised(hub, request):
        return _error(401, 190, "Invalid OAuth access token.")
    if request.match_info["phone"] != hub.config.phone_number_id:
        return _error(400, 100, "Unknown phone number id")
    try:
        payload: dict[str, Any] = await request.json()
        check(payload, hub.config.templates, hub.config.rules)
        to = recipient_of(payload, hub.config.rules)
    except ValueError:
        return _error(400, 100, "Invalid JSON")
    except Refused as exc:
        return _error(400, exc.code, exc.message)
    if hub.forced_errors:
        code = hub.forced_errors.pop(0)
        return _error(429 if code == 130429 else 400, code, "(#%d) Rate limit hit" % code)
    if hub.pair_rate is not None and not hub.pair_rate.allow(to, hub.state.clock()):
        return _error(400, PAIR_RATE_LIMITED, "(#131056) (Business Account, Consumer Account) pair rate limit hit: "
                      "too many messages sent to this user in a short period")
    wamid = new_wamid()
    undeliverable = hub.undeliverable.get(to)
    if undeliverable:  # accepted, then failed in a status callback (the user's phone could not take it)
        code = undeliverable.pop(0)
        hub.status(to, wamid, "failed", errors=[{"code": code, "title": FAILURE_TITLES.get(code, "Failed")}])
        hub.state.add(to, {"id": wamid, "from": "bot", "status": "failed", **_view(payload)})
        return web.json_response(_sent(to, wamid))
    if payload.get("type") != "template" and not hub.state.window_open(to):
        # As on WhatsApp: accepted, then failed in a status callback (re-engagement required).
        hub.status(to, wamid, "failed", errors=[{"code": 131047, "title": "Re-engagement message"}])
        hub.state.add(to, {"id": wamid, "from": "bot", "status": "failed", **_view(payload)})
        return web.json_response(_sent(to, wamid))
    hub.state.add(to, {"id": wamid, "from": "bot", "status": "delivered", **_view(payload)})
    hub.status(to, wamid, "sent")
    hub.status(to, wamid, "delivered")
    hub.changed()
    return web.json_response(_sent(to, wamid))


def _sent(to: str, wamid: str) -> dict[str, Any]:
    contact = {"input": to, "wa_id": to} if to.isdigit() else {"input": to, "user_id": to}
    return {"messaging_product": "whatsapp", "contacts": [contact], "messages": [{"id": wamid}]}


def _view(payload: dict[str, Any]) -> dict[str, Any]:
    """What the chat shows of a message the business sent."""
    kind = payload.get("type", "text")
    view: dict[str, Any] = {"type": kind, "text": "", "buttons": [], "list": None, "media": None, "template": None}
    if kind == "text":
        view["text"] = payload["text"]["body"]
    elif kind == "interactive":
        interactive = payload["interactive"]
        view["text"] = interactive["body"]["text"]
        action = interactive["action"]
        if interactive["type"] == "button":
            view["buttons"] = [{"id": b["reply"]["id"], "title": b["reply"]["title"]} for b in action["buttons"]]
        else:
            view["list"] = {"button": action["button"],
                            "rows": [r for s in action["sections"] for r in s["rows"]]}
    elif kind == "template":
        template = payload["template"]
        view["template"] = template["name"]
        view["text"] = " ".join(p.get("text", "") for c in template.get("components") or []
                                for p in c.get("parameters") or [])
    else:
        media = payload[kind]
        view["media"] = {"id": media["id"], "filename": media.get("filename")}
        view["text"] = media.get("caption", "")
    return view


async def upload(request: web.Request) -> web.Response:
    hub: WaHub = request.app[HUB_KEY]
    if not _authorised(hub, request):
        return _error(401, 190, "Invalid OAuth access token.")
    form = await request.post()
    file = form.get("file")
    if file is None or not hasattr(file, "file"):
        return _error(400, 100, "file is required")
    mime = str(form.get("type") or file.content_type or "application/octet-stream")
    data = file.file.read()
    refusal = media_refusal(mime, len(data), data) if hub.config.rules.media_limits else None
    if refusal is not None:
        return _error(400, MEDIA_UPLOAD_ERROR, f"(#131053) Media upload error: {refusal}")
    media_id = hub.state.store_media(data, mime, file.filename or "file")
    return web.json_response({"id": media_id})


async def media_info(request: web.Request) -> web.Response:
    hub: WaHub = request.app[HUB_KEY]
    if not _authorised(hub, request):
        return _error(401, 190, "Invalid OAuth access token.")
    media_id = request.match_info["media"]
    media = hub.state.media.get(media_id)
    if media is None:
        return _error(404, 100, "Unknown media id")
    base = f"{request.scheme}://{request.host}"
    return web.json_response({"messaging_product": "whatsapp", "id": media_id, "mime_type": media.mime_type,
                              "file_size": len(media.data), "url": f"{base}/media-download/{media_id}"})


async def media_download(request: web.Request) -> web.Response:
    hub: WaHub = request.app[HUB_KEY]
    if not _authorised(hub, request):
        return _error(401, 190, "Invalid OAuth access token.")
    media = hub.state.media.get(request.match_info["media"])
    if media is None:
        return web.Response(status=404)
    return web.Response(body=media.data, content_type=media.mime_type)


def setup(app: web.Application) -> None:
    app.router.add_post(r"/{version:v\d+\.\d+}/{phone}/messages", messages)
    app.router.add_post(r"/{version:v\d+\.\d+}/{phone}/media", upload)
    app.router.add_get(r"/{version:v\d+\.\d+}/{media:\d+}", media_info)
    app.router.add_get("/media-download/{media}", media_download)
