"""What driving the browser through a keyless worker costs, per launch and per browser step.

    python -m bench.browser_worker [--rounds 20]

Every browser is confined alike (bubblewrap, Chromium's own sandbox, the reviewing proxy); the
difference is who runs Playwright's driver: the executor (`DEPUTY_BROWSER_WORKER=inline`, one
driver shared by every profile), a worker of its own per browser, started with no key, no
network and no view of Deputy's files (`separate`, `deputy.connectors.web.worker`), or the same
worker started by the browser host, a process of its own, and driven over its Unix socket
(`hosted`, `DEPUTY_BROWSER_HOST_SOCKET`, `deputy.connectors.web.host`).

Launch: a browser with a first page drawn. Inline the driver is already running (a
non-forking executor); a worker starts its driver with every launch, so the inline figure
with a driver start included is shown too (a forking executor starts one per job).
Steps, each timed alone and alternating between the two: open a page from a local site
through the proxy, fill a field, click a button, read the page text, take a screenshot.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Awaitable, Callable

from aiohttp import web
from playwright.async_api import Page, Playwright, async_playwright

from bench.stats import Summary
from deputy.connectors.web.session import BrowserConfig, UserSession, open_session
from deputy.sentinel.egress.policy import EgressContext, EgressPolicy, reviewer
from deputy.testing.browser_host import BrowserHostProcess

_PAGE = """<html><head><title>Hello</title></head><body><p>A small page.</p>
<input id="q" name="q"><button id="b" onclick="document.getElementById('out').textContent='clicked'">Go</button>
<p id="out"></p></body></html>"""
ALLOWED = reviewer(EgressPolicy(allow_private_networks=["127.0.0.0/8"]), EgressContext())


async def _loopback(host: str, port: int) -> list[str]:
    return ["127.0.0.1"]


async def _open(playwright: Playwright | None, host_socket: str | None = None) -> tuple[UserSession, float]:
    started = time.perf_counter()
    session = await open_session(playwright, BrowserConfig(host_socket=host_socket), 1, _loopback, time.monotonic)
    page = await session.page()
    await page.goto("data:text/html,<p>first</p>")
    session.guard.begin(ALLOWED)
    return session, time.perf_counter() - started


def _steps(url: str) -> dict[str, Callable[[Page], Awaitable[object]]]:
    return {
        "open a page": lambda page: page.goto(url),
        "fill a field": lambda page: page.fill("#q", "a value handed in for this step"),
        "click": lambda page: page.click("#b"),
        "read the text": lambda page: page.inner_text("body"),
        "screenshot": lambda page: page.screenshot(),
    }


async def main(rounds: int) -> None:
    app = web.Application()
    app.router.add_get("/", lambda request: web.Response(text=_PAGE, content_type="text/html"))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/"
    launches: dict[str, list[float]] = {"inline": [], "inline, driver started too": [], "worker": [], "hosted": []}
    host = BrowserHostProcess(executor_uid=os.geteuid()).start()
    socket = str(host.socket)
    async with async_playwright() as playwright:
        for _ in range(max(3, rounds // 5)):
            for mode in launches:
                started = time.perf_counter()
                if mode == "inline, driver started too":
                    async with async_playwright() as cold:
                        session, _ = await _open(cold)
                        launches[mode].append(time.perf_counter() - started)
                        await session.close()
                    continue
                session, took = await _open(playwright if mode == "inline" else None,
                                            socket if mode == "hosted" else None)
                launches[mode].append(took)
                await session.close()
        inline, _ = await _open(playwright)
        worker, _ = await _open(None)
        hosted, _ = await _open(None, socket)
        pages = {"inline": await inline.page(), "worker": await worker.page(), "hosted": await hosted.page()}
        steps = _steps(url)
        times: dict[tuple[str, str], list[float]] = {}
        for mode, page in pages.items():
            await page.goto(url)  # warm both
        for _ in range(rounds):
            for name, step in steps.items():
                for mode, page in pages.items():
                    started = time.perf_counter()
                    await step(page)
                    times.setdefault((name, mode), []).append(time.perf_counter() - started)
        await inline.close()
        await worker.close()
        await hosted.close()
    host.remove()
    await runner.cleanup()
    print(f"browser worker, {rounds} rounds (median / p99 ms)")
    for mode, values in launches.items():
        summary = Summary.of(values)
        print(f"  launch, {mode:<28} {summary.median_ms:7.0f} / {summary.p99 * 1000:6.0f}")
    for name in steps:
        base, moved = Summary.of(times[(name, "inline")]), Summary.of(times[(name, "worker")])
        far = Summary.of(times[(name, "hosted")])
        print(
            f"  {name:<16} inline {base.median_ms:6.1f} / {base.p99 * 1000:6.1f}"
            f"   worker {moved.median_ms:6.1f} / {moved.p99 * 1000:6.1f}"
            f"   hosted {far.median_ms:6.1f} / {far.p99 * 1000:6.1f}"
            f"   added by the host {far.median_ms - moved.median_ms:+5.1f}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    asyncio.run(main(parser.parse_args().rounds))
