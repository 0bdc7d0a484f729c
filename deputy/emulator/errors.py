"""Errors raised by the emulator's core, turned into HTTP answers by the route modules."""

from __future__ import annotations

from typing import Any


class BotApiError(Exception):
    """A failure answered to the bot in Telegram's envelope.

    ``description`` is the full Telegram text (e.g. ``"Bad Request: chat not found"``)
    because bots and PTB match on it, so it must read exactly like Telegram's.
    """

    def __init__(self, description: str, error_code: int = 400, parameters: dict[str, Any] | None = None) -> None:
        super().__init__(description)
        self.description = description
        self.error_code = error_code
        self.parameters = parameters  # ResponseParameters, e.g. {"retry_after": 5} with a 429

    def to_json(self) -> dict[str, Any]:
        """Telegram's error envelope."""
        out: dict[str, Any] = {"ok": False, "error_code": self.error_code, "description": self.description}
        if self.parameters:
            out["parameters"] = self.parameters
        return out


class UserApiError(Exception):
    """A failure of the user-side API, answered as ``{"error": message}`` with ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def bad_request(detail: str) -> BotApiError:
    """Telegram's usual 400, e.g. ``bad_request("chat not found")``."""
    return BotApiError(f"Bad Request: {detail}", 400)


def too_many_requests(retry_after: int) -> BotApiError:
    """Telegram's flood-control answer: wait ``retry_after`` seconds before sending again."""
    return BotApiError(f"Too Many Requests: retry after {retry_after}", 429, {"retry_after": retry_after})


def blocked() -> BotApiError:
    """What Telegram answers a send to a user who blocked the bot."""
    return BotApiError("Forbidden: bot was blocked by the user", 403)


def unauthorized() -> BotApiError:
    """What Telegram answers a call made with a token that is not (or no longer) the bot's."""
    return BotApiError("Unauthorized", 401)
