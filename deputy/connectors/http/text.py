"""Turning a response body into text a model can read: what counts as text, and HTML to text."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urljoin

_TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-www-form-urlencoded",
        "application/x-ndjson",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/graphql",
        "application/sql",
    }
)
_SKIPPED = frozenset({"script", "style", "noscript", "template", "svg", "head"})
_BLOCKS = frozenset(
    {
        "p",
        "div",
        "br",
        "li",
        "ul",
        "ol",
        "tr",
        "table",
        "section",
        "article",
        "header",
        "footer",
        "nav",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "blockquote",
        "form",
        "main",
        "aside",
        "dt",
        "dd",
        "hr",
    }
)


def media_type(content_type: str) -> str:
    """`text/html; charset=utf-8` -> `text/html`."""
    return content_type.split(";", 1)[0].strip().lower()


def is_textual(content_type: str) -> bool:
    """True for media types whose bodies are text (HTML, JSON, XML, CSV, scripts...)."""
    kind = media_type(content_type)
    return kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(("+json", "+xml"))


def looks_binary(data: bytes) -> bool:
    """Sniff an unlabelled body: NUL bytes or invalid UTF-8 at the start mean binary."""
    head = data[:2048]
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut at the sniffing boundary is still text.
        return exc.start < len(head) - 3
    return False


def html_to_text(html: str, base_url: str) -> str:
    """Readable text of an HTML page: title, visible text, and link targets after link text."""
    parser = _TextParser(base_url)
    parser.feed(html)
    parser.close()
    return parser.text()


class _TextParser(HTMLParser):
    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self._base = base_url
        self._skip_depth = 0
        self._title: list[str] = []
        self._in_title = False
        self._chunks: list[str] = []
        self._links: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _SKIPPED:
            self._skip_depth += 1
        elif tag in _BLOCKS:
            self._chunks.append("\n")
        if tag == "a":
            href = dict(attrs).get("href")
            keep = href and not href.startswith(("#", "javascript:", "mailto:", "data:"))
            self._links.append(urljoin(self._base, href) if keep else None)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _SKIPPED and self._skip_depth:
            self._skip_depth -= 1
        elif tag in _BLOCKS:
            self._chunks.append("\n")
        elif tag == "a" and self._links:
            link = self._links.pop()
            if link and not self._skip_depth:
                self._chunks.append(f" ({link})")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title.append(data)
        elif not self._skip_depth:
            self._chunks.append(data)

    def text(self) -> str:
        lines = (" ".join(line.split()) for line in "".join(self._chunks).splitlines())
        body = "\n".join(line for line in lines if line)
        title = " ".join("".join(self._title).split())
        return f"Title: {title}\n\n{body}" if title else body
