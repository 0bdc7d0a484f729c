"""``parse_mode`` handling: turn HTML/Markdown message text into plain text + entities.

Telegram returns the plain text with ``entities`` (offsets in UTF-16 units) and rejects
malformed markup with "Bad Request: can't parse entities: ...". Doing the same here lets
a bot's formatting bugs show up locally, and lets the page render bold/links safely.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from typing import Any

from deputy.emulator.errors import bad_request
from deputy.emulator.markdown import parse_markdown, parse_markdown_v2
from deputy.emulator.records import Json
from deputy.emulator.tgobjects import utf16_len

# HTML tag -> entity type, as listed in Telegram's "HTML style" formatting docs.
_HTML_TAGS = {
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic",
    "u": "underline", "ins": "underline", "s": "strikethrough", "strike": "strikethrough",
    "del": "strikethrough", "tg-spoiler": "spoiler", "span": "spoiler", "a": "text_link",
    "code": "code", "pre": "pre", "blockquote": "blockquote", "tg-emoji": "custom_emoji",
}


def format_text(text: str, parse_mode: str | None, entities: Any = None) -> tuple[str, list[Json]]:
    """Apply ``parse_mode`` (HTML, MarkdownV2, Markdown) or explicit ``entities``."""
    mode = (parse_mode or "").strip().lower()
    if mode == "html":
        return parse_html(text)
    if mode == "markdownv2":
        return parse_markdown_v2(text)
    if mode == "markdown":
        return parse_markdown(text)
    if mode:
        raise bad_request(f"unsupported parse_mode {parse_mode!r}")
    return text, _explicit_entities(entities)


def _explicit_entities(entities: Any) -> list[Json]:
    if entities is None:
        return []
    if isinstance(entities, str):
        try:
            entities = json.loads(entities)
        except ValueError:
            raise bad_request("can't parse entities JSON object") from None
    if not isinstance(entities, list) or not all(isinstance(e, dict) for e in entities):
        raise bad_request("can't parse entities JSON object")
    return [dict(e) for e in entities]


def parse_html(src: str) -> tuple[str, list[Json]]:
    """Telegram's HTML style: supported tags only, properly nested."""
    parser = _HtmlEntities()
    try:
        parser.feed(src)
        parser.close()
        parser.finish()
    except _HtmlError as exc:
        raise bad_request(f"can't parse entities: {exc}") from None
    return "".join(parser.parts), sorted(parser.entities, key=lambda e: (e["offset"], -e["length"]))


class _HtmlError(Exception):
    pass


class _HtmlEntities(HTMLParser):
    """Collects text and entities; raises :class:`_HtmlError` on what Telegram rejects."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.entities: list[Json] = []
        self.pos = 0  # UTF-16 offset of the end of the text so far
        self.stack: list[tuple[str, Json | None, int]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        kind = _HTML_TAGS.get(tag)
        attr = dict(attrs)
        if kind is None or (tag == "span" and attr.get("class") != "tg-spoiler"):
            raise _HtmlError(f'Unsupported start tag "{tag}"')
        entity: Json | None = {"type": kind}
        if tag == "a":
            entity = {"type": "text_link", "url": attr["href"]} if attr.get("href") else None
        elif tag == "blockquote" and "expandable" in attr:
            entity = {"type": "expandable_blockquote"}
        elif tag == "tg-emoji":
            entity = {"type": "custom_emoji", "custom_emoji_id": attr.get("emoji-id", "")}
        elif tag == "code" and self.stack and self.stack[-1][0] == "pre":
            # <pre><code class="language-x"> is one pre entity with a language.
            pre = self.stack[-1][1]
            lang = (attr.get("class") or "").removeprefix("language-")
            if pre is not None and lang:
                pre["language"] = lang
            entity = None
        self.stack.append((tag, entity, self.pos))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        raise _HtmlError(f'Unsupported start tag "{tag}"')

    def handle_endtag(self, tag: str) -> None:
        if not self.stack:
            raise _HtmlError(f'Unexpected end tag "{tag}"')
        open_tag, entity, start = self.stack.pop()
        if open_tag != tag:
            raise _HtmlError(f'Unmatched end tag "{tag}", expected "</{open_tag}>"')
        if entity is not None and self.pos > start:
            self.entities.append({**entity, "offset": start, "length": self.pos - start})

    def handle_data(self, data: str) -> None:
        self.parts.append(data)
        self.pos += utf16_len(data)

    def finish(self) -> None:
        if self.stack:
            raise _HtmlError(f'Can\'t find end tag corresponding to start tag "{self.stack[-1][0]}"')


def check_text(text: str, *, caption: bool = False) -> None:
    """Telegram's limits: 1..4096 characters for text, up to 1024 for captions."""
    if caption:
        if len(text) > 1024:
            raise bad_request("message caption is too long")
        return
    if not text.strip():
        raise bad_request("message text is empty")
    if len(text) > 4096:
        raise bad_request("message is too long")

