"""The sandbox world's web search: a small search engine over the sandbox sites and a few pages of its own.

It crawls the sandbox sites' public HTML pages (restaurants, tickets, shop: from each home
page, following same-site links a few levels, never forms, APIs or account pages), adds a
handful of seeded pages it serves itself (`/pages/<slug>`), and answers `GET /search?q=...`
with a plain results page (title, link, snippet) that the web connector reads like any
other page, and `GET /api/search?q=...` as JSON. The index is built on the first search and
refreshed when it is older than `refresh_seconds`.
"""

from __future__ import annotations

import asyncio
import html
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin, urlsplit

import aiohttp
from aiohttp import web

from deputy.sandbox.webapp_common import esc, json_response, page

SITE = "Sandbox Search"
MAX_PAGES_PER_SITE = 60
MAX_DEPTH = 2
MAX_RESULTS = 10
_SKIPPED_PATHS = re.compile(r"^/(api/|openapi\.json|account|phone|human-check|deals|cart|bookings|holds|orders)")
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


@dataclass(frozen=True)
class Document:
    url: str
    title: str
    text: str
    words: Counter = field(compare=False, hash=False)
    title_words: frozenset[str] = frozenset()


SEEDED_PAGES: dict[str, tuple[str, str]] = {
    "eating-out": (
        "Eating out in Sandbox City: a short guide",
        ("Sandbox City has a restaurant for every mood. For Italian food, pasta and pizza, look at the Italian "
        "places on the restaurant booking site; for a quick lunch, the cafés in the Old Town are open from "
        "breakfast. Book a table online a day ahead for Friday and Saturday dinners: tables for two at 7pm go "
        "first. Vegetarian and vegan dishes are marked on every menu."),
    ),
    "weekend-events": (
        "What's on this weekend: concerts, theatre and football",
        ("The ticket office sells seats for concerts, plays and matches in Sandbox City. Popular concerts sell "
        "out within days; hold a seat first, then pay. Family tickets and student prices are shown on each "
        "event's page."),
    ),
    "lisbon-trip": (
        "Four days in Lisbon on a budget",
        ("Plan four days in Lisbon: the castle, the tram 28 ride, pastel de nata in Belém and fado in Alfama. "
        "Flights from most European cities cost under 150 euros in spring; stay in Baixa to walk everywhere."),
    ),
    "coffee-at-home": (
        "Making better coffee at home",
        ("A good grinder matters more than an expensive espresso machine. The sandbox shop sells coffee beans, "
        "grinders, mugs and travel mugs; compare prices before you buy."),
    ),
}


