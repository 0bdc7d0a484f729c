"""Errors raised by the emulator's core, turned into HTTP answers by the route modules."""

from __future__ import annotations

from typing import Any


class BotApiError(Exception):
    """A failure answered to the bot in Telegram's envelope.

    ``description`` is the full Telegram text (e.g. ``"Bad Request: chat not found"``)
    because bots and PTB match on it, so it must read exactly like Telegram's.
    """

    def __init__(self, description: str, error_code: int = 400) -> None:
        super().__init__(description)
        self.description = description
        self.error_code = error_code

    def to_json(self) -> dict[str, Any]:
        """Telegram's error envelope."""
        return {"ok": False, "error_code": self.error_code, "description": self.description}


class UserApiError(Exception):
    """A failure of the user-side API, answered as ``{"error": message}`` with ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def bad_request(detail: str) -> BotApiError:
    """Telegram's usual 400, e.g. ``bad_request("chat not found")``."""
    return BotApiError(f"Bad Request: {detail}", 400)
