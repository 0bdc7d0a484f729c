"""Searching the web from the connector, against the sandbox search engine and sites, in real Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from conftest import POLICY, fresh_user_id, make_action

from deputy.connectors.web.browser import BrowserSessions
from deputy.connectors.web.runners import WebRunners
from deputy.sandbox import restaurants, search, shop, tickets
from deputy.sandbox.webapp_common import SiteServer
from deputy.sentinel.egress.policy import EgressContext, reviewer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def search_url() -> Iterator[str]:
    servers = [SiteServer(module.create_app()) for module in (restaurants, tickets, shop)]
    sites = dict(zip(("restaurants", "tickets", "shop"), (s.start() for s in servers)))
    engine = SiteServer(search.create_app(sites))
    url = engine.start()
    yield f"{url}/search?q={{query}}"
    engine.stop()
    for server in servers:
        server.stop()


def test_search_finds_a_sandbox_restaurant_and_its_link_opens(
    sessions: BrowserSessions, data_dir, search_url: str  # type: ignore[no-untyped-def]
) -> None:
    runners = WebRunners(sessions, lambda action: reviewer(POLICY, EgressContext()),
                         search_url=search_url)
    user_id = fresh_user_id()
    found = runners.search_web(make_action("search_web", {"query": "Italian restaurant Old Town"}, user_id), "k1")
    assert found.untrusted_origin is not None and found.untrusted_origin.startswith("the web search results page")
    assert "Trattoria Roma" in found.summary
    link = re.search(r"(http://127\.0\.0\.1:\d+/restaurants/trattoria-roma)", found.summary)
    assert link is not None, found.summary
    opened = runners.open_page(make_action("open_page", {"url": link.group(1)}, user_id), "k2")
    assert "Title: Sandbox Tables · Trattoria Roma" in opened.summary and "Opening hours" in opened.summary
