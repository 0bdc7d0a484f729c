"""What confining the browser costs a launch.

    python -m bench.browser_launch [--rounds 5]

A user's browser is launched on first use, and with a forking executor for every job
(`deputy.connectors.web.browser`). Each round launches one profile confined (bubblewrap, an
unprivileged uid, Chromium's own sandbox, the relay to the proxy's socket) and one unconfined
(the baseline, as `DEPUTY_BROWSER_CONFINED=false` runs it), alternating so both see the same
machine, and times the launch up to a first page drawn (a `data:` page, which needs no network)
and the launch plus a page loaded from a local site through the reviewing proxy.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from aiohttp import web
from playwright.async_api import Playwright, async_playwright

from bench.stats import Summary
from deputy.connectors.web.session import BrowserConfig, open_session
from deputy.sentinel.egress.policy import EgressContext, EgressPolicy, reviewer

_PAGE = "<html><head><title>Hello</title></head><body><p>A small page.</p></body></html>"


async def _loopback(host: str, port: int) -> list[str]:
    return ["127.0.0.1"]


async def _launch(playwright: Playwright, confined: bool, url: str) -> tuple[float, float]:
    """Seconds to a first page, and to the local site's page through the proxy."""
    started = time.perf_counter()
    session = await open_session(playwright, BrowserConfig(confined=confined), 1, _loopback, time.monotonic)
    try:
        page = await session.page()
        await page.goto("data:text/html,<p>first</p>")
        first = time.perf_counter() - started
        session.guard.begin(reviewer(EgressPolicy(allow_private_networks=["127.0.0.0/8"]), EgressContext()))
        await page.goto(url)
        assert await page.title() == "Hello"
        return first, time.perf_counter() - started
    finally:
        await session.close()


async def main(rounds: int) -> None:
    app = web.Application()
    app.router.add_get("/", lambda request: web.Response(text=_PAGE, content_type="text/html"))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/"
    times: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    async with async_playwright() as playwright:
        await _launch(playwright, True, url)  # warm the page cache for both
        for _ in range(rounds):
            for confined in (False, True):
                times[confined].append(await _launch(playwright, confined, url))
    await runner.cleanup()
    print(f"browser launch, {rounds} rounds (median / p99 ms)")
    for label, index in (("to a first page", 0), ("to a page through the proxy", 1)):
        base = Summary.of([t[index] for t in times[False]])
        boxed = Summary.of([t[index] for t in times[True]])
        print(
            f"  {label:<28} unconfined {base.median_ms:7.0f} / {base.p99 * 1000:6.0f}"
            f"   confined {boxed.median_ms:7.0f} / {boxed.p99 * 1000:6.0f}"
            f"   ratio {boxed.median / base.median:4.2f}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    asyncio.run(main(parser.parse_args().rounds))
