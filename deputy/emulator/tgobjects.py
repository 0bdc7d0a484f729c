"""Telegram Bot API objects (User, Chat, Message, CallbackQuery, InlineKeyboardMarkup).

Builds the complete JSON Telegram would send, so that python-telegram-bot parses it
exactly as in production, and validates inline keyboards the way Telegram does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from deputy.emulator.errors import bad_request
from deputy.emulator.records import Button, Chat, Json, PendingQuery, StoredMessage

# A command is "/" + up to 32 letters, digits or underscores, optionally "@botname".
_COMMAND = re.compile(r"(?<![^\s])/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{1,32})?(?![^\s.,!?;:])")

# Button fields other than callback_data/url that make a valid (non-pressable here) button.
_OTHER_ACTIONS = (
    "login_url", "switch_inline_query", "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat", "callback_game", "pay", "web_app", "copy_text",
)


@dataclass(frozen=True)
class BotProfile:
    """Who the emulated bot is (answered by getMe and used as ``from`` of its messages)."""

    id: int = 7_000_000_001
    first_name: str = "Deputy"
    username: str = "deputy_bot"

    def user_json(self) -> Json:
        """The bot as a Telegram User."""
        return {
            "id": self.id,
            "is_bot": True,
            "first_name": self.first_name,
            "username": self.username,
        }

    def me_json(self) -> Json:
        """getMe's answer: the User plus the bot-only capability flags."""
        return {
            **self.user_json(),
            "can_join_groups": False,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units: Telegram measures entity offsets this way."""
    return len(text.encode("utf-16-le")) // 2


def command_entities(text: str) -> list[Json]:
    """``bot_command`` entities for every /command, so PTB's CommandHandler matches."""
    return [
        {
            "type": "bot_command",
            "offset": utf16_len(text[: m.start()]),
            "length": utf16_len(m.group()),
        }
        for m in _COMMAND.finditer(text)
    ]


def user_json(chat: Chat) -> Json:
    """The chat's human as a Telegram User."""
    return {"id": chat.user_id, "is_bot": False, "first_name": chat.first_name, "language_code": "en"}


def chat_json(chat: Chat) -> Json:
    """The private Chat object (its id is the user's id)."""
    return {"id": chat.user_id, "type": "private", "first_name": chat.first_name}


def chat_instance(user_id: int) -> str:
    """A stable opaque ``chat_instance`` per chat, as Telegram sends with callback queries."""
    return str((user_id * 2_654_435_761 + 97) % 10**18)


def keyboard_json(rows: list[list[Button]]) -> Json:
    """InlineKeyboardMarkup with the buttons as the bot sent them."""
    return {"inline_keyboard": [[dict(b.raw) or _button_json(b) for b in row] for row in rows]}


def _button_json(button: Button) -> Json:
    if button.url is not None:
        return {"text": button.text, "url": button.url}
    return {"text": button.text, "callback_data": button.data}


def message_json(bot: BotProfile, chat: Chat, msg: StoredMessage, *, nested: bool = False) -> Json:
    """The full Telegram Message; a replied-to message is embedded once (not recursively)."""
    out: Json = {
        "message_id": msg.message_id,
        "from": bot.user_json() if msg.sender == "bot" else user_json(chat),
        "chat": chat_json(chat),
        "date": msg.date,
    }
    if msg.edit_date is not None:
        out["edit_date"] = msg.edit_date
    if msg.document is not None or msg.photo is not None or msg.media is not None:
        if msg.media is not None:
            out[msg.media.kind] = msg.media.to_json()
        elif msg.photo is not None:
            out["photo"] = msg.photo.to_json()
        else:
            out["document"] = msg.document.to_json()
        if msg.text:
            out["caption"] = msg.text
        if msg.entities:
            out["caption_entities"] = msg.entities
    else:
        out["text"] = msg.text
        if msg.entities:
            out["entities"] = msg.entities
    if msg.keyboard:
        out["reply_markup"] = keyboard_json(msg.keyboard)
    if msg.reply_to is not None and not nested:
        replied = chat.messages.get(msg.reply_to)
        if replied is not None:
            out["reply_to_message"] = message_json(bot, chat, replied, nested=True)
    return out


def callback_query_json(bot: BotProfile, chat: Chat, query: PendingQuery) -> Json:
    """The CallbackQuery for a press; ``message`` is the pressed message as it is now."""
    out: Json = {
        "id": query.query_id,
        "from": user_json(chat),
        "chat_instance": chat_instance(chat.user_id),
        "data": query.data,
    }
    msg = chat.messages.get(query.message_id)
    if msg is not None:
        out["message"] = message_json(bot, chat, msg)
    return out


def parse_inline_keyboard(markup: Any) -> list[list[Button]]:
    """Validate ``reply_markup`` like Telegram and return its inline buttons.

    Reply keyboards, ForceReply and ReplyKeyboardRemove are accepted but not shown:
    the web page only renders inline keyboards.
    """
    if markup is None:
        return []
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    rows = markup.get("inline_keyboard")
    if rows is None:
        return []
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad_request("can't parse inline keyboard button: InlineKeyboardButton must be an Object")
    return [[_parse_button(raw) for raw in row] for row in rows]


def _parse_button(raw: Any) -> Button:
    if not isinstance(raw, dict):
        raise bad_request("can't parse inline keyboard button: InlineKeyboardButton must be an Object")
    text = raw.get("text")
    if not isinstance(text, str):
        raise bad_request('can\'t parse inline keyboard button: Field "text" must be of type String')
    if not text.strip():
        raise bad_request("BUTTON_TEXT_INVALID")
    if "callback_data" in raw:
        data = raw["callback_data"]
        if not isinstance(data, str) or not 1 <= len(data.encode("utf-8")) <= 64:
            raise bad_request("BUTTON_DATA_INVALID")
        return Button(text, data=data, raw=dict(raw))
    if "url" in raw:
        url = raw["url"]
        if not isinstance(url, str) or not re.match(r"^(https?|tg)://\S+$", url, re.IGNORECASE):
            raise bad_request(f"inline keyboard button URL '{url}' is invalid: Wrong HTTP URL")
        host = urlparse(url).hostname or ""
        if url.lower().startswith("http") and "." not in host:  # Telegram refuses e.g. http://localhost:8080
            raise bad_request("BUTTON_URL_INVALID")
        return Button(text, url=url, raw=dict(raw))
    if any(key in raw for key in _OTHER_ACTIONS):
        return Button(text, raw=dict(raw))
    raise bad_request("text buttons are unallowed in the inline keyboard")
