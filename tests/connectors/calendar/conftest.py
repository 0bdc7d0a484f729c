"""Fixtures for the calendar connector: a real Radicale, seeded once, and scratch calendars."""

from __future__ import annotations

import secrets
from typing import Any, Callable, Iterator

import pytest
from calendar_testkit import NOW, ZONE, Call, make_action
from pydantic import SecretStr

from deputy.core.records.effects import OperationResult
from deputy.connectors.calendar.client import CalDavAccount
from deputy.connectors.calendar.runners import CalendarRunners
from deputy.sandbox.calendar import SandboxCalendar


@pytest.fixture(scope="session")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxCalendar]:
    server = SandboxCalendar(tmp_path_factory.mktemp("radicale"), password="pw-" + secrets.token_hex(6)).start()
    server.seed_demo_calendar(NOW, ZONE)
    yield server
    server.stop()


@pytest.fixture
def account(radicale: SandboxCalendar) -> CalDavAccount:
    return CalDavAccount(
        url=radicale.url, username=radicale.username, password=SecretStr(radicale.password),
        email="demo@sandbox.deputy", timeout=5,
    )


@pytest.fixture
def runners(account: CalDavAccount) -> CalendarRunners:
    return CalendarRunners(None, default=account, default_zone=ZONE, clock=lambda: NOW)


@pytest.fixture
def call(runners: CalendarRunners) -> Call:
    """`call("create_event", key="k1", title=...)`: one operation, the way the executor runs it."""
    table = runners.runners()

    def run(operation: str, key: str = "key-1", **arguments: Any) -> OperationResult | str:
        return table[f"calendar.{operation}"](make_action(operation, arguments), key)

    return run


@pytest.fixture
def scratch(radicale: SandboxCalendar) -> Iterator[str]:
    """A fresh, empty calendar for one test (its name); removed afterwards."""
    import caldav

    slug = "scratch-" + secrets.token_hex(4)
    client = caldav.DAVClient(url=radicale.url, username=radicale.username, password=radicale.password,
                              enable_rfc6764=False, timeout=10)
    calendar = client.principal().make_calendar(name=slug.title(), cal_id=slug)
    yield slug
    calendar.delete()
    client.close()


@pytest.fixture
def stored(radicale: SandboxCalendar) -> Callable[[str], list[str]]:
    """The raw iCalendar texts of every object in one calendar (by slug), read past the connector."""
    import caldav

    def read(slug: str) -> list[str]:
        client = caldav.DAVClient(url=radicale.url, username=radicale.username, password=radicale.password,
                                  enable_rfc6764=False, timeout=10)
        try:
            calendar = client.calendar(url=f"{radicale.url}{radicale.username}/{slug}/")
            return [str(event.data) for event in calendar.get_events()]
        finally:
            client.close()

    return read


@pytest.fixture
def put_event(radicale: SandboxCalendar) -> Callable[[str, str], None]:
    """Store iCalendar text in a calendar (by slug) as another client, or an invitation, would."""
    import caldav

    def put(slug: str, ical: str) -> None:
        client = caldav.DAVClient(url=radicale.url, username=radicale.username, password=radicale.password,
                                  enable_rfc6764=False, timeout=10)
        try:
            client.calendar(url=f"{radicale.url}{radicale.username}/{slug}/").add_event(ical)
        finally:
            client.close()

    return put
