"""WhatsApp webhook messages as Telegram-shaped updates, so the bot's handlers serve both apps.

Pure: the caller resolves the account id, allocates the update and message ids and looks up
the card a button belongs to, or the message of Deputy's a quoted reply quotes (it becomes the
update's ``reply_to_message``, as a Telegram reply). A text that starts with a command
(``/goals``) gets the ``bot_command`` entity Telegram would give it; a reply button or list row
carries the same signed data a Telegram button carries, and becomes a callback query on that card.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

COMMAND_ROW = "cmd:"
"""List rows of the command menu carry ``cmd:/goals``: choosing one is typing the command."""


@dataclass(frozen=True)
class Card:
    """The message a pressed button sits under, as the bot sent it."""

    message_id: int
    text: str


def sender(account_id: int, name: str) -> dict[str, Any]:
    return {"id": account_id, "is_bot": False, "first_name": name or "there"}


def chat(account_id: int, name: str) -> dict[str, Any]:
    return {"id": account_id, "type": "private", "first_name": name or "there"}


def pressed_data(message: dict[str, Any]) -> str | None:
    """The id of the reply button or list row a message answers with, if it is one."""
    if message.get("type") == "interactive":
        interactive = message.get("interactive") or {}
        reply = interactive.get("button_reply") or interactive.get("list_reply") or {}
        return str(reply.get("id") or "") or None
    if message.get("type") == "button":  # a quick-reply button of a template
        return str((message.get("button") or {}).get("payload") or "") or None
    return None


def to_update(
    message: dict[str, Any], *, update_id: int, message_id: int, account_id: int, name: str,
    card: Card | None = None,
) -> dict[str, Any]:
    """The Telegram update (as JSON) for one WhatsApp message."""
    when = int(message.get("timestamp") or 0)
    who, where = sender(account_id, name), chat(account_id, name)
    data = pressed_data(message)
    if data is not None and data.startswith(COMMAND_ROW):
        message = {"type": "text", "text": {"body": data[len(COMMAND_ROW):]}}
    elif data is not None:
        card = card or Card(0, "")
        shown: dict[str, Any] = {"message_id": card.message_id, "date": when, "chat": where,
                                 "from": {"id": 0, "is_bot": True, "first_name": "Deputy"}}
        if card.text:
            shown["text"] = card.text
        return {"update_id": update_id, "callback_query": {
            "id": f"wa-{update_id}", "from": who, "chat_instance": f"wa-{account_id}", "data": data,
            "message": shown}}
    body: dict[str, Any] = {"message_id": message_id, "date": when, "chat": where, "from": who}
    body.update(_content(message))
    context = message.get("context") or {}
    if context.get("forwarded") or context.get("frequently_forwarded"):  # someone else's words, as Telegram marks them
        body["forward_origin"] = {"type": "hidden_user", "sender_user_name": "someone", "date": when}
    if card is not None and card.message_id:  # a quoted reply: the message of Deputy's it quotes, as Telegram's reply
        body["reply_to_message"] = {"message_id": card.message_id, "date": when, "chat": where,
                                    "from": {"id": 0, "is_bot": True, "first_name": "Deputy"}, "text": card.text}
    return {"update_id": update_id, "message": body}


def _content(message: dict[str, Any]) -> dict[str, Any]:
    kind = message.get("type")
    if kind == "text":
        text = (message.get("text") or {}).get("body") or ""
        if not isinstance(text, str):
            raise ValueError("a text message whose body is not text")
        out: dict[str, Any] = {"text": text}
        if text.startswith("/") and len(text) > 1:
            out["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
        return out
    if kind == "image":
        image = message.get("image") or {}
        media = str(image.get("id") or "")
        out = {"photo": [{"file_id": media, "file_unique_id": media, "width": 0, "height": 0}]}
        if image.get("caption"):
            out["caption"] = str(image["caption"])
        return out
    if kind == "document":
        doc = message.get("document") or {}
        media = str(doc.get("id") or "")
        out = {"document": {"file_id": media, "file_unique_id": media, "file_name": str(doc.get("filename") or "file"),
                            "mime_type": str(doc.get("mime_type") or "application/octet-stream")}}
        if doc.get("caption"):
            out["caption"] = str(doc["caption"])
        return out
    if kind in ("audio", "video"):
        item = message.get(kind) or {}
        media = str(item.get("id") or "")
        mime = str(item.get("mime_type") or "").split(";")[0].strip()
        shape = "voice" if kind == "audio" and item.get("voice") else kind
        # WhatsApp does not say how long a recording is: the transcriber reads it from the file.
        out = {shape: {"file_id": media, "file_unique_id": media, "duration": 0, "mime_type": mime}}
        if kind == "video":
            out[shape].update(width=0, height=0)
        if item.get("caption"):
            out["caption"] = str(item["caption"])
        return out
    # Stickers, locations...: a message without text, which the bot says it cannot read.
    return {"sticker": {"file_id": "wa-unsupported", "file_unique_id": "wa-unsupported", "width": 0, "height": 0,
                        "is_animated": False, "is_video": False, "type": "regular"}}
