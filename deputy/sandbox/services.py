"""The sandbox world as running services: what `deputy sandbox` and `deputy run` start.

A mail server (SMTP that delivers into per-address IMAP mailboxes, with a seeded inbox
for the demo user), a CalDAV calendar with seeded events, and three small sites with
HTML pages and JSON APIs described by OpenAPI documents: a restaurant booking site, a
ticket shop, two shops, an airline and a hotel site, and a web search over them. All on loopback, all with the same demo
password.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from pydantic import BaseModel

from deputy.sandbox.mail import LocalMailServer
from deputy.sandbox.oauth_provider import OAuthProvider
from deputy.sandbox.xoauth2 import ImapOAuthFront
from deputy.sandbox.mailstore import DEMO_PASSWORD, MailStore, seed_demo_inbox

log = logging.getLogger(__name__)

DEMO_ADDRESS = "demo@sandbox.local"
SEARCH_PORT = 8095
"""Where `deputy.connectors.web.DEFAULT_SEARCH_URL` expects the sandbox search."""


class SandboxEndpoints(BaseModel):
    demo_address: str = DEMO_ADDRESS
    demo_password: str = DEMO_PASSWORD
    smtp_host: str = "127.0.0.1"
    smtp_port: int
    imap_host: str = "127.0.0.1"
    imap_port: int
    caldav_url: str | None = None
    restaurants_url: str | None = None
    tickets_url: str | None = None
    shop_url: str | None = None
    market_url: str | None = None
    """The second shop (`deputy.sandbox.market`): overlapping items, other prices and shipping."""
    marketplace_url: str | None = None
    """The marketplace listing and the provider's retention desk, with scripted counterparts."""
    flights_url: str | None = None
    """The sandbox airline (`deputy.sandbox.flights`): flights, moving fares, bookings and refunds."""
    hotels_url: str | None = None
    """The sandbox hotels (`deputy.sandbox.hotels`): rooms by city and dates, cancellation, booking."""
    search_url: str | None = None
    """The sandbox web search (its results page is `<search_url>/search?q=...`)."""
    oauth_url: str | None = None
    """The sandbox OAuth provider (`deputy.sandbox.oauth_provider`): sign in as the demo user."""
    imap_oauth_port: int | None = None
    """The IMAP port that takes the provider's tokens (AUTHENTICATE XOAUTH2); SMTP takes them on its own port."""
    caldav_oauth_url: str | None = None
    """The sandbox calendar for bearer tokens of the provider (`deputy.sandbox.caldav_oauth`)."""

    def oauth_provider_spec(self) -> str:
        """DEPUTY_OAUTH_PROVIDERS for Deputy to offer "Sign in with Sandbox" (mail)."""
        if not self.oauth_url or not self.imap_oauth_port:
            return ""
        from deputy.sandbox.oauth_provider import CLIENT_ID, SCOPES

        return json.dumps([{
            "name": "sandbox", "title": "Sandbox", "authorize_url": f"{self.oauth_url}/authorize",
            "token_url": f"{self.oauth_url}/token", "revoke_url": f"{self.oauth_url}/revoke", "client_id": CLIENT_ID,
            "scopes": {s: s for s in SCOPES}, "imap_host": self.imap_host, "imap_port": self.imap_oauth_port,
            "imap_security": "none", "smtp_host": self.smtp_host, "smtp_port": self.smtp_port,
            "smtp_security": "none", **({"caldav_url": self.caldav_oauth_url} if self.caldav_oauth_url else {})}])
    issuer_url: str | None = None
    """The sandbox card issuer (`deputy.sandbox.issuer`); the shops are paid through it."""
    issuer_key: str | None = None
    """Deputy's key for the issuer's cardholder API."""
    mandate_key: str | None = None
    """The key Deputy's executor signs cart mandates with; the issuer verifies them with it."""

    def site_urls(self) -> dict[str, str]:
        sites = {"restaurants": self.restaurants_url, "tickets": self.tickets_url, "shop": self.shop_url,
                 "market": self.market_url, "marketplace": self.marketplace_url, "flights": self.flights_url,
                 "hotels": self.hotels_url}
        return {name: url for name, url in sites.items() if url}


