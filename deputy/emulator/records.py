"""Records of the emulated chats (dataclasses), with their JSON shapes for the user API."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Json = dict[str, Any]
Sender = Literal["bot", "user"]


@dataclass(frozen=True)
class Button:
    """One inline keyboard button; ``raw`` is the bot's own JSON, echoed back verbatim."""

    text: str
    data: str | None = None
    url: str | None = None
    raw: Json = field(default_factory=dict)

    def to_user_json(self) -> Json:
        """The user-API shape: ``{"text", "data"}`` or ``{"text", "url"}``."""
        if self.url is not None:
            return {"text": self.text, "url": self.url}
        return {"text": self.text, "data": self.data}


@dataclass(frozen=True)
class Document:
    """A file the bot sent; ``content`` is kept so the page can offer a download."""

    file_id: str
    file_unique_id: str
    file_name: str
    file_size: int
    mime_type: str
    content: bytes | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> Json:
        """Telegram's Document object."""
        return {
            "file_id": self.file_id,
            "file_unique_id": self.file_unique_id,
            "file_name": self.file_name,
            "mime_type": self.mime_type,
            "file_size": self.file_size,
        }


@dataclass(frozen=True)
class Photo:
    """A photo the bot sent: its file (bytes kept like a document's) and its size in pixels."""

    file: Document
    width: int
    height: int

    def to_json(self) -> list[Json]:
        """Telegram's ``photo``: an array of PhotoSize (one size: the image as sent)."""
        return [
            {
                "file_id": self.file.file_id,
                "file_unique_id": self.file.file_unique_id,
                "width": self.width,
                "height": self.height,
                "file_size": self.file.file_size,
            }
        ]

    def to_user_json(self) -> Json:
        """The user-API shape: where to fetch it, its size and type."""
        return {
            "file_id": self.file.file_id,
            "width": self.width,
            "height": self.height,
            "file_size": self.file.file_size,
            "mime_type": self.file.mime_type,
            "url": f"/api/files/{self.file.file_id}",
        }


@dataclass(frozen=True)
class Media:
    """A voice note, audio file, video or round video note a user sent: its file and length in seconds."""

    kind: Literal["voice", "audio", "video", "video_note"]
    file: Document
    duration: int
    width: int = 0
    height: int = 0

    def to_json(self) -> Json:
        """Telegram's Voice, Audio, Video or VideoNote object."""
        out: Json = {"file_id": self.file.file_id, "file_unique_id": self.file.file_unique_id,
                     "duration": self.duration, "file_size": self.file.file_size}
        if self.kind != "video_note":
            out["mime_type"] = self.file.mime_type
        if self.kind == "video":
            out.update(width=self.width, height=self.height)
        if self.kind == "video_note":
            out["length"] = self.width
        if self.kind in ("audio", "video"):
            out["file_name"] = self.file.file_name
        return out


@dataclass
class StoredMessage:
    """A message of a private chat. For documents and photos, ``text``/``entities`` hold the caption."""

    message_id: int
    sender: Sender
    date: int
    text: str = ""
    entities: list[Json] = field(default_factory=list)
    keyboard: list[list[Button]] = field(default_factory=list)
    reply_to: int | None = None
    edit_date: int | None = None
    document: Document | None = None
    photo: Photo | None = None
    media: Media | None = None

    @property
    def edited(self) -> bool:
        """Whether the text (or caption) was edited after sending."""
        return self.edit_date is not None

    def to_user_json(self) -> Json:
        """The user-API shape (the documented keys plus date, entities, reply_to, document, photo)."""
        return {
            "message_id": self.message_id,
            "from": self.sender,
            "text": self.text,
            "buttons": [[b.to_user_json() for b in row] for row in self.keyboard],
            "edited": self.edited,
            "date": self.date,
            "entities": self.entities,
            "reply_to": self.reply_to,
            "document": self.document.to_json() if self.document else None,
            "photo": self.photo.to_user_json() if self.photo else None,
            "media": {"kind": self.media.kind, **self.media.to_json()} if self.media else None,
        }


@dataclass(frozen=True)
class CallbackAnswer:
    """What the bot answered to a button press (Telegram shows it as a toast or alert)."""

    callback_query_id: str
    text: str
    show_alert: bool
    url: str | None = None

    def to_user_json(self) -> Json:
        """The user-API shape ``{"callback_query_id", "text", "show_alert"}`` (+ url if any)."""
        out: Json = {
            "callback_query_id": self.callback_query_id,
            "text": self.text,
            "show_alert": self.show_alert,
        }
        if self.url is not None:
            out["url"] = self.url
        return out


@dataclass
class Chat:
    """A private chat with one user; chat id == user id, as in Telegram."""

    user_id: int
    first_name: str
    messages: dict[int, StoredMessage] = field(default_factory=dict)
    answers: list[CallbackAnswer] = field(default_factory=list)
    next_message_id: int = 1
    blocked: bool = False  # the user blocked the bot: sends answer 403


@dataclass
class PendingQuery:
    """A callback query the bot has not answered yet."""

    query_id: str
    user_id: int
    message_id: int
    data: str
    answered: bool = False
    pressed_at: float = 0.0  # the emulator's clock at the press: a query expires some seconds later


@dataclass(frozen=True)
class ChatEvent:
    """A change for live viewers; ``user_id`` None means every chat (e.g. a reset)."""

    user_id: int | None
    payload: Json
