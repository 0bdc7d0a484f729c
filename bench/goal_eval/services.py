"""The sandbox world's real servers, started once per evaluation run.

A private redis-server, pymap (IMAP) with an SMTP server that keeps every message it is handed,
Radicale (CalDAV), and the sandbox restaurant and shop sites behind Deputy's OpenAPI import. Cases
never see each other's data: each case gets its own user id (goals, memories, settings), its own
IMAP mailbox, a calendar account emptied and re-seeded for it, and site state replaced for it.
The sites and the calendar connector read the time from `clock`, which the running case sets to
its own "now".
"""

from __future__ import annotations

import secrets
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from redis import Redis

from deputy.connectors.openapi.api import ImportedApi
from deputy.connectors.openapi.document import fetch_openapi
from deputy.connectors.openapi.importer import import_openapi
from deputy.core.infrastructure.clock import ManualClock
from deputy.runtime.operations import KNOWN_OVERRIDES
from deputy.testing.stack import RedisServer
from deputy.sandbox import restaurants, shop
from deputy.sandbox.calendar import SandboxCalendar
from deputy.sandbox.mail import LocalMailServer
from deputy.sandbox.mailstore import DEMO_PASSWORD, MailStore
from deputy.sandbox.webapp_common import SiteServer

CALDAV_USER = "eval@goal-eval.test"


class CaseClock(ManualClock):
    """The run's one clock, in seconds; `zone` is the running case's, for the sites' local time."""

    zone: str = "UTC"

    def local(self) -> datetime:
        from zoneinfo import ZoneInfo

        return datetime.fromtimestamp(self(), tz=timezone.utc).astimezone(ZoneInfo(self.zone)).replace(tzinfo=None)

    def utc(self) -> datetime:
        return datetime.fromtimestamp(self(), tz=timezone.utc)


class EvalServices:
    """Start with `start()`, stop with `stop()`; `apis` are the sites as Deputy imports them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.clock = CaseClock(0.0)
        self.redis_server = RedisServer(root / "redis")
        self.store = MailStore(root / "imap")
        self.smtp = LocalMailServer()
        self.calendar = SandboxCalendar(root / "caldav", username=CALDAV_USER,
                                        password="cal-" + secrets.token_hex(6))
        self.restaurant_app = restaurants.create_app(seed=False, clock=self.clock.local)
        self.shop_app = shop.create_app(seed=False, clock=self.clock.local)
        self._sites = {"restaurants": SiteServer(self.restaurant_app), "shop": SiteServer(self.shop_app)}
        self.urls: dict[str, str] = {}
        self.apis: list[ImportedApi] = []
        self._stops: list[Callable[[], None]] = []
        self.redis: Redis | None = None

    def start(self) -> EvalServices:
        self.root.mkdir(parents=True, exist_ok=True)
        self.redis_server.start()
        self._stops.append(self.redis_server.stop)
        self.redis = Redis.from_url(self.redis_server.url)
        self.store.start()
        self._stops.append(self.store.stop)
        self.smtp.start()
        self._stops.append(self.smtp.stop)
        self.calendar.start()
        self._stops.append(self.calendar.stop)
        import httpx

        with httpx.Client(timeout=20, trust_env=False) as client:
            for name, server in self._sites.items():
                self.urls[name] = server.start()
                self._stops.append(server.stop)
                document = fetch_openapi(client, f"{self.urls[name]}/openapi.json")
                self.apis.append(import_openapi(document, service=name, overrides=KNOWN_OVERRIDES.get(name)))
        return self

    def reachable(self) -> list[str]:
        """What the egress guard lets the site operations reach (loopback only)."""
        return [url.removeprefix("http://") for url in self.urls.values()]

    @property
    def imap_port(self) -> int:
        return self.store.port

    @property
    def mail_password(self) -> str:
        return DEMO_PASSWORD

    def stop(self) -> None:
        for stop in reversed(self._stops):
            try:
                stop()
            except Exception:  # stopping the rest matters more than one failure
                pass
        self._stops.clear()

    def __enter__(self) -> EvalServices:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
