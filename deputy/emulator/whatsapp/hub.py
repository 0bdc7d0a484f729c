"""The emulator's parts together: configuration, conversations and webhook deliveries."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from deputy.emulator.whatsapp.delivery import RETRY_DELAYS, Deliverer, envelope
from deputy.emulator.whatsapp.rules import PairRate, WaRules
from deputy.emulator.whatsapp.state import WaState


@dataclass
class WaEmulatorConfig:
    webhook_url: str
    token: str = field(repr=False)
    app_secret: str = field(repr=False)
    phone_number_id: str
    templates: set[str] = field(default_factory=lambda: {"deputy_checkin"})
    telegram_page: str | None = None
    rules: WaRules = field(default_factory=WaRules)
    webhook_retry_delays: tuple[float, ...] = RETRY_DELAYS
    """Pauses between the tries of a delivery not answered 200 in time (growing, as Meta's)."""
    webhook_timeout: float = 10.0
    """Seconds a delivery waits for the webhook's answer before it counts as not answered."""


class WaHub:
    def __init__(self, config: WaEmulatorConfig, state: WaState | None = None) -> None:
        self.config = config
        self.state = state or WaState()
        self.deliverer = Deliverer(config.webhook_url, config.app_secret, config.webhook_retry_delays,
                                   config.webhook_timeout)
        self.pair_rate = PairRate(config.rules.pair_burst, config.rules.pair_seconds) if config.rules.pair_burst else None
        self.undeliverable: dict[str, list[int]] = {}  # user -> failure codes of their next messages
        self.forced_errors: list[int] = []  # error codes the next sends answer with (a test's throughput limit)
        self._changed = asyncio.Event()

    def status(self, wa_id: str, wamid: str, status: str, errors: list[dict[str, Any]] | None = None) -> None:
        record: dict[str, Any] = {"id": wamid, "status": status, "timestamp": str(int(self.state.clock()))}
        # A user with a username and no phone number is named by their user id only.
        record["recipient_id" if wa_id.isdigit() else "recipient_user_id"] = wa_id
        if errors:
            record["errors"] = errors
        self.deliverer.post_later(envelope(self.config.phone_number_id, {"statuses": [record]}))

    def changed(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_change(self, timeout: float) -> None:
        try:
            await asyncio.wait_for(self._changed.wait(), timeout)
        except asyncio.TimeoutError:
            pass


HUB_KEY = web.AppKey("wa_hub", WaHub)
