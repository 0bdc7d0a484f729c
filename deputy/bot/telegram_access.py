"""Whether Telegram still takes the bot's token: shown in the log and in the bot's readiness.

A token revoked in @BotFather (or mistyped) makes every Bot API call answer 401 Unauthorized.
Nothing can be delivered then, but nothing is lost either: the outbox keeps its messages,
tries again every little while, and /readyz reports ``telegram`` failing until a call works.
"""

from __future__ import annotations

import logging
import time

log = logging.getLogger(__name__)

REFUSED = ("Telegram refuses the bot's token (401 Unauthorized): it was revoked or mistyped. "
           "Set TELEGRAM_BOT_TOKEN to the token @BotFather gives you and restart `deputy bot`; "
           "outgoing messages are kept until then.")


class TelegramAccess:
    """The last word Telegram gave on the token; a readiness check (True while it is taken)."""

    def __init__(self) -> None:
        self.refused_since: float | None = None

    def refused(self) -> None:
        if self.refused_since is None:
            self.refused_since = time.time()
            log.error(REFUSED)
        else:
            log.warning("Telegram still refuses the bot's token; outgoing messages are kept")

    def accepted(self) -> None:
        if self.refused_since is not None:
            log.warning("Telegram takes the bot's token again; sending the messages kept meanwhile")
        self.refused_since = None

    def __call__(self) -> bool:
        return self.refused_since is None


class HideToken(logging.Filter):
    """Keeps the bot token out of every log line (python-telegram-bot names a refused token in its
    error, and logs that error with its traceback while starting)."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self._token = token

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        message = record.getMessage()
        if self._token in message:
            record.msg, record.args = message.replace(self._token, "<the bot token>"), None
        if record.exc_text and self._token in record.exc_text:
            record.exc_text = record.exc_text.replace(self._token, "<the bot token>")
        return True


def hide_token_in_logs(token: str) -> None:
    """Every handler of the root logger leaves the token out (records of every logger pass through them)."""
    for handler in logging.getLogger().handlers:
        handler.addFilter(HideToken(token))
