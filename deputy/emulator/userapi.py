"""The user side: simulated users send messages and press buttons; the page listens live.

Routes (a public interface of the project, keep the shapes):
``POST/GET /api/users/{id}/messages``, ``POST /api/users/{id}/press``,
``GET /api/users/{id}/answers``, ``GET /api/users/{id}/events`` (Server-Sent Events),
``GET /api/users``, ``GET /healthz``; plus helpers for the page and for tests:
``POST /api/users/{id}/messages/{message_id}/edit`` (the user edits their message: the bot gets an
``edited_message``), ``DELETE /api/users/{id}/messages/{message_id}`` (the user deletes a message),
``POST /api/users/{id}/block`` (the user blocks or unblocks the bot), ``POST /api/bot/token`` (the
bot's token is revoked or replaced: other tokens answer 401),
``GET /api/bot``, ``GET /api/users/{id}/commands``, ``GET /api/users/{id}/photos`` (photos
the bot sent), ``GET /api/files/{file_id}`` (a file's bytes; images inline), ``POST /api/reset``.
"""

from __future__ import annotations

import asyncio
import json
import mimetypes
from dataclasses import replace
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

from aiohttp import web

from deputy.emulator.errors import UserApiError
from deputy.emulator.hub import EMULATOR_KEY, Emulator
from deputy.emulator.images import image_info
from deputy.emulator.messaging import new_document
from deputy.emulator.audio import ogg_opus_seconds
from deputy.emulator.records import Document, Media, Photo

_INLINE_IMAGES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
KEEPALIVE_SECONDS = 15.0  # an SSE comment this often keeps proxies and browsers connected

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def _answers_errors(handler: Handler) -> Handler:
    """Turn :class:`UserApiError` into ``{"error": ...}`` with its status."""

    async def wrapped(request: web.Request) -> web.StreamResponse:
        try:
            return await handler(request)
        except UserApiError as exc:
            return _error(exc.status, exc.message)

    wrapped.__doc__ = handler.__doc__
    return wrapped


def _emu(request: web.Request) -> Emulator:
    return request.app[EMULATOR_KEY]


def _user_id(request: web.Request) -> int:
    raw = request.match_info["user_id"]
    try:
        user_id = int(raw)
    except ValueError:
        raise UserApiError(400, f"user id must be a positive integer, got {raw!r}") from None
    if user_id <= 0:
        raise UserApiError(400, f"user id must be a positive integer, got {raw!r}")
    return user_id


async def _json_object(request: web.Request, example: str) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise UserApiError(400, f"expected a JSON object body like {example}") from None
    if not isinstance(body, dict):
        raise UserApiError(400, f"expected a JSON object body like {example}")
    return body


def _optional_int(body: dict[str, Any], name: str) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserApiError(400, f'"{name}" must be an integer message id, got {value!r}')
    return value


@_answers_errors
async def post_message(request: web.Request) -> web.Response:
    """The user sends a text message (any text, even empty or oversized)."""
    user_id = _user_id(request)
    example = '{"text": "hello", "first_name": "Ann", "reply_to": 3}'
    body = await _json_object(request, example)
    text, first_name = body.get("text"), body.get("first_name")
    if not isinstance(text, str):
        raise UserApiError(400, f'"text" must be a string; expected a JSON body like {example}')
    if first_name is not None and not isinstance(first_name, str):
        raise UserApiError(400, '"first_name" must be a string when given')
    msg = _emu(request).user_sends(user_id, text, first_name or None, _optional_int(body, "reply_to"))
    return web.json_response({"message_id": msg.message_id})


def _message_id(request: web.Request) -> int:
    raw = request.match_info["message_id"]
    try:
        return int(raw)
    except ValueError:
        raise UserApiError(400, f"message id must be an integer, got {raw!r}") from None


@_answers_errors
async def edit_message(request: web.Request) -> web.Response:
    """The user edits one of their own messages; the bot receives an ``edited_message`` update."""
    user_id, message_id = _user_id(request), _message_id(request)
    body = await _json_object(request, '{"text": "the corrected text"}')
    text = body.get("text")
    if not isinstance(text, str):
        raise UserApiError(400, '"text" must be a string; expected a JSON body like {"text": "the corrected text"}')
    msg = _emu(request).user_edits(user_id, message_id, text)
    return web.json_response(msg.to_user_json())


@_answers_errors
async def delete_message(request: web.Request) -> web.Response:
    """The user deletes a message (theirs or the bot's) for both sides; the bot is not told."""
    _emu(request).user_deletes(_user_id(request), _message_id(request))
    return web.json_response({"ok": True})


