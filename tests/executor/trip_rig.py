"""A traveller's Deputy: the real runner, executor, guard and approvals inline over real Redis; the
sandbox airline, hotels and card issuer as real HTTP services and a real CalDAV calendar, all on one
manual clock; a scripted model that plans a trip and books the first option."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr
from redis import Redis

from deputy.agent.goals import GoalStore
from deputy.agent.model.testing import FunctionModel, message_text, tool_call
from deputy.connectors.calendar.client import CalDavAccount
from deputy.connectors.calendar.runners import CalendarRunners
from deputy.connectors.openapi.document import fetch_openapi
from deputy.connectors.openapi.importer import import_openapi
from deputy.connectors.openapi.runner import OpenApiRunner
from deputy.core.accounts.connect_links import TRAVELLER_HANDLE
from deputy.core.infrastructure.clock import ManualClock
from deputy.executor.issuer_client import HttpIssuerClient
from deputy.executor.mandates import MandateSigner
from deputy.executor.payments import PaymentIssuer
from deputy.executor.review_context import ReviewContextBuilder, stored_rules
from deputy.executor.travel import travel_runners
from deputy.runtime.operations import KNOWN_OVERRIDES, build_catalog
from deputy.sandbox import flights, hotels
from deputy.sandbox.acquirer import MerchantAccount
from deputy.sandbox.calendar import SandboxCalendar
from deputy.sandbox.issuer import Issuer
from deputy.sandbox.issuer_api import create_app
from deputy.sandbox.webapp_common import SiteServer
from deputy.sentinel.stores.approvals import Choice
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.testing.inline import InlineDeputy
from deputy.vault import CredentialKind, KdfCost, PaymentTokens, Vault

USER = 52
TRAVELLER = {"name": "Dana Demo", "date_of_birth": "1990-04-02", "passport_number": "X1234567"}
CARD = "4111111111111111"
MANDATE_KEY = b"t" * 32
GOAL = "find a four-day trip to Chicago under $1,200 that works with my calendar, not before 9am"
OPTION = re.compile(r"option=(TRIP-[A-Z0-9]+) total=([0-9.]+) currency=([A-Z]{3})")


def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]):
    results = [message_text(m) for m in messages if m.get("role") == "tool"]
    if not results:
        goal = next(message_text(m) for m in messages if m.get("role") == "user")
        party = {"travellers": 2, "budget": "2000"} if "for two" in goal else {"budget": "1200"}
        return tool_call("plan_trip", destination="Chicago", days=4, earliest_departure="09:00", **party)
    found = OPTION.search(results[0])
    if len(results) == 1 and found:
        return tool_call("book_trip", option=found.group(1), total=found.group(2), currency=found.group(3))
    return tool_call("reply", text="Trip: " + results[-1][:400])


class TripRig(InlineDeputy):
    def __init__(self, redis: Redis, clock: ManualClock, root: Path, decide=script) -> None:
        self.clock = clock
        site_clock = lambda: datetime.fromtimestamp(clock.now).replace(microsecond=0)  # noqa: E731
        self.issuer = Issuer(mandate_key=MANDATE_KEY, clock=clock)
        self.servers = [SiteServer(create_app(self.issuer, "agent-key", "acquirer-key"))]
        issuer_url = self.servers[0].start()
        self.http = httpx.Client(timeout=10, trust_env=False)
        self.urls, self.apps, apis = {}, {}, []
        for name, module in (("flights", flights), ("hotels", hotels)):
            account = MerchantAccount(issuer_url, "acquirer-key")
            self.apps[name] = module.create_app(clock=site_clock, check_payment=account)
            self.servers.append(SiteServer(self.apps[name]))
            self.urls[name] = account.merchant = self.servers[-1].start()
            apis.append(import_openapi(fetch_openapi(self.http, f"{self.urls[name]}/openapi.json"), service=name,
                                       overrides=KNOWN_OVERRIDES[name]))
        self.calendar = SandboxCalendar(root / "calendar").start()
        self.servers_stop = [self.calendar.stop]
        try:
            self.calendar.seed_demo_calendar(datetime(2026, 6, 1, tzinfo=timezone.utc))  # calendars; events long past
        except Exception:
            self.stop()
            raise
        self.vault = Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1))
        self.calendar_runners = CalendarRunners(None, default=CalDavAccount(
            url=self.calendar.url, username=self.calendar.username, password=self.calendar.password,
            allow_plain_http=True))
        api = {key: run for a in apis for key, run in OpenApiRunner(a, self.http, self.vault).runners().items()}
        payments = PaymentIssuer(PaymentTokens(redis, self.vault), redis,
                                 issuer=HttpIssuerClient(issuer_url, SecretStr("agent-key")), vault=self.vault,
                                 mandates=MandateSigner(MANDATE_KEY), clock=clock)
        runners = {**api, **self.calendar_runners.runners(),
                   **travel_runners(redis, api, {a.service: a.base_url for a in apis}, payments,
                                    self.calendar_runners, self.vault, today=lambda: site_clock().date())}
        catalog = build_catalog(apis)
        self.model = FunctionModel(decide)
        contexts = ReviewContextBuilder(redis, GoalStore(redis), catalog, rules=stored_rules(RuleStore(redis)))
        super().__init__(redis, self.model, catalog, runners, clock=clock, contexts=contexts, payments=payments,
                         approval_ttl=3600)
        self.vault.put(USER, TRAVELLER_HANDLE, SecretStr(json.dumps(TRAVELLER)), "password", "Traveller details")
        self.vault.put(USER, "cred:card/main", SecretStr(CARD), CredentialKind.card, "Everyday Visa",
                       {"holder": "Dana Demo", "expiry": "12/30"})

    def busy_on(self, day: date, title: str = "Board meeting") -> None:
        """Something in the user's calendar all that day."""
        from deputy.core.records.actions import Action
        from deputy.core.records.effects import EffectClass

        event = Action(id=f"busy-{day}", goal_id="g", user_id=USER, chat_id=USER, connector="calendar",
                       operation="create_event", effect=EffectClass.write, tool_call_id="t", created_at=0,
                       arguments={"title": title, "start": f"{day}T10:00", "end": f"{day}T16:00"})
        self.calendar_runners.runners()["calendar.create_event"](event, f"busy-{day}")

    def list_events(self, first: str, last: str) -> str:
        from deputy.core.records.actions import Action
        from deputy.core.records.effects import EffectClass

        read = Action(id="list", goal_id="g", user_id=USER, chat_id=USER, connector="calendar", created_at=0,
                      operation="list_events", effect=EffectClass.read, tool_call_id="t",
                      arguments={"start": first, "end": last})
        return self.calendar_runners.runners()["calendar.list_events"](read, "list").summary

    def approve_last_card(self) -> str:
        card = self.cards()[-1]
        approval_id = re.search(r"ap1:([^:]+):", card.buttons[0][0].data).group(1)
        self.press(approval_id, USER, Choice.approve)
        return card.text

    def get(self, name: str, path: str) -> Any:
        return self.http.get(f"{self.urls[name]}{path}").json()

    def stop(self) -> None:
        for server in self.servers:
            server.stop()
        for stop in self.servers_stop:
            stop()
