"""The :class:`Emulator`: chat state + the bot's update queue + live event fan-out.

Both HTTP sides share one Emulator (stored in the aiohttp app under ``EMULATOR_KEY``);
in-process tests may also drive it directly.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from aiohttp import web

from deputy.emulator.errors import UserApiError, too_many_requests, unauthorized
from deputy.emulator.events import EventBus
from deputy.emulator.records import Chat, Document, Json, Media, Photo, StoredMessage
from deputy.emulator.rules import ApiRules, SendRates
from deputy.emulator.state import ChatState
from deputy.emulator.tgobjects import (
    BotProfile,
    callback_query_json,
    command_entities,
    message_json,
)
from deputy.emulator.updates import UpdateQueue
from deputy.emulator.webhook import Backoff, WebhookPusher


class Emulator:
    """One emulated Telegram bot and its private chats."""

    def __init__(
        self, profile: BotProfile | None = None, clock: Callable[[], float] = time.time,
        webhook_backoff: Backoff | None = None, rules: ApiRules | None = None,
    ) -> None:
        self.profile = profile or BotProfile()
        self.rules = rules or ApiRules()
        self.state = ChatState(clock, self.rules)
        self._clock = clock
        self.rates = SendRates(self.rules)
        #: The bot's one valid token (None: any token is the bot's); ``revoke_token`` changes it.
        self.token: str | None = self.rules.token
        self.updates = UpdateQueue()
        self.webhook = WebhookPusher(self.updates, webhook_backoff, clock)
        self.events = EventBus()
        self.state.listeners.append(self.events.publish)

    def message_json(self, chat: Chat, msg: StoredMessage) -> Json:
        """The complete Telegram Message object for ``msg``."""
        return message_json(self.profile, chat, msg)

    def user_sends(
        self, user_id: int, text: str, first_name: str | None = None, reply_to: int | None = None
    ) -> StoredMessage:
        """A user writes to the bot: store the message and queue a ``message`` update.

        Any text is accepted, even empty or longer than Telegram allows, so the bot
        under test can be checked for handling such input politely.
        """
        chat = self.state.open_chat(user_id, first_name)
        if reply_to is not None and reply_to not in chat.messages:
            raise UserApiError(404, f"message {reply_to} (reply_to) not found in the chat of user {user_id}")
        msg = self.state.add_message(
            chat, "user", text=text, entities=command_entities(text), reply_to=reply_to
        )
        self.updates.put("message", self.message_json(chat, msg))
        return msg

    def user_sends_file(
        self, user_id: int, document: Document, caption: str = "", first_name: str | None = None,
        photo: Photo | None = None, media: Media | None = None,
    ) -> StoredMessage:
        """A user sends a file, a photo, a voice note, an audio file or a video (with an optional caption):
        a ``message`` update with a document, photo, voice, audio, video or video_note."""
        chat = self.state.open_chat(user_id, first_name)
        msg = self.state.add_message(chat, "user", text=caption, document=None if photo or media else document,
                                     photo=photo, media=media)
        self.updates.put("message", self.message_json(chat, msg))
        return msg

    def user_presses(
        self, user_id: int, message_id: int, *, button: str | None = None, data: str | None = None
    ) -> str:
        """A user presses an inline button (by label, or with forged data); returns the query id."""
        query = self.state.press(user_id, message_id, label=button, data=data)
        chat = self.state.chats[user_id]
        self.updates.put("callback_query", callback_query_json(self.profile, chat, query))
        return query.query_id

    def user_edits(self, user_id: int, message_id: int, text: str) -> StoredMessage:
        """A user edits their own message: the chat shows the new text, the bot gets ``edited_message``."""
        msg = self.state.user_edits(user_id, message_id, text, command_entities(text))
        chat = self.state.chats[user_id]
        self.updates.put("edited_message", self.message_json(chat, msg))
        return msg

    def user_deletes(self, user_id: int, message_id: int) -> None:
        """A user deletes a message (the bot is not told; editing it then finds nothing)."""
        self.state.user_deletes(user_id, message_id)

    def user_blocks(self, user_id: int, blocked: bool = True) -> None:
        """A user blocks the bot (or unblocks it): sends to their chat answer 403 meanwhile."""
        self.state.set_blocked(user_id, blocked)

    def check_token(self, token: str) -> None:
        """401 for a token that is not the bot's (as Telegram answers a revoked one)."""
        if self.token is not None and token != self.token:
            raise unauthorized()

    def check_send_rate(self, chat_id: int) -> None:
        """429 with ``retry_after`` when the chat, or the bot overall, sends faster than Telegram allows."""
        wait = self.rates.take(chat_id, self._clock())
        if wait is not None:
            raise too_many_requests(wait)

    def reset(self) -> None:
        """Forget all chats and pending updates."""
        self.state.reset()
        self.updates.clear()
        self.rates.reset()

    def close(self) -> None:
        """Release long polls and live streams so the server can stop promptly."""
        self.updates.close()
        self.events.close()


EMULATOR_KEY: web.AppKey[Emulator] = web.AppKey("emulator", Emulator)