@_answers_errors
async def block(request: web.Request) -> web.Response:
    """The user blocks the bot (``{"blocked": true}``) or unblocks it (``false``)."""
    user_id = _user_id(request)
    body = await _json_object(request, '{"blocked": true}')
    blocked = body.get("blocked", True)
    if not isinstance(blocked, bool):
        raise UserApiError(400, '"blocked" must be true or false')
    _emu(request).user_blocks(user_id, blocked)
    return web.json_response({"ok": True, "blocked": blocked})


@_answers_errors
async def set_token(request: web.Request) -> web.Response:
    """The bot's token changes (revoked in @BotFather): ``{"token": "..."}``; null accepts any again."""
    body = await _json_object(request, '{"token": "123:new-token"}')
    token = body.get("token")
    if token is not None and not isinstance(token, str):
        raise UserApiError(400, '"token" must be a string or null')
    _emu(request).token = token
    return web.json_response({"ok": True})


@_answers_errors
async def post_file(request: web.Request) -> web.Response:
    """The user sends a file: multipart with `file`, and optional `caption`, `first_name` and `as` (`photo`: the
    image is sent as a photo, the way a phone's camera or gallery sends it, rather than as a file; `voice`,
    `audio`, `video`, `video_note`: a recording, with `duration` in seconds for the last three)."""
    user_id = _user_id(request)
    try:
        form = await request.post()
    except ValueError:
        raise UserApiError(400, "expected a multipart form with a `file` field") from None
    upload = form.get("file")
    if not isinstance(upload, web.FileField):
        raise UserApiError(400, "expected a multipart form with a `file` field")
    content = upload.file.read()
    mime = upload.content_type or mimetypes.guess_type(upload.filename)[0] or "application/octet-stream"
    document = new_document(upload.filename or "file", len(content), mime, content)
    caption = form.get("caption") if isinstance(form.get("caption"), str) else ""
    first_name = form.get("first_name") if isinstance(form.get("first_name"), str) else None
    photo, media, kind = None, None, form.get("as")
    if kind in MEDIA_KINDS:
        media = _media(str(kind), document, content, form)
    elif kind == "photo":
        info = image_info(content)
        if info is None:
            raise UserApiError(400, "a photo must be a JPEG, PNG, GIF or WebP image")
        photo = Photo(new_document(upload.filename or "photo.jpg", len(content), info[0], content), info[1], info[2])
    msg = _emu(request).user_sends_file(user_id, document, caption, first_name, photo=photo, media=media)
    return web.json_response({"message_id": msg.message_id})


MEDIA_KINDS = ("voice", "audio", "video", "video_note")


def _media(kind: str, document: Document, content: bytes, form: Any) -> Media:
    """A recording as Telegram's apps send it: a voice note is always OGG/Opus (its length read from it);
    an audio file or a video gives its length in `duration` (seconds), as the app reads it from the file."""
    if kind == "voice":
        seconds = ogg_opus_seconds(content)
        if seconds is None:
            raise UserApiError(400, "a voice note must be an OGG file with Opus audio, as Telegram records it")
        return Media("voice", replace(document, mime_type="audio/ogg"), max(1, round(seconds)))
    try:
        duration = int(form.get("duration") or 0)
    except ValueError:
        raise UserApiError(400, '"duration" must be a whole number of seconds') from None
    prefix = "audio/" if kind == "audio" else "video/"
    if not document.mime_type.startswith(prefix):
        raise UserApiError(400, f"{kind.replace('_', ' ')} must be sent with an {prefix}* type")
    return Media(kind, document, duration, width=240, height=240)


@_answers_errors
async def get_messages(request: web.Request) -> web.Response:
    """The chat as the user sees it now (edits applied, deletions gone)."""
    user_id = _user_id(request)
    try:
        after = int(request.query.get("after", "0") or 0)
    except ValueError:
        raise UserApiError(400, '"after" must be an integer message id') from None
    messages = _emu(request).state.messages_after(user_id, after)
    return web.json_response([m.to_user_json() for m in messages])


@_answers_errors
async def press(request: web.Request) -> web.Response:
    """The user presses an inline button by label, or with arbitrary callback data."""
    user_id = _user_id(request)
    example = '{"message_id": 2, "button": "Approve"} or {"message_id": 2, "data": "approve:1"}'
    body = await _json_object(request, example)
    message_id = _optional_int(body, "message_id")
    label, data = body.get("button"), body.get("data")
    if message_id is None:
        raise UserApiError(400, f'"message_id" is required; expected {example}')
    if (label is None) == (data is None):
        raise UserApiError(400, f'give exactly one of "button" (a label) or "data"; expected {example}')
    if not isinstance(label if label is not None else data, str):
        raise UserApiError(400, '"button" and "data" must be strings')
    query_id = _emu(request).user_presses(user_id, message_id, button=label, data=data)
    return web.json_response({"ok": True, "callback_query_id": query_id})


