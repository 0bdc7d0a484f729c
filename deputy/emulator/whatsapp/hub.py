"""The emulator's parts together: configuration, conversations and webhook deliveries."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from deputy.emulator.whatsapp.delivery import Deliverer, envelope
from deputy.emulator.whatsapp.state import WaState


@dataclass
class WaEmulatorConfig:
    webhook_url: str
    token: str = field(repr=False)
    app_secret: str = field(repr=False)
    phone_number_id: str
    templates: set[str] = field(default_factory=lambda: {"deputy_checkin"})
    telegram_page: str | None = None


class WaHub:
    def __init__(self, config: WaEmulatorConfig, state: WaState | None = None) -> None:
        self.config = config
        self.state = state or WaState()
        self.deliverer = Deliverer(config.webhook_url, config.app_secret)
        self._changed = asyncio.Event()

    def status(self, wa_id: str, wamid: str, status: str, errors: list[dict[str, Any]] | None = None) -> None:
        record: dict[str, Any] = {"id": wamid, "status": status, "timestamp": str(int(self.state.clock())),
                                  "recipient_id": wa_id}
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
