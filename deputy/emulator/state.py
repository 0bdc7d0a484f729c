"""Pure in-memory chat state of the emulated bot: chats, messages, presses, answers.

No IO and no asyncio here: every change is reported synchronously to ``listeners``
as a :class:`ChatEvent`, and the async layers (live events, long polls) subscribe.
Telegram's rules that concern stored messages (what may be edited, what counts as
"not modified", which query ids are valid) live here so they can be tested directly.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

from deputy.emulator.errors import UserApiError, bad_request, blocked
from deputy.emulator.rules import ApiRules
from deputy.emulator.records import (
    Button,
    CallbackAnswer,
    Chat,
    ChatEvent,
    Document,
    Json,
    PendingQuery,
    Media,
    Photo,
    Sender,
    StoredMessage,
)

#: Chat actions Telegram accepts in sendChatAction.
CHAT_ACTIONS = frozenset(
    {
        "typing", "upload_photo", "record_video", "upload_video", "record_voice",
        "upload_voice", "upload_document", "choose_sticker", "find_location",
        "record_video_note", "upload_video_note",
    }
)

NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly "
    "the same as a current content and reply markup of the message"
)
QUERY_INVALID = "query is too old and response timeout expired or query ID is invalid"


def commands_key(scope: Json, language_code: str = "") -> str:
    """Where a command list is stored: Telegram keeps one per (scope, language)."""
    return "&".join(f"{k}={scope[k]}" for k in sorted(scope)) + f"|{language_code}"


class ChatState:
    """All chats of the one emulated bot, plus its command list and uploaded files."""

    def __init__(self, clock: Callable[[], float] = time.time, rules: ApiRules | None = None) -> None:
        self._clock = clock
        self.rules = rules or ApiRules()
        self.listeners: list[Callable[[ChatEvent], None]] = []
        self.chats: dict[int, Chat] = {}
        self.queries: dict[str, PendingQuery] = {}
        self.commands: dict[str, list[Json]] = {}
        self.files: dict[str, Document] = {}
        self.profile_texts: dict[tuple[str, str], str] = {}  # (field, language) -> text
        # Telegram query ids are opaque numeric strings; a counter keeps them unique.
        self._query_ids = itertools.count(4_300_000_000_000_001)

    def now(self) -> int:
        """Unix seconds, as Telegram dates are."""
        return int(self._clock())

    def _emit(self, user_id: int | None, payload: Json) -> None:
        for listener in list(self.listeners):
            listener(ChatEvent(user_id, payload))

    def reset(self) -> None:
        """Forget every chat, query, file and command (for test isolation)."""
        self.chats.clear()
        self.queries.clear()
        self.commands.clear()
        self.files.clear()
        self.profile_texts.clear()
        self._emit(None, {"type": "reset"})

    def commands_for(self, user_id: int, language_code: str = "") -> list[Json]:
        """The menu a user sees: the most specific scope, then language, that has commands."""
        scopes: list[Json] = [
            {"type": "chat", "chat_id": user_id},
            {"type": "all_private_chats"},
            {"type": "default"},
        ]
        for scope in scopes:
            for lang in dict.fromkeys([language_code, ""]):
                found = self.commands.get(commands_key(scope, lang))
                if found:
                    return found
        return []

    # -- chats -------------------------------------------------------------------------
    def require_chat(self, chat_id: int) -> Chat:
        """The chat, or Telegram's "chat not found" (the user never wrote to the bot)."""
        chat = self.chats.get(chat_id)
        if chat is None:
            raise bad_request("chat not found")
        return chat

    def writable_chat(self, chat_id: int) -> Chat:
        """The chat the bot sends to or edits in: 403 if its user blocked the bot."""
        chat = self.require_chat(chat_id)
        if chat.blocked:
            raise blocked()
        return chat

    def open_chat(self, user_id: int, first_name: str | None = None) -> Chat:
        """Get or create the user's chat; a given name renames the user."""
        chat = self.chats.get(user_id)
        if chat is None:
            chat = Chat(user_id, first_name or f"User {user_id}")
            self.chats[user_id] = chat
        elif first_name:
            chat.first_name = first_name
        return chat

    def messages_after(self, user_id: int, after: int = 0) -> list[StoredMessage]:
        """The chat's live messages with id > ``after``, oldest first ([] for unknown users)."""
        chat = self.chats.get(user_id)
        if chat is None:
            return []
        return [m for m in chat.messages.values() if m.message_id > after]

    # -- messages ----------------------------------------------------------------------
    def add_message(
        self,
        chat: Chat,
        sender: Sender,
        *,
        text: str = "",
        entities: list[Json] | None = None,
        keyboard: list[list[Button]] | None = None,
        reply_to: int | None = None,
        document: Document | None = None,
        photo: Photo | None = None,
        media: Media | None = None,
    ) -> StoredMessage:
        """Append a message; ids grow per chat and are shared by bot and user, like Telegram."""
        msg = StoredMessage(
            message_id=chat.next_message_id,
            sender=sender,
            date=self.now(),
            text=text,
            entities=list(entities or []),
            keyboard=list(keyboard or []),
            reply_to=reply_to,
            document=document,
            photo=photo,
            media=media,
        )
        chat.next_message_id += 1
        chat.messages[msg.message_id] = msg
        if document is not None:
            self.files[document.file_id] = document
        if photo is not None:
            self.files[photo.file.file_id] = photo.file
        if media is not None:
            self.files[media.file.file_id] = media.file
        self._emit(chat.user_id, {"type": "message", **msg.to_user_json()})
        return msg

    def edit_message(
        self,
        chat_id: int,
        message_id: int,
        *,
        keyboard: list[list[Button]],
        text: str | None = None,
        entities: list[Json] | None = None,
        caption: bool = False,
    ) -> StoredMessage:
        """Edit a bot message's text (or caption, for documents) and keyboard.

        ``text`` None keeps the text (editMessageReplyMarkup); the keyboard is always
        replaced because Telegram drops an inline keyboard that an edit does not resend.
        """
        msg = self.writable_chat(chat_id).messages.get(message_id)
        if msg is None:
            raise bad_request("message to edit not found")
        if msg.sender != "bot":
            raise bad_request("message can't be edited")
        has_caption = msg.document is not None or msg.photo is not None
        if text is not None and caption and not has_caption:
            raise bad_request("there is no caption in the message to edit")
        if text is not None and not caption and has_caption:
            raise bad_request("there is no text in the message to edit")
        new_text = msg.text if text is None else text
        new_entities = msg.entities if text is None else list(entities or [])
        if (new_text, new_entities, keyboard) == (msg.text, msg.entities, msg.keyboard):
            raise bad_request(NOT_MODIFIED)
        if (new_text, new_entities) != (msg.text, msg.entities):
            # Clients only mark a message "edited" when its content changed, not its buttons.
            msg.edit_date = self.now()
        msg.text, msg.entities, msg.keyboard = new_text, new_entities, list(keyboard)
        self._emit(chat_id, {"type": "edit", **msg.to_user_json()})
        return msg

    def delete_message(self, chat_id: int, message_id: int) -> None:
        """Delete any message of the chat (bots may, in private chats)."""
        chat = self.require_chat(chat_id)
        if chat.messages.pop(message_id, None) is None:
            raise bad_request("message to delete not found")
        self._emit(chat_id, {"type": "delete", "message_id": message_id})

    def user_edits(self, user_id: int, message_id: int, text: str, entities: list[Json]) -> StoredMessage:
        """The user edits one of their own text messages (the bot gets an ``edited_message``)."""
        chat = self.chats.get(user_id)
        msg = chat.messages.get(message_id) if chat else None
        if msg is None:
            raise UserApiError(404, f"message {message_id} not found in the chat of user {user_id}")
        if msg.sender != "user":
            raise UserApiError(400, f"message {message_id} is the bot's: a user can only edit their own messages")
        if msg.document is not None or msg.photo is not None:
            raise UserApiError(400, "only text messages can be edited here")
        if (text, entities) == (msg.text, msg.entities):
            raise UserApiError(400, "the new text is the same as the old one")
        msg.text, msg.entities, msg.edit_date = text, list(entities), self.now()
        self._emit(user_id, {"type": "edit", **msg.to_user_json()})
        return msg

    def user_deletes(self, user_id: int, message_id: int) -> None:
        """The user deletes a message of the chat, for both sides (Telegram tells the bot nothing)."""
        chat = self.chats.get(user_id)
        if chat is None or chat.messages.pop(message_id, None) is None:
            raise UserApiError(404, f"message {message_id} not found in the chat of user {user_id}")
        self._emit(user_id, {"type": "delete", "message_id": message_id})

    def set_blocked(self, user_id: int, is_blocked: bool) -> Chat:
        """The user blocks (or unblocks) the bot."""
        chat = self.open_chat(user_id)
        chat.blocked = is_blocked
        self._emit(user_id, {"type": "blocked", "blocked": is_blocked})
        return chat

    # -- buttons -----------------------------------------------------------------------
    def press(
        self, user_id: int, message_id: int, *, label: str | None = None, data: str | None = None
    ) -> PendingQuery:
        """Register a press on ``message_id`` by button label or with (possibly forged) data."""
        chat = self.chats.get(user_id)
        msg = chat.messages.get(message_id) if chat else None
        if msg is None:
            raise UserApiError(404, f"message {message_id} not found in the chat of user {user_id}")
        if label is not None:
            data = self._data_for_label(msg, label)
        if data is None:
            raise UserApiError(400, 'give a button label or callback "data" to press')
        query = PendingQuery(str(next(self._query_ids)), user_id, message_id, data, pressed_at=self._clock())
        self.queries[query.query_id] = query
        return query

    @staticmethod
    def _data_for_label(msg: StoredMessage, label: str) -> str:
        buttons = [b for row in msg.keyboard for b in row]
        # Exact label first, then ignoring case and outer spaces (kinder to hand-written tests).
        found = [b for b in buttons if b.text == label] or [
            b for b in buttons if b.text.strip().lower() == label.strip().lower()
        ]
        if not found:
            labels = [b.text for b in buttons]
            raise UserApiError(
                400, f"no button {label!r} on message {msg.message_id}; its buttons are {labels}"
            )
        button = found[0]
        if button.data is None:
            kind = f"a URL button (opens {button.url})" if button.url else "not a callback button"
            raise UserApiError(400, f"button {label!r} is {kind}; it has no callback data")
        return button.data

    def answer_callback(
        self, query_id: str, text: str = "", show_alert: bool = False, url: str | None = None
    ) -> CallbackAnswer:
        """Record the bot's answer; each query may be answered once, and only soon after the press."""
        query = self.queries.get(query_id)
        if query is None or query.answered or self.expired(query):
            raise bad_request(QUERY_INVALID)
        query.answered = True
        answer = CallbackAnswer(query_id, text, show_alert, url)
        chat = self.chats.get(query.user_id)
        if chat is not None:
            chat.answers.append(answer)
        self._emit(query.user_id, {"type": "answer", **answer.to_user_json()})
        return answer

    def expired(self, query: PendingQuery) -> bool:
        """Whether Telegram would no longer take an answer to this press (about 15 s after it)."""
        limit = self.rules.callback_query_seconds
        return limit is not None and self._clock() - query.pressed_at > limit

    def record_action(self, chat_id: int, action: str) -> None:
        """A chat action ("typing"); viewers show it for a few seconds."""
        self.writable_chat(chat_id)
        if action not in CHAT_ACTIONS:
            raise bad_request("wrong parameter action in request")
        self._emit(chat_id, {"type": "action", "action": action, "date": self.now()})