class _Reader(HTMLParser):
    """Title, visible text and links of an HTML page (scripts and styles left out)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title, self.parts, self.links = "", [], []
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "form", "header"):
            self._skip += 1
        elif tag == "title":
            self._in_title = True
        elif tag == "a":
            href = dict(attrs).get("href")
            if href:
                self.links.append(href)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "form", "header") and self._skip:
            self._skip -= 1
        elif tag == "title":
            self._in_title = False
        elif tag in ("p", "li", "h1", "h2", "h3", "dd", "dt", "div"):
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip:
            self.parts.append(data)

    def text(self) -> str:
        lines = (" ".join(line.split()) for line in "".join(self.parts).splitlines())
        return "\n".join(line for line in lines if line)


def words_of(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def make_document(url: str, title: str, text: str) -> Document:
    return Document(url, title.strip() or url, text, Counter(words_of(text)), frozenset(words_of(title)))


def search(documents: list[Document], query: str, limit: int = MAX_RESULTS) -> list[Document]:
    """Documents matching the query, best first: more query words matched, then more often, titles counting most."""
    terms = list(dict.fromkeys(words_of(query)))
    if not terms:
        return []
    scored = []
    for doc in documents:
        matched = [t for t in terms if doc.words[t] or t in doc.title_words]
        if not matched:
            continue
        weight = sum(doc.words[t] + 5 * (t in doc.title_words) for t in matched)
        scored.append((len(matched), weight, doc))
    scored.sort(key=lambda item: (-item[0], -item[1], item[2].url))
    return [doc for _, _, doc in scored[:limit]]


def snippet(doc: Document, query: str, width: int = 220) -> str:
    """A piece of the page's text around the first query word, as HTML with the words in bold."""
    terms = set(words_of(query))
    text = " ".join(doc.text.split())
    lowered = text.lower()
    starts = [m.start() for t in terms for m in [re.search(rf"\b{re.escape(t)}", lowered)] if m]
    start = max(0, min(starts) - width // 3) if starts else 0
    piece = text[start : start + width]
    piece = ("…" if start else "") + piece + ("…" if start + width < len(text) else "")
    escaped = html.escape(piece)
    for term in sorted(terms, key=len, reverse=True):
        escaped = re.sub(rf"\b({re.escape(term)})", r"<b>\1</b>", escaped, flags=re.IGNORECASE)
    return escaped


class Crawler:
    """Fetches the sandbox sites' public pages (GET only, same site, a few levels deep)."""

    def __init__(self, sites: dict[str, str], refresh_seconds: float = 300) -> None:
        self._sites = sites
        self._refresh = refresh_seconds
        self._documents: list[Document] = []
        self._built_at: float | None = None
        self._lock = asyncio.Lock()

    async def documents(self, own_url: str) -> list[Document]:
        """Everything searchable; `own_url` is this search site's address (its seeded pages live there)."""
        async with self._lock:
            if self._built_at is None or time.monotonic() - self._built_at > self._refresh:
                self._documents = await self._crawl()
                self._built_at = time.monotonic()
            return _seeded(own_url) + self._documents

    async def _crawl(self) -> list[Document]:
        found: list[Document] = []
        timeout = aiohttp.ClientTimeout(total=10)
        async with aiohttp.ClientSession(timeout=timeout, trust_env=False) as client:
            for root in self._sites.values():
                found.extend(await self._crawl_site(client, root.rstrip("/") + "/"))
        return found

    async def _crawl_site(self, client: aiohttp.ClientSession, root: str) -> list[Document]:
        origin = urlsplit(root).netloc
        seen, queue, documents = {root}, [(root, 0)], []
        while queue and len(documents) < MAX_PAGES_PER_SITE:
            url, depth = queue.pop(0)
            try:
                async with client.get(url, allow_redirects=False) as response:
                    if response.status != 200 or response.content_type != "text/html":
                        continue
                    body = await response.text()
            except (aiohttp.ClientError, TimeoutError):
                continue
            reader = _Reader()
            reader.feed(body)
            documents.append(make_document(url, reader.title, reader.text()))
            if depth >= MAX_DEPTH:
                continue
            for href in reader.links:
                link = urldefrag(urljoin(url, href))[0].split("?", 1)[0]
                parts = urlsplit(link)
                if parts.scheme == "http" and parts.netloc == origin and link not in seen \
                        and not _SKIPPED_PATHS.match(parts.path):
                    seen.add(link)
                    queue.append((link, depth + 1))
        return documents


def _seeded(own_url: str) -> list[Document]:
    return [make_document(f"{own_url}/pages/{slug}", title, text) for slug, (title, text) in SEEDED_PAGES.items()]


CRAWLER: web.AppKey[Crawler] = web.AppKey("crawler", Crawler)


def create_app(sites: dict[str, str], refresh_seconds: float = 300) -> web.Application:
    """The search site; `sites` maps names to the base URLs of the sites to crawl."""
    app = web.Application()
    crawler = Crawler(sites, refresh_seconds)
    app[CRAWLER] = crawler

    def own(request: web.Request) -> str:
        return f"{request.scheme}://{request.host}"

    def form(q: str = "") -> str:
        return (f"<form method='get' action='/search'><label>Search <input type='search' name='q' "
                f"value='{esc(q)}'></label><button type='submit'>Search</button></form>")

    async def home(request: web.Request) -> web.Response:
        return page("Search the sandbox web", form(), site=SITE)

    async def results(request: web.Request) -> web.Response:
        q = request.query.get("q", "").strip()[:300]
        if not q:
            return page("Search the sandbox web", form() + "<p>Type what you are looking for.</p>", site=SITE)
        found = search(await crawler.documents(own(request)), q)
        items = "".join(
            f"<li><h3><a href='{esc(d.url)}'>{esc(d.title)}</a></h3><p>{snippet(d, q)}</p>"
            f"<cite>{esc(d.url)}</cite></li>" for d in found
        )
        listing = f"<ol class='results'>{items}</ol>" if found else f"<p>No results for “{esc(q)}”.</p>"
        count = f"<p>{len(found)} result{'s' if len(found) != 1 else ''} for “{esc(q)}”.</p>" if found else ""
        return page(f"Results for {q}", form(q) + count + listing, site=SITE)

    async def api_search(request: web.Request) -> web.Response:
        q = request.query.get("q", "").strip()[:300]
        found = search(await crawler.documents(own(request)), q) if q else []
        return json_response({"query": q, "results": [
            {"title": d.title, "url": d.url, "snippet": re.sub(r"</?b>", "", html.unescape(snippet(d, q)))}
            for d in found
        ]})

    async def seeded(request: web.Request) -> web.Response:
        entry = SEEDED_PAGES.get(request.match_info["slug"])
        if entry is None:
            raise web.HTTPNotFound()
        title, text = entry
        return page(title, f"<p>{esc(text)}</p>", site=SITE)

    app.add_routes([
        web.get("/", home), web.get("/search", results), web.get("/api/search", api_search),
        web.get("/pages/{slug}", seeded),
    ])
    return app
