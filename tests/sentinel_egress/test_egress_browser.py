"""The egress route handler in real headless Chromium: blocked requests never reach the network."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import pytest
from playwright.async_api import Browser, async_playwright

from deputy.sentinel.egress.policy import EgressContext, EgressDecision, EgressPolicy, OutboundRequest, reviewer
from deputy.sentinel.egress.transports.browser import playwright_route_handler, playwright_websocket_handler
from deputy.sentinel.policy import Verdict

if TYPE_CHECKING:
    from conftest import LocalSite

pytestmark = pytest.mark.browser

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
EXPECTED_OUTCOMES = {"private", "leak", "rebound", "fine", "metadata"}


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            await launched.close()


async def test_page_requests_to_private_addresses_and_with_private_data_are_aborted(
    browser: Browser, site: LocalSite
) -> None:
    policy = EgressPolicy(allow_private_networks=[f"127.0.0.1:{site.port}"])
    context = EgressContext(private_values={"alice@example.com": "your email address"})
    decisions: list[tuple[OutboundRequest, EgressDecision]] = []

    async def resolver(host: str, port: int) -> list[str]:
        return {"evil.test": ["127.0.0.1"]}[host]

    handler = playwright_route_handler(
        reviewer(policy, context), resolver=resolver, on_decision=lambda r, d: decisions.append((r, d))
    )
    browser_context = await browser.new_context()
    await browser_context.route("**/*", handler)
    page = await browser_context.new_page()
    await page.goto(f"{site.url}/")
    await page.wait_for_function(
        f"window.outcomes && Object.keys(window.outcomes).length === {len(EXPECTED_OUTCOMES)}", timeout=20_000
    )
    outcomes = await page.evaluate("window.outcomes")
    await browser_context.close()

    assert outcomes == {
        "private": "failed",
        "leak": "failed",
        "rebound": "failed",
        "fine": "loaded",
        "metadata": "failed",
    }
    verdicts = {request.url: decision for request, decision in decisions}
    assert verdicts[f"{site.url}/"].verdict is Verdict.allow
    assert decisions[0][0].initiated_by == "navigation"
    assert verdicts["http://10.1.2.3/pixel.png"].verdict is Verdict.deny
    assert verdicts["http://169.254.169.254/latest/meta-data/"].verdict is Verdict.deny
    assert "cloud metadata service" in verdicts["http://169.254.169.254/latest/meta-data/"].reasons[0]
    assert "evil.test leads to 127.0.0.1" in verdicts[f"http://evil.test:{site.port}/pixel.png"].reasons[0]
    leak = verdicts[f"{site.url}/pixel.png?e=alice%40example.com"]
    assert leak.verdict is Verdict.ask
    assert leak.exfiltration == ["your email address: in the query string (URL-encoded), to 127.0.0.1"]
    # The server saw the page and the harmless pixel, never the request carrying the address.
    assert sorted(hit for hit in site.hits if hit != "/favicon.ico") == ["/", "/pixel.png?ok=1"]


async def test_a_navigation_to_a_blocked_address_fails_in_the_browser(browser: Browser, site: LocalSite) -> None:
    policy = EgressPolicy(allow_private_networks=[f"127.0.0.1:{site.port}"])
    decisions: list[EgressDecision] = []
    browser_context = await browser.new_context()
    await browser_context.route(
        "**/*",
        playwright_route_handler(reviewer(policy, EgressContext()), on_decision=lambda r, d: decisions.append(d)),
    )
    page = await browser_context.new_page()
    with pytest.raises(Exception, match="ERR_BLOCKED_BY_CLIENT"):
        await page.goto("http://2130706433/")
    await browser_context.close()
    assert [d.verdict for d in decisions] == [Verdict.deny]
    assert "127.0.0.1" in decisions[0].reasons[0]


async def test_websockets_are_reviewed_when_they_open_and_for_every_message(browser: Browser, site: LocalSite) -> None:
    policy = EgressPolicy(allow_private_networks=[f"127.0.0.1:{site.port}"])
    context = EgressContext(private_values={"alice@example.com": "your email address"})
    decisions: list[tuple[OutboundRequest, EgressDecision]] = []
    review = reviewer(policy, context)

    def record(request: OutboundRequest, decision: EgressDecision) -> None:
        decisions.append((request, decision))

    browser_context = await browser.new_context()
    await browser_context.route("**/*", playwright_route_handler(review, on_decision=record))
    await browser_context.route_web_socket("**/*", playwright_websocket_handler(review, on_decision=record))
    page = await browser_context.new_page()
    await page.goto(f"{site.url}/sockets")
    await page.wait_for_function("window.log.length === 3", timeout=20_000)
    log = await page.evaluate("window.log")
    await browser_context.close()

    assert sorted(log) == ["echo: hello", "private socket closed", "socket closed"]
    assert site.messages == ["hello"]
    sent = [(r.method, d.verdict) for r, d in decisions if r.method == "SEND"]
    assert sent == [("SEND", Verdict.allow), ("SEND", Verdict.ask)]
    opened = {r.url: d.verdict for r, d in decisions if r.method == "GET" and ("Upgrade", "websocket") in r.headers}
    assert opened == {"http://10.1.2.3/ws": Verdict.deny, f"{site.url}/ws": Verdict.allow}