class SandboxServices:
    def __init__(self, data_dir: Path, clock: Callable[[], float] = time.time) -> None:
        """`clock`: the sites', the issuer's and the seeded calendar's time (a test's shared clock
        puts the whole world on the date the test chose)."""
        self._dir = data_dir / "sandbox"
        self._clock = clock
        self._stoppers: list = []
        self.issuer = None
        """The sandbox card issuer once started (tests read its tokens)."""
        self.apps: dict = {}
        """The running sites' applications by name (tests read or change their state)."""
        self.oauth: OAuthProvider | None = None
        """The sandbox OAuth provider once started (tests let its time pass, or revoke its grants)."""

    def start(self) -> SandboxEndpoints:
        self._dir.mkdir(parents=True, exist_ok=True)
        store = MailStore(self._dir / "imap")
        _, imap_port = store.start()
        self._stoppers.append(store.stop)
        if not (self._dir / "imap" / ".seeded").exists():
            seed_demo_inbox(store, DEMO_ADDRESS)
            (self._dir / "imap" / ".seeded").touch()
        oauth_url, provider = self._start_oauth()
        smtp = LocalMailServer(maildir_root=self._dir / "sent", username=DEMO_ADDRESS, password=DEMO_PASSWORD,
                               store=store, token_check=provider.check)
        smtp.start()
        self._stoppers.append(smtp.stop)
        front = ImapOAuthFront((store.host, imap_port), provider.check, store.password_for)
        front.start()
        self._stoppers.append(front.stop)
        endpoints = SandboxEndpoints(smtp_port=smtp.port, imap_port=imap_port, oauth_url=oauth_url,
                                     imap_oauth_port=front.port)
        endpoints = self._start_calendar(endpoints)
        return self._start_sites(endpoints)

    def _start_oauth(self) -> tuple[str, OAuthProvider]:
        from deputy.sandbox.oauth_pages import create_app
        from deputy.sandbox.webapp_common import SiteServer

        provider = self.oauth = OAuthProvider({DEMO_ADDRESS: DEMO_PASSWORD})
        server = SiteServer(create_app(provider))
        url = server.start()
        self._stoppers.append(server.stop)
        return url, provider

    def _start_calendar(self, endpoints: SandboxEndpoints) -> SandboxEndpoints:
        from deputy.sandbox.calendar import SandboxCalendar

        calendar = SandboxCalendar(self._dir / "calendar", username=DEMO_ADDRESS, password=DEMO_PASSWORD)
        calendar.start()
        self._stoppers.append(calendar.stop)
        marker = self._dir / "calendar" / ".seeded"
        if not marker.exists():
            calendar.seed_demo_calendar(datetime.fromtimestamp(self._clock(), timezone.utc))
            marker.touch()
        from deputy.sandbox.caldav_oauth import create_app
        from deputy.sandbox.webapp_common import SiteServer

        assert self.oauth is not None
        front = SiteServer(create_app(calendar.url, self.oauth.check, lambda user: DEMO_PASSWORD))
        front_url = front.start()
        self._stoppers.append(front.stop)
        return endpoints.model_copy(update={"caldav_url": calendar.url, "caldav_oauth_url": front_url + "/"})

    def _start_sites(self, endpoints: SandboxEndpoints) -> SandboxEndpoints:
        from deputy.sandbox import flights, hotels, market, restaurants, shop, tickets
        from deputy.sandbox.webapp_common import SiteServer

        urls, accounts = self._start_issuer()
        for name, module in (("restaurants", restaurants), ("tickets", tickets), ("shop", shop), ("market", market),
                             ("flights", flights), ("hotels", hotels)):
            options = {"check_payment": accounts[name]} if name in accounts else {}
            server = SiteServer(module.create_app(clock=self._site_clock, **options))
            self.apps[name] = server.app
            urls[f"{name}_url"] = server.start()
            if name in accounts:
                accounts[name].merchant = urls[f"{name}_url"]
            self._stoppers.append(server.stop)
        sites = {name.removesuffix("_url"): url for name, url in urls.items() if name.endswith("_url")
                 and name != "issuer_url"}
        urls["search_url"] = self._start_search(sites)
        from deputy.sandbox.negotiation import site as marketplace

        server = SiteServer(marketplace.create_app())
        urls["marketplace_url"] = server.start()
        self._stoppers.append(server.stop)
        return endpoints.model_copy(update=urls)

    def _site_clock(self) -> datetime:
        """The sites' local wall time to the second, on this world's clock."""
        return datetime.fromtimestamp(self._clock()).replace(microsecond=0)

    def _start_issuer(self) -> tuple[dict[str, str], dict]:
        """The card issuer, and an acquirer account for each site that takes payment."""
        import secrets

        from deputy.sandbox.acquirer import MerchantAccount
        from deputy.sandbox.issuer import Issuer
        from deputy.sandbox.issuer_api import create_app
        from deputy.sandbox.issuer_state import IssuerFile
        from deputy.sandbox.webapp_common import SiteServer

        agent_key, acquirer_key, mandate_key = (secrets.token_urlsafe(24) for _ in range(3))
        # The issuer remembers enrolled cards and past payments across restarts (deputy.sandbox.issuer_state).
        state = IssuerFile(self._dir / "issuer.json")
        issuer = self.issuer = state.load(Issuer(mandate_key=mandate_key.encode(), clock=self._clock))
        server = SiteServer(create_app(issuer, agent_key, acquirer_key, saved=state.save))
        url = server.start()
        self._stoppers.append(server.stop)
        accounts = {name: MerchantAccount(url, acquirer_key) for name in ("tickets", "shop", "market", "flights",
                                                                                "hotels")}
        return {"issuer_url": url, "issuer_key": agent_key, "mandate_key": mandate_key}, accounts

    def _start_search(self, sites: dict[str, str]) -> str:
        """The search site on its usual port when free (the web connector's default), else any port."""
        from deputy.sandbox import search
        from deputy.sandbox.webapp_common import SiteServer

        for port in (SEARCH_PORT, 0):
            server = SiteServer(search.create_app(sites), port=port)
            try:
                url = server.start()
            except RuntimeError:
                continue
            self._stoppers.append(server.stop)
            return url
        raise RuntimeError("the sandbox search could not start")

    def stop(self) -> None:
        for stop in reversed(self._stoppers):
            try:
                stop()
            except Exception:  # stopping the rest matters more than one failure here
                log.exception("could not stop a sandbox service")
        self._stoppers.clear()
