"""CalDAV requests (every redirect hop included) pass Sentinel's egress policy, pinned to the checked address.

A real Radicale on 127.0.0.1; DNS is the injected resolver, so cal.example.test exists only
for the guard and a working calendar proves the request went to the checked address.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from calendar_testkit import NOW, ZONE, make_action
from egress_testkit import Rebinding, fixed, no_outside_traffic
from pydantic import SecretStr

from deputy.connectors.calendar.client import CalDavAccount
from deputy.connectors.calendar.runners import CalendarRunners
from deputy.settings import Settings
from deputy.sandbox.calendar import SandboxCalendar
from deputy.sentinel.egress.policy import EgressPolicy
from deputy.sentinel.egress.transports.http_client import EgressBlocked
from deputy.sentinel.egress.transports.sockets import EndpointGuard
from deputy.runtime.egress_guards import caldav_connect, endpoint_guard

CAL = "cal.example.test"


def runners_for(url: str, radicale: SandboxCalendar, guard: EndpointGuard) -> CalendarRunners:
    account = CalDavAccount(url=url, username=radicale.username, password=SecretStr(radicale.password),
                            timeout=5, allow_plain_http=True)
    return CalendarRunners(None, default=account, default_zone=ZONE, clock=lambda: NOW, connect=caldav_connect(guard))


def list_events(runners: CalendarRunners):
    action = make_action("list_events", {"start": "2026-11-30", "end": "2026-12-06"})
    return runners.runners()["calendar.list_events"](action, "k")


def test_allowed_calendar_is_read_at_the_checked_address(radicale: SandboxCalendar) -> None:
    guard = endpoint_guard(Settings(DEPUTY_EGRESS_ALLOW=f"{CAL}:{radicale.port}"), fixed({CAL: ["127.0.0.1"]}))
    with no_outside_traffic() as attempts:
        listed = list_events(runners_for(f"http://{CAL}:{radicale.port}/", radicale, guard))
    assert "Team standup [Work, repeats]" in listed.summary
    assert attempts == []


@pytest.mark.parametrize(("host", "dns", "says"), [
    ("169.254.169.254", {}, "cloud metadata service"),
    ("10.0.0.5", {}, "(10.0.0.5) is a private network address"),
    ("127.0.0.1", {}, "this computer's own address"),
    (CAL, {CAL: ["10.0.0.5"]}, f"({CAL}) leads to 10.0.0.5"),
])
def test_private_and_metadata_calendar_servers_are_refused(
    radicale: SandboxCalendar, host: str, dns: dict, says: str
) -> None:
    guard = EndpointGuard(EgressPolicy(), "calendar", fixed(dns))
    with no_outside_traffic() as attempts, pytest.raises(EgressBlocked) as refused:
        list_events(runners_for(f"http://{host}:{radicale.port}/", radicale, guard))
    assert says in refused.value.user_message and attempts == []
    assert radicale.password not in str(refused.value)


def test_a_name_that_rebinds_to_a_private_address_after_connecting_is_refused(radicale: SandboxCalendar) -> None:
    dns = Rebinding(first=["127.0.0.1"], then=["10.0.0.5"])
    guard = EndpointGuard(EgressPolicy(allow_private_networks=["127.0.0.1/32"]), "calendar", dns)
    url = f"http://{CAL}:{radicale.port}/"
    assert guard.check_url(url) == ["127.0.0.1"], "the connect page saw a harmless address"
    with no_outside_traffic() as attempts, pytest.raises(EgressBlocked) as refused:
        list_events(runners_for(url, radicale, guard))
    assert "leads to 10.0.0.5" in refused.value.user_message and attempts == []


class _Redirect(BaseHTTPRequestHandler):
    target = ""

    def _answer(self) -> None:
        self.send_response(301)
        self.send_header("Location", self.target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_PROPFIND = do_REPORT = do_OPTIONS = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def redirector() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Redirect)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("target", ["http://10.0.0.5/dav/", "http://169.254.169.254/latest/meta-data/"])
def test_a_redirect_to_a_private_address_is_refused(
    radicale: SandboxCalendar, redirector: ThreadingHTTPServer, target: str
) -> None:
    _Redirect.target = target
    port = redirector.server_address[1]
    guard = EndpointGuard(EgressPolicy(allow_private_networks=[f"127.0.0.1:{port}"]), "calendar", fixed({}))
    with no_outside_traffic() as attempts, pytest.raises(EgressBlocked) as refused:
        list_events(runners_for(f"http://127.0.0.1:{port}/", radicale, guard))
    assert attempts == [] and ("private network" in refused.value.user_message
                               or "metadata" in refused.value.user_message)
