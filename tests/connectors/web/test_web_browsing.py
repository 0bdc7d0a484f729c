"""Clicking, screenshots, the egress guard and per-user profiles, in real headless Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import POLICY, Site, fake_dns, fresh_user_id, make_action

from deputy.core.records.effects import ConnectorRejected
from deputy.connectors.web.session import BrowserConfig
from deputy.connectors.web.browser import BrowserSessions
from deputy.connectors.web.states import BrowserStates
from deputy.connectors.web.runners import WebRunners
from deputy.testing.stack import wait_for
from deputy.sentinel.egress.policy import EgressContext, reviewer
from deputy.sentinel.egress.transports.http_client import EgressBlocked, EgressNeedsApproval

pytestmark = pytest.mark.browser


def run(runners: WebRunners, operation: str, user_id: int, key: str = "key", **arguments: object):  # type: ignore[no-untyped-def]
    return getattr(runners, operation)(make_action(operation, dict(arguments), user_id), key)


def test_clicking_a_link_reads_the_next_page(runners: WebRunners, site: Site, user_id: int) -> None:
    result = run(runners, "click", user_id, url=site.url("/links"), text="travel notes")
    assert result.summary.startswith("Clicked “travel notes”.\nTitle: Lisbon travel notes")
    assert result.untrusted_origin == f"the web page {site.url('/article')}"


def test_clicking_a_script_button_reads_the_changed_page(runners: WebRunners, site: Site, user_id: int) -> None:
    result = run(runners, "click", user_id, url=site.url("/links"), text="Show more")
    assert "More results loaded" in result.summary


def test_a_link_opening_a_new_tab_is_followed(runners: WebRunners, site: Site, user_id: int) -> None:
    result = run(runners, "click", user_id, url=site.url("/links"), text="Open the cookie page in a new tab")
    assert "Title: Cookie" in result.summary


def test_click_never_sends_a_form(runners: WebRunners, site: Site, user_id: int) -> None:
    with pytest.raises(ConnectorRejected, match="“Buy now” sends a form; use submit_form"):
        run(runners, "click", user_id, url=site.url("/links"), text="Buy now")
    with pytest.raises(ConnectorRejected, match="couldn't find a visible link or button saying “Nope”"):
        run(runners, "click", user_id, url=site.url("/links"), text="Nope")
    assert not [p for p in site.posts if p.get("name") == "Clicky"]


def test_a_screenshot_goes_to_the_users_chat_and_the_agent_only_hears_so(
    runners: WebRunners, site: Site, user_id: int, shown: list
) -> None:
    before = len(shown)
    first = run(runners, "screenshot", user_id, key="shot-1", url=site.url("/article"))
    assert first.summary == f"Screenshot of {site.url('/article')} (1280x900) sent to the user."
    chat_id, image, caption, key = shown[before]
    assert chat_id == user_id and caption == f"Screenshot of {site.url('/article')}" and key == "shot:shot-1"
    assert image.startswith(b"\x89PNG\r\n\x1a\n") and b"Lisbon" not in first.summary.encode()
    again = run(runners, "screenshot", user_id, key="shot-1")  # the open page; a retry has the same dedupe key
    assert shown[-1][3] == "shot:shot-1" and again.summary == first.summary
    whole = run(runners, "screenshot", user_id, key="shot-2", full_page=True)
    assert whole.summary.startswith("Screenshot of ") and shown[-1][3] == "shot:shot-2"


def test_without_a_chat_to_show_it_a_screenshot_is_refused(sessions, data_dir: Path, site: Site, user_id: int) -> None:
    bare = WebRunners(sessions, lambda action: reviewer(POLICY, EgressContext()))
    with pytest.raises(ConnectorRejected, match="Screenshots can't be shown in this chat"):
        bare.screenshot(make_action("screenshot", {"url": site.url("/article")}, user_id), "k")


def test_requests_outside_the_allow_list_are_blocked_and_reported(
    runners: WebRunners, site: Site, user_id: int
) -> None:
    result = run(runners, "open_page", user_id, url=site.url("/tracker"))
    assert "Flights to Lisbon from 389 euros" in result.summary
    notes = result.summary.split("Notes:\n", 1)[1]
    assert "Deputy's network guard blocked 3 requests to tracker.example" in notes  # image, fetch, WebSocket
    assert "The web connector may only contact 127.0.0.1; tracker.example is not one of them." in notes
    # DNS would have led tracker.example to the test site: the requests were stopped, not lost.
    assert not [hit for hit in site.hits if hit.startswith("tracker.example")]


def test_a_redirect_to_a_blocked_site_is_stopped(runners: WebRunners, site: Site, user_id: int) -> None:
    with pytest.raises(EgressBlocked, match="Deputy blocked the page tracker.example. The web connector may only"):
        run(runners, "open_page", user_id, url=site.url("/redirect?to=http://tracker.example:{port}/article"))
    assert not [hit for hit in site.hits if hit.startswith("tracker.example")]
    # The tab is usable again right away.
    assert "Four days in Lisbon" in run(runners, "open_page", user_id, url=site.url("/article")).summary


def test_a_redirected_image_is_stopped_at_the_redirect(runners: WebRunners, site: Site, user_id: int) -> None:
    # The route handler only ever sees the first request of a redirect chain; the proxy sees the rest.
    result = run(runners, "open_page", user_id, url=site.url("/gallery"))
    assert "Deputy's network guard blocked a request to tracker.example" in result.summary
    assert not [hit for hit in site.hits if hit.startswith("tracker.example")]


def test_a_cookie_set_by_one_executor_is_there_for_the_next(
    runners: WebRunners, site: Site, states: BrowserStates
) -> None:
    dana = fresh_user_id()
    run(runners, "open_page", dana, url=site.url("/cookie/set?who=dana"))
    # Another executor process (its own browser manager, the same Redis, another disk).
    other = BrowserSessions(BrowserConfig(navigation_timeout=10), states=states, resolver=fake_dns)
    try:
        elsewhere = WebRunners(other, lambda action: reviewer(POLICY, EgressContext()))
        assert "Cookie says: dana." in run(elsewhere, "open_page", dana, url=site.url("/cookie/show")).summary
        run(elsewhere, "open_page", dana, url=site.url("/cookie/set?who=dana-again"))
    finally:
        other.close()
    # The first executor still has Dana's browser open, with the older cookie: it notices and reloads.
    assert "Cookie says: dana-again." in run(runners, "open_page", dana, url=site.url("/cookie/show")).summary


def test_opening_a_site_that_came_from_untrusted_content_waits_for_approval(
    sessions: BrowserSessions, site: Site, data_dir: Path, user_id: int
) -> None:
    context = EgressContext(tainted_values={"127.0.0.1": "an email from x@evil.example"})
    runners = WebRunners(sessions, lambda action: reviewer(POLICY, context))
    before = len(site.hits)
    with pytest.raises(EgressNeedsApproval, match="Opening 127.0.0.1 needs your approval first.*an email from x@"):
        run(runners, "open_page", user_id, url=site.url("/article"))
    assert len(site.hits) == before


def test_browser_state_is_per_user_sealed_in_redis_and_never_on_disk(
    runners: WebRunners, site: Site, data_dir: Path, states: BrowserStates, redis_server
) -> None:
    alice, bob = fresh_user_id(), fresh_user_id()
    run(runners, "open_page", alice, url=site.url("/cookie/set?who=alice-cookie-value"))
    assert "Cookie says: nobody." in run(runners, "open_page", bob, url=site.url("/cookie/show")).summary
    assert "Cookie says: alice-cookie-value." in run(runners, "open_page", alice, url=site.url("/cookie/show")).summary
    sealed = redis_server.client().hget(f"deputy:browser:{alice}", "state")
    assert sealed and b"alice-cookie-value" not in sealed and b"127.0.0.1" not in sealed
    assert [c["value"] for c in states.load(alice)[1]["cookies"]] == ["alice-cookie-value"]
    assert not list(data_dir.rglob("*")), "nothing of a user is written to this machine's disk"
    # Bound to its user: Alice's state copied to Bob's key does not open.
    redis_server.client().hset(f"deputy:browser:{bob}", "state", sealed)
    assert states.load(bob)[1] is None
    assert states.erase(alice) == 1 and states.load(alice) == (0, None)


def test_idle_browsers_close_and_reopen_with_their_cookies(site: Site, states: BrowserStates) -> None:
    sessions = BrowserSessions(
        BrowserConfig(idle_seconds=0.5, navigation_timeout=10), states=states, resolver=fake_dns
    )
    runners = WebRunners(sessions, lambda action: reviewer(POLICY, EgressContext()))
    carol = fresh_user_id()
    try:
        run(runners, "open_page", carol, url=site.url("/cookie/set?who=carol"))
        assert sessions.open_users() == [carol]
        wait_for(lambda: sessions.open_users() == [], timeout=10, what="the idle profile to close")
        assert "Cookie says: carol." in run(runners, "open_page", carol, url=site.url("/cookie/show")).summary
    finally:
        sessions.close()
