"""The Bot API calls of python-telegram-bot, carried out on WhatsApp (a PTB request class).

The bot's handlers and outbox consumer run unchanged in an Application whose transport is
this class: ``sendMessage`` and friends become Graph API messages (see `deputy.whatsapp.outbound`),
and the answer is the Telegram object the handler expects. WhatsApp cannot edit a message,
so an edit sends what it adds (a decision under a card) and nothing when it adds nothing.
A callback answer's toast becomes a short message, unless an edit of the card in the same
update says the decision anyway (Telegram shows both, one over the other; WhatsApp would
show the same news twice): toasts wait until the update's next message or its end.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from telegram.request import BaseRequest, RequestData

from deputy.core.accounts.surfaces import WHATSAPP_BOT_ID
from deputy.whatsapp import media, outbound
from deputy.whatsapp.graph import GraphError
from deputy.whatsapp.media import sniff_image
from deputy.whatsapp.sender import NoNumber, Sender

log = logging.getLogger(__name__)

BOT_USER = {"id": WHATSAPP_BOT_ID, "is_bot": True, "first_name": "Deputy", "username": "deputy_whatsapp",
            "can_join_groups": False, "can_read_all_group_messages": False, "supports_inline_queries": False}
_ACCEPTED = {"setMyCommands", "deleteMyCommands", "sendChatAction", "deleteWebhook", "setWebhook", "close", "logOut",
             "setChatMenuButton", "setMyDescription", "setMyShortDescription"}


def callback_id(update_id: int, account_id: int) -> str:
    """A callback query id that says whose chat its answer goes to."""
    return f"wa-{update_id}-{account_id}"


class WhatsAppRequest(BaseRequest):
    def __init__(self, sender: Sender) -> None:
        self._sender = sender
        self._store = sender.store
        self._toasts: dict[int, str] = {}  # chat -> a toast not said yet (one update per chat at a time)

    @property
    def read_timeout(self) -> float | None:
        return 30.0

    async def initialize(self) -> None:
        """The HTTP client is opened by whoever made it."""

    async def shutdown(self) -> None:
        """Closed by whoever made it (the surface serves the webhook with it too)."""

    async def do_request(self, url: str, method: str, request_data: RequestData | None = None,
                         read_timeout: Any = None, write_timeout: Any = None, connect_timeout: Any = None,
                         pool_timeout: Any = None) -> tuple[int, bytes]:
        name = url.rstrip("/").rsplit("/", 1)[-1]
        try:
            if "/file/" in url:  # a download (File.download_*): the file path is the media id
                return 200, await self._sender.graph.download(name)
            params = dict(request_data.parameters) if request_data is not None else {}
            files = request_data.multipart_data if request_data is not None and request_data.contains_files else {}
            result = await self.call(name, params, files)
        except NoNumber as exc:
            return _error(403, f"Forbidden: {exc}")
        except GraphError as exc:
            if exc.retryable:  # PTB turns 502 into NetworkError: the outbox tries again shortly
                return _error(502, f"Bad Gateway: {exc}")
            return _error(400, f"Bad Request: {exc}")
        return 200, json.dumps({"ok": True, "result": result}).encode()

    async def call(self, name: str, params: dict[str, Any], files: dict[str, Any]) -> Any:
        if name == "getMe":
            return BOT_USER
        if name in _ACCEPTED:
            return True
        if name == "getMyCommands":
            return []
        if name == "getFile":
            file_id = str(params["file_id"])
            return {"file_id": file_id, "file_unique_id": file_id, "file_path": file_id}
        if name == "sendMessage":
            return await self._send(int(params["chat_id"]), str(params.get("text") or ""), params.get("reply_markup"))
        if name == "editMessageText":
            return await self._edit(int(params["chat_id"]), int(params["message_id"]), str(params.get("text") or ""),
                                    params.get("reply_markup"))
        if name == "editMessageReplyMarkup":
            return await self._edit_markup(int(params["chat_id"]), int(params["message_id"]), params.get("reply_markup"))
        if name == "answerCallbackQuery":
            return await self._toast(str(params.get("callback_query_id") or ""), params.get("text"))
        if name in ("sendPhoto", "sendDocument", "sendVoice"):
            return await self._media(name, params, files)
        if name == "deleteMessage":
            raise GraphError(400, None, "WhatsApp does not let a business delete a user's message")
        raise GraphError(400, None, f"{name} is not available on WhatsApp")

    async def flush_toasts(self, chat_id: int) -> None:
        """Say the toast of a press still unsaid (the update has been handled)."""
        toast = self._toasts.pop(chat_id, None)
        if toast:
            await self._send(chat_id, toast, None)

    async def _send(self, chat_id: int, text: str, markup: Any, remember_as: int | None = None,
                    shown: str | None = None) -> dict[str, Any]:
        await self.flush_toasts(chat_id)  # in the order the handler said them
        wa_id = await self._sender.number(chat_id)
        message_id = remember_as or await self._store.next_message_id(chat_id)
        wamids = await self._sender.deliver(wa_id, outbound.plan(wa_id, text, _markup(markup)), text,
                                            card=(chat_id, message_id))
        full = shown if shown is not None else text
        await self._store.remember(chat_id, message_id, full, wamids)
        return _message(chat_id, message_id, full)

    async def _edit(self, chat_id: int, message_id: int, text: str, markup: Any) -> dict[str, Any]:
        before = await self._store.text_of(chat_id, message_id)
        added = text[len(before):].strip() if before and text.startswith(before) else text
        if added:
            self._toasts.pop(chat_id, None)  # the edit says the decision the toast said
        if not added and not outbound.choices(_markup(markup)):
            await self._store.remember(chat_id, message_id, text, [])
            return _message(chat_id, message_id, text)
        return await self._send(chat_id, added or text, markup, remember_as=message_id, shown=text)

    async def _edit_markup(self, chat_id: int, message_id: int, markup: Any) -> Any:
        if not outbound.choices(_markup(markup)):
            return True  # buttons removed: nothing to say on WhatsApp
        before = await self._store.text_of(chat_id, message_id) or ""
        first = (before.strip().splitlines() or ["Choose:"])[0]
        return await self._send(chat_id, first, markup, remember_as=message_id, shown=before)

    async def _toast(self, query_id: str, text: Any) -> bool:
        account = query_id.rsplit("-", 1)[-1]
        if text and account.isdigit():
            self._toasts[int(account)] = str(text)
        return True

    async def _media(self, name: str, params: dict[str, Any], files: dict[str, Any]) -> dict[str, Any]:
        chat_id = int(params["chat_id"])
        kind, field = _MEDIA_OF[name]
        await self.flush_toasts(chat_id)
        wa_id = await self._sender.number(chat_id)
        caption, markup = str(params.get("caption") or ""), _markup(params.get("reply_markup"))
        filename = "file"
        if field in files:
            filename, content, mime = files[field]
            data = content if isinstance(content, bytes) else content.read()
            filename = filename if filename and filename != "application.octet-stream" else (
                "image" + _EXTENSIONS.get(sniff_image(data), "") if kind == "image" else
                "voice.ogg" if kind == "audio" else "file")
            try:
                upload = media.prepare(kind, data, mime, filename)
            except media.Unsendable as exc:
                # Refused before the upload: the words still go out, with the reason the file does not.
                return await self._send(chat_id, f"{caption}\n\n({exc})".strip(), markup)
            kind, filename = upload.kind, upload.filename
            caption = f"{caption}\n\n{upload.note}".strip() if upload.note else caption
            media_id = await self._sender.graph.upload(upload.data, upload.mime, filename)
        else:
            media_id = str(params[field])  # sent before: a media id
        # Audio has no caption on WhatsApp: its words go as a message of their own after it.
        apart = bool(outbound.choices(markup)) or (kind == "audio" and bool(caption))
        payloads = [outbound.media_message(wa_id, kind, media_id, "" if apart else caption, filename)]
        if apart:
            payloads += outbound.plan(wa_id, caption, markup)
        message_id = await self._store.next_message_id(chat_id)
        wamids = await self._sender.deliver(wa_id, payloads, caption or "(a file)", card=(chat_id, message_id))
        await self._store.remember(chat_id, message_id, caption, wamids)
        message = _message(chat_id, message_id, None)
        attached = {"file_id": media_id, "file_unique_id": media_id}
        if kind == "image":
            message["photo"] = [{**attached, "width": 0, "height": 0}]
        elif kind == "audio":
            message["voice"] = {**attached, "duration": 0, "mime_type": "audio/ogg"}
        else:
            message["document"] = {**attached, "file_name": filename}
        if caption:
            message["caption"] = caption
        return message


_EXTENSIONS = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp"}
# A Bot API call that sends a file: WhatsApp's kind of media, and the call's field holding the file.
_MEDIA_OF = {"sendPhoto": ("image", "photo"), "sendDocument": ("document", "document"), "sendVoice": ("audio", "voice")}


def _markup(markup: Any) -> dict[str, Any] | None:
    if isinstance(markup, str):
        return json.loads(markup)
    return markup


def _message(chat_id: int, message_id: int, text: str | None) -> dict[str, Any]:
    message: dict[str, Any] = {"message_id": message_id, "date": int(time.time()), "from": BOT_USER,
                               "chat": {"id": chat_id, "type": "private"}}
    if text is not None:
        message["text"] = text
    return message


def _error(status: int, description: str) -> tuple[int, bytes]:
    return status, json.dumps({"ok": False, "error_code": status, "description": description}).encode()
