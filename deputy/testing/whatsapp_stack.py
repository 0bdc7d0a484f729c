"""A person on WhatsApp, driven through the local WhatsApp emulator's user-side API (tests, benchmarks)."""

from __future__ import annotations

import base64
import time
from typing import Any, Callable

import httpx
from redis import Redis

from deputy.testing.stack import wait_for

Message = dict[str, Any]


class WhatsAppUser:
    def __init__(self, base_url: str, wa_id: str, name: str = "Tester") -> None:
        self.wa_id = wa_id
        self.name = name
        self._http = httpx.Client(base_url=base_url, timeout=60)

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = self._http.post(f"/api/users/{self.wa_id}/{path}", json={"name": self.name, **body})
        response.raise_for_status()
        return response.json()

    def send(self, text: str, **hooks: Any) -> dict[str, Any]:
        """Send a text; the answer says what the webhook answered (`status`, `statuses`, `message_id`).
        Hooks: `duplicate=True`, `signature="bad"` or `"none"`."""
        return self._post("messages", {"text": text, **hooks})

    def press(self, message: Message, title: str | None = None, ident: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"message_id": message["id"]}
        body.update({"button": title} if title is not None else {"id": ident})
        return self._post("press", body)

    def send_file(self, filename: str, mime_type: str, data: bytes, caption: str = "") -> dict[str, Any]:
        return self._post("files", {"filename": filename, "mime_type": mime_type, "caption": caption,
                                    "data": base64.b64encode(data).decode()})

    def fall_silent(self, hours: float = 25, redis: Redis | None = None) -> None:
        """As if the user last wrote `hours` ago: for WhatsApp (the emulator) and, given its Redis, for Deputy."""
        self._post("silence", {"hours": hours})
        if redis is not None:
            redis.set(f"deputy:wa:last_in:{self.wa_id}", f"{time.time() - hours * 3600:.3f}")

    def messages(self, after: int = 0) -> list[Message]:
        response = self._http.get(f"/api/users/{self.wa_id}/messages", params={"after": after})
        response.raise_for_status()
        return response.json()

    def bot_messages(self, after: int = 0) -> list[Message]:
        return [m for m in self.messages(after) if m["from"] == "bot"]

    def last_seq(self) -> int:
        return max((m["seq"] for m in self.messages()), default=0)

    def wait_for_bot(self, predicate: Callable[[Message], bool], after: int = 0, timeout: float = 30.0) -> Message:
        def find() -> Message | None:
            return next((m for m in self.bot_messages(after) if predicate(m)), None)

        return wait_for(find, timeout=timeout, what=f"a WhatsApp message for {self.wa_id}")

    def wait_for_card(self, after: int = 0, timeout: float = 30.0) -> Message:
        return self.wait_for_bot(lambda m: any(b["title"] == "Approve" for b in m["buttons"]), after, timeout)
