"""The sandbox calendar takes the sandbox provider's bearer tokens, through Deputy's own CalDAV client."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Iterator

import pytest

from deputy.connectors.calendar.client import CalDavAccount, open_davclient
from deputy.sandbox.caldav_oauth import create_app
from deputy.sandbox.calendar import SandboxCalendar
from deputy.sandbox.oauth_provider import OAuthProvider
from deputy.sandbox.webapp_common import SiteServer

ME = "demo@sandbox.local"


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Iterator[tuple[OAuthProvider, str]]:  # type: ignore[no-untyped-def]
    calendar = SandboxCalendar(tmp_path_factory.mktemp("cal"), username=ME, password="cal-pw").start()
    calendar.seed_demo_calendar(datetime.now(timezone.utc))
    provider = OAuthProvider({ME: "pw"})
    front = SiteServer(create_app(calendar.url, provider.check, lambda user: "cal-pw"))
    url = front.start()
    yield provider, url + "/"
    front.stop()
    calendar.stop()


def token(provider: OAuthProvider, scope: str) -> str:
    """An access token as the provider issues it (the code flow is tested in test_oauth_provider)."""
    from deputy.sandbox.oauth_provider import Token

    value = f"tok-{scope}-{len(provider.state.access)}"
    provider.state.access[value] = Token(value, None, scope, ME, "deputy-local", value, provider.now(), 3600)
    return value


def calendars(url: str, access: str) -> list:
    client = open_davclient(CalDavAccount(url=url, username=ME, password=access, oauth=True))
    return client.principal().calendars()


def test_reading_needs_calendar_read_writing_calendar_write_and_a_live_token(world) -> None:  # type: ignore[no-untyped-def]
    provider, url = world
    reader = token(provider, "calendar.read")
    found = calendars(url, reader)
    assert {c.get_display_name() for c in found} >= {"Personal", "Work"}
    event = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:oauth-1\r\n"
             "DTSTAMP:20260101T000000Z\r\nDTSTART:20261210T100000Z\r\nDTEND:20261210T110000Z\r\n"
             "SUMMARY:Dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    with pytest.raises(Exception, match="403|Forbidden|insufficient"):
        found[0].save_event(event)  # read only: the server refuses the write
    writer = token(provider, "calendar.read calendar.write")
    calendars(url, writer)[0].save_event(event)
    assert any("Dentist" in e.data for e in calendars(url, reader)[0].events())

    provider.skew += 3700  # expired
    with pytest.raises(Exception, match="401|Unauthorized|expired"):
        calendars(url, reader)