@_answers_errors
async def get_answers(request: web.Request) -> web.Response:
    """The bot's callback answers to this user's presses, oldest first."""
    chat = _emu(request).state.chats.get(_user_id(request))
    return web.json_response([a.to_user_json() for a in chat.answers] if chat else [])


@_answers_errors
async def get_photos(request: web.Request) -> web.Response:
    """The photos the bot sent this user, oldest first: message id, caption and the image's address."""
    messages = _emu(request).state.messages_after(_user_id(request))
    return web.json_response(
        [
            {"message_id": m.message_id, "caption": m.text, "date": m.date, **m.photo.to_user_json()}
            for m in messages
            if m.photo is not None and m.sender == "bot"
        ]
    )


@_answers_errors
async def get_commands(request: web.Request) -> web.Response:
    """The command menu this user sees (setMyCommands, most specific scope first)."""
    lang = request.query.get("language_code", "")
    return web.json_response(_emu(request).state.commands_for(_user_id(request), lang))


@_answers_errors
async def events(request: web.Request) -> web.StreamResponse:
    """Server-Sent Events: one ``data:`` JSON per chat change, with a ``type`` key."""
    user_id = _user_id(request)
    bus = _emu(request).events
    queue = bus.subscribe(user_id)
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",  # ask reverse proxies not to buffer the stream
        }
    )
    try:
        await response.prepare(request)
        # Reconnect quickly after a drop; the first bytes also flush the headers.
        await response.write(b"retry: 1000\n: connected\n\n")
        while True:
            try:
                event = await asyncio.wait_for(queue.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                await response.write(b": keepalive\n\n")
                continue
            if event is None:
                break
            await response.write(f"data: {json.dumps(event)}\n\n".encode())
    except (ConnectionResetError, ConnectionError):
        pass  # the viewer went away
    finally:
        bus.unsubscribe(user_id, queue)
    return response


async def list_users(request: web.Request) -> web.Response:
    """Every user who has a chat with the bot."""
    chats = _emu(request).state.chats.values()
    return web.json_response([{"user_id": c.user_id, "first_name": c.first_name} for c in chats])


async def bot_info(request: web.Request) -> web.Response:
    """Who the bot is (the page's header)."""
    profile = _emu(request).profile
    return web.json_response(
        {"id": profile.id, "first_name": profile.first_name, "username": profile.username}
    )


async def get_file(request: web.Request) -> web.Response:
    """Download a file the bot sent; images are shown inline (the chat page displays photos)."""
    doc = _emu(request).state.files.get(request.match_info["file_id"])
    if doc is None or doc.content is None:
        return _error(404, "no such file (or it was too large to keep)")
    kind = "inline" if doc.mime_type in _INLINE_IMAGES else "attachment"
    disposition = f"{kind}; filename*=UTF-8''{quote(doc.file_name, safe='')}"
    return web.Response(
        body=doc.content, content_type=doc.mime_type, headers={"Content-Disposition": disposition}
    )


async def reset(request: web.Request) -> web.Response:
    """Forget every chat and pending update (isolates tests sharing one emulator)."""
    _emu(request).reset()
    return web.json_response({"ok": True})


async def healthz(request: web.Request) -> web.Response:
    """Liveness probe."""
    return web.json_response({"ok": True})


def setup(app: web.Application) -> None:
    """Add the user-side routes to ``app``."""
    r = app.router
    r.add_get("/healthz", healthz)
    r.add_get("/api/bot", bot_info)
    r.add_get("/api/users", list_users)
    r.add_post("/api/users/{user_id}/messages", post_message)
    r.add_get("/api/users/{user_id}/messages", get_messages)
    r.add_post("/api/users/{user_id}/messages/{message_id}/edit", edit_message)
    r.add_delete("/api/users/{user_id}/messages/{message_id}", delete_message)
    r.add_post("/api/users/{user_id}/block", block)
    r.add_post("/api/bot/token", set_token)
    r.add_post("/api/users/{user_id}/press", press)
    r.add_post("/api/users/{user_id}/files", post_file)
    r.add_get("/api/users/{user_id}/answers", get_answers)
    r.add_get("/api/users/{user_id}/commands", get_commands)
    r.add_get("/api/users/{user_id}/photos", get_photos)
    r.add_get("/api/users/{user_id}/events", events)
    r.add_get("/api/files/{file_id}", get_file)
    r.add_post("/api/reset", reset)
