"""The sandbox web search: it crawls the running sandbox sites and answers with titles, snippets and links."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from deputy.sandbox import restaurants, search, shop, tickets
from deputy.sandbox.webapp_common import SiteServer


@pytest.fixture(scope="module")
def engine() -> Iterator[str]:
    servers = {name: SiteServer(module.create_app()) for name, module in
               (("restaurants", restaurants), ("tickets", tickets), ("shop", shop))}
    sites = {name: server.start() for name, server in servers.items()}
    engine = SiteServer(search.create_app(sites))
    url = engine.start()
    yield url
    engine.stop()
    for server in servers.values():
        server.stop()


def test_searching_finds_sandbox_restaurants_with_links_and_snippets(engine: str) -> None:
    answer = httpx.get(f"{engine}/api/search", params={"q": "Italian restaurant Old Town"}).json()
    places = [r for r in answer["results"] if "/restaurants/" in r["url"]]
    first = places[0]
    assert first["title"] == "Sandbox Tables · Trattoria Roma" and first["url"].endswith("/restaurants/trattoria-roma")
    assert "Italian" in first["snippet"] and "Old Town" in first["snippet"]
    # The link leads to the restaurant's own page.
    assert "Opening hours" in httpx.get(first["url"]).text


def test_the_results_page_is_plain_html_with_titles_links_and_snippets(engine: str) -> None:
    page = httpx.get(f"{engine}/search", params={"q": "espresso machine"}).text
    assert "<ol class='results'>" in page and "/products/" in page and "<b>espresso</b>" in page.lower()
    assert "result" in page and "<cite>" in page
    seeded = httpx.get(f"{engine}/search", params={"q": "Lisbon budget"}).text
    assert f"{engine}/pages/lisbon-trip" in seeded and "Four days in Lisbon" in seeded
    assert "Four days in Lisbon" in httpx.get(f"{engine}/pages/lisbon-trip").text
    assert "No results for “zzqqxx”" in httpx.get(f"{engine}/search", params={"q": "zzqqxx"}).text
    assert "Type what you are looking for" in httpx.get(f"{engine}/search").text


def test_private_and_api_pages_are_not_indexed(engine: str) -> None:
    urls = [r["url"] for r in httpx.get(f"{engine}/api/search", params={"q": "sign code phone cart api"}).json()["results"]]
    assert not [u for u in urls if any(p in u for p in ("/account", "/phone", "/api/", "/cart", "/openapi.json"))]


def test_ranking_prefers_pages_matching_more_words() -> None:
    docs = [search.make_document("http://a/1", "Thai food", "Spicy Thai curry."),
            search.make_document("http://a/2", "Thai curry house", "Thai curry and noodles, Thai style."),
            search.make_document("http://a/3", "Pizza", "Nothing here about that.")]
    assert [d.url for d in search.search(docs, "thai curry")] == ["http://a/2", "http://a/1"]
    assert search.search(docs, "   ") == []
    assert "<b>curry</b>" in search.snippet(docs[0], "curry")


def test_deputy_sandbox_lists_the_search(tmp_path) -> None:  # type: ignore[no-untyped-def]
    process = subprocess.Popen([sys.executable, "-m", "deputy", "sandbox", "--json"], stdout=subprocess.PIPE,
                               text=True, env={"PATH": "/usr/bin:/bin", "DEPUTY_DATA_DIR": str(tmp_path)})
    try:
        lines = []
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if line.startswith("}"):
                break
        endpoints = json.loads("".join(lines))
        answer = httpx.get(f"{endpoints['search_url']}/api/search", params={"q": "Trattoria"}, timeout=20).json()
        assert any(r["url"].startswith(endpoints["restaurants_url"]) for r in answer["results"])
    finally:
        process.terminate()
        process.wait(20)
