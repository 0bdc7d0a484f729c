"""How strictly the emulator follows the real Bot API; the defaults are the real service's rules.

Each rule can be relaxed on its own, only where a test needs the lenient form (a benchmark
that floods one chat, a test that holds a press for longer than Telegram waits):
``Emulator(rules=ApiRules(...))`` in process, ``deputy emulator --lenient RULE`` or
``DEPUTY_EMULATOR_LENIENT=RULE,...`` for the emulator process.

The real rules (Bot API documentation and FAQ):

- a callback query must be answered within about 15 seconds of the press, else
  ``400 query is too old and response timeout expired or query ID is invalid``;
- about one message a second per chat (short bursts are let through) and about 30 a second
  overall, else ``429 Too Many Requests: retry after N`` with ``parameters.retry_after``;
- ``answerCallbackQuery`` text at most 200 characters, a message at most 4096;
- ``401 Unauthorized`` for a token that is not the bot's (revoked in @BotFather);
- ``403 Forbidden: bot was blocked by the user`` for a chat whose user blocked the bot;
- a webhook URL must be HTTPS on port 443, 80, 88 or 8443.
- one long poll per bot: a getUpdates that would wait terminates the one already waiting,
  which is answered ``409 Conflict: terminated by other getUpdates request; ...`` (always
  kept: ``deputy/emulator/updates.py``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

#: What ``--lenient`` accepts, and what each name relaxes.
LENIENCIES = {
    "query-expiry": "callback queries never expire",
    "rate-limits": "no 429: any number of messages per chat and per second",
    "webhook-url": "setWebhook takes plain http:// and any port (a bot on this machine)",
}
LENIENT_ENV = "DEPUTY_EMULATOR_LENIENT"
WEBHOOK_PORTS = frozenset({443, 80, 88, 8443})


@dataclass(frozen=True)
class ApiRules:
    """The rules the emulator enforces (each ``None`` or ``False`` one is relaxed)."""

    callback_query_seconds: float | None = 15.0
    """How long after the press a query may still be answered."""
    chat_burst: int | None = 20
    """Messages one chat takes at once before the per-chat rate applies."""
    chat_per_second: float = 1.0
    overall_burst: int | None = 30
    """Messages all chats take at once before the overall rate applies."""
    overall_per_second: float = 30.0
    strict_webhook_url: bool = True
    """HTTPS on the ports Telegram allows; off for a bot served over plain http on this machine."""
    token: str | None = None
    """The bot's one valid token: any other answers 401. None: the emulator is whichever bot calls."""

    def relaxed(self, names: Iterable[str]) -> ApiRules:
        """These rules with the named leniencies (see ``LENIENCIES``); an unknown name is an error."""
        rules = self
        for name in (n.strip() for n in names):
            if not name:
                continue
            if name == "query-expiry":
                rules = replace(rules, callback_query_seconds=None)
            elif name == "rate-limits":
                rules = replace(rules, chat_burst=None, overall_burst=None)
            elif name == "webhook-url":
                rules = replace(rules, strict_webhook_url=False)
            else:
                raise ValueError(f"unknown leniency {name!r}; known: {', '.join(LENIENCIES)}")
        return rules

    @classmethod
    def from_environment(cls, extra: Iterable[str] = ()) -> ApiRules:
        """The real rules, relaxed by ``DEPUTY_EMULATOR_LENIENT`` (comma separated) and ``extra``."""
        return cls().relaxed([*os.environ.get(LENIENT_ENV, "").split(","), *extra])


@dataclass
class Bucket:
    """A token bucket: ``burst`` sends at once, refilled at ``per_second``."""

    burst: int
    per_second: float
    tokens: float = field(init=False)
    at: float | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.tokens = float(self.burst)

    def wait(self, now: float) -> int | None:
        """None if a send may go now, else the whole seconds to wait (>= 1); counts nothing."""
        if self.at is not None:
            self.tokens = min(float(self.burst), self.tokens + max(now - self.at, 0.0) * self.per_second)
        self.at = now
        if self.tokens >= 1.0:
            return None
        return max(1, math.ceil((1.0 - self.tokens) / self.per_second))

    def spend(self) -> None:
        self.tokens -= 1.0


class SendRates:
    """Telegram's flood control for sends: per chat and overall (429 with ``retry_after``)."""

    def __init__(self, rules: ApiRules) -> None:
        self._rules = rules
        self._chats: dict[int, Bucket] = {}
        self._overall = Bucket(rules.overall_burst, rules.overall_per_second) if rules.overall_burst else None

    def take(self, chat_id: int, now: float) -> int | None:
        """None if a message to ``chat_id`` may go now, else how many seconds to wait."""
        buckets = [self._overall] if self._overall is not None else []
        if self._rules.chat_burst:
            buckets.append(self._chats.setdefault(chat_id, Bucket(self._rules.chat_burst, self._rules.chat_per_second)))
        waits = [w for w in (b.wait(now) for b in buckets) if w is not None]
        if waits:
            return max(waits)  # a refused send counts against neither limit
        for bucket in buckets:
            bucket.spend()
        return None

    def reset(self) -> None:
        self._chats.clear()
        if self._overall is not None:
            self._overall = Bucket(self._overall.burst, self._overall.per_second)


def check_webhook_url(url: str) -> str | None:
    """Telegram's answer to a webhook URL it refuses (None if it takes it)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme != "https":
        return "bad webhook: An HTTPS URL must be provided for webhook"
    try:
        port = parts.port or 443
    except ValueError:
        return "bad webhook: Wrong port number specified in the URL"
    if port not in WEBHOOK_PORTS:
        return "bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443"
    return None
