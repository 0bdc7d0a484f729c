"""The emulator's conversations (one per WhatsApp user) and uploaded media, in memory."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Callable

WINDOW_SECONDS = 24 * 3600

Json = dict[str, Any]


def new_wamid() -> str:
    return "wamid." + secrets.token_urlsafe(24)


@dataclass
class Media:
    data: bytes
    mime_type: str
    filename: str


@dataclass
class User:
    wa_id: str
    name: str
    last_in: float | None = None
    messages: list[Json] = field(default_factory=list)


class WaState:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.users: dict[str, User] = {}
        self.media: dict[str, Media] = {}
        self._seq = 0

    def user(self, wa_id: str, name: str | None = None) -> User:
        user = self.users.get(wa_id)
        if user is None:
            user = self.users[wa_id] = User(wa_id, name or f"User {wa_id[-4:]}")
        elif name:
            user.name = name
        return user

    def add(self, wa_id: str, entry: Json) -> Json:
        self._seq += 1
        entry = {"seq": self._seq, "time": self.clock(), **entry}
        self.user(wa_id).messages.append(entry)
        return entry

    def find(self, wamid: str) -> tuple[User, Json] | None:
        for user in self.users.values():
            for entry in user.messages:
                if entry["id"] == wamid:
                    return user, entry
        return None

    def window_open(self, wa_id: str) -> bool:
        user = self.users.get(wa_id)
        return user is not None and user.last_in is not None and self.clock() - user.last_in < WINDOW_SECONDS

    def store_media(self, data: bytes, mime_type: str, filename: str) -> str:
        media_id = str(10**15 + secrets.randbelow(9 * 10**15))
        self.media[media_id] = Media(data, mime_type, filename)
        return media_id
