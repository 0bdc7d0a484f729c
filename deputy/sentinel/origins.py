"""The exact origin of a piece of outside content, down to the one email, event or record.

A connector labels what it read as a whole ("INBOX in your mailbox (emails from a@…, b@…
and 4 more)"); a card must name the one item a value was copied from ("the email from
x@example.org, 'Invoice', INBOX/7"). Connectors say where each item of a result is (its
`parts`, see `deputy.core.records.read_items`): those are the sources, and whatever lies
between them keeps the reading's own label. A reading stored without parts (older goals, a
runner that gives none) is split by its shape: a listing of emails (one row each), one
email with its headers, a team chat's lines, a calendar listing (one event each), the records of
a JSON or YAML listing. Anything else keeps the connector's label.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from deputy.core.records.read_items import ItemSpan, email_origin, event_origin, locate
from deputy.core.records.record_listings import listed_records
from deputy.sentinel.textflow import Source

if TYPE_CHECKING:
    from deputy.sentinel.provenance import UntrustedItem

_ROW = re.compile(r"^- (?P<ref>[^|]+?) \| (?P<date>[^|]*?) \| (?P<sender>[^|]*?) \| (?P<subject>[^|]*?) \|", re.M)
_HEADER = re.compile(r"^(From|Date|Subject): ?(.*)$", re.M)
_EMAIL_REF = re.compile(r"^Email (\S+) \(", re.M)
# A calendar listing's row as Deputy's calendar shows it ("- Wed 2026-12-02 15:00–15:30 Quick sync [Work]
# id=work/sync-2", or the sandbox's "- 2026-12-02T15:00 Quick sync id=e2"), with its indented details.
_DAY = r"\w{3} \d{4}-\d{2}-\d{2}"
_WHEN = (rf"{_DAY}(?: – {_DAY})? all day|{_DAY} \d{{2}}:\d{{2}}(?:–\d{{2}}:\d{{2}}| – {_DAY} \d{{2}}:\d{{2}})?"
         r"(?: \(floating time\))?|\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?")
_EVENT_ROW = re.compile(rf"^- (?P<when>{_WHEN}) (?P<title>.*?)(?: \[[^\]\n]*\])? id=\S+$(?:\n  .*$)*", re.M)
_ORGANISER = re.compile(r"\borganiser (\S+?)(?:;|$)", re.M)
_ADDRESS = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")


def item_sources(item: "UntrustedItem", limit: int) -> tuple[Source, ...]:
    """The sources in one reading: its items as the connector placed them, else split by shape."""
    text = item.text[:limit]
    if item.parts:
        return _placed(item.origin, text, tuple(item.parts))
    return split_sources(item.origin, text)


@lru_cache(maxsize=4096)
def _placed(origin: str, text: str, parts: tuple[ItemSpan, ...]) -> tuple[Source, ...]:
    found: list[Source] = []
    rest: list[str] = []
    at = 0
    for part in parts:
        if part.start < at or part.end > len(text):
            continue  # overlapping or beyond what was kept: its text stays with the reading
        rest.append(text[at:part.start])
        found.append(Source(part.origin, text[part.start:part.end], part.author))
        at = part.end
    rest.append(text[at:])
    between = "\n".join(piece for piece in rest if piece.strip())
    # What no item holds (a listing's header, text around a JSON body) is still outside content.
    return (*found, *([Source(origin, between)] if between.strip() else []))


@lru_cache(maxsize=4096)
def split_sources(origin: str, text: str) -> tuple[Source, ...]:
    """`text` as one source per email it holds, each named exactly; else as one source."""
    rows = list(_ROW.finditer(text))
    if rows and ("emails from" in origin or "mailbox" in origin):
        ends = [m.start() for m in rows[1:]] + [len(text)]
        return tuple(Source(email_origin(m["sender"], m["subject"], m["ref"].strip()), text[m.start():end],
                            _address(m["sender"])) for m, end in zip(rows, ends))
    chat = re.match(r"chat messages from .* in (#\S+)$", origin)
    if chat:
        lines = [line for line in text.splitlines() if ": " in line]
        # No author is recorded: a message's text could forge another "name: " line.
        return tuple(Source(f"the message from {line.split(': ', 1)[0]} in {chat.group(1)}", line)
                     for line in lines) \
            or (Source(origin, text),)
    if "calendar" in origin:
        events = _events(text)
        if events:
            return _placed(origin, text, events)
    if origin.startswith("an email from"):
        headers: dict[str, str] = {}
        for name, value in _HEADER.findall(text[:4000]):
            headers.setdefault(name, value)
        if "From" in headers:
            ref = _EMAIL_REF.search(text[:200])
            return (Source(email_origin(headers["From"], headers.get("Subject", ""), ref.group(1) if ref else None,
                                        headers.get("Date", "")), text, _address(headers["From"])),)
    records = listed_records(text, origin)
    if records:
        return _placed(origin, text, tuple(locate(text, records)))
    return (Source(origin, text),)


def _events(text: str) -> tuple[ItemSpan, ...]:
    """Each event of a calendar listing, named by its title, day and time and who organised it."""
    spans = []
    for row in _EVENT_ROW.finditer(text):
        organiser = _ORGANISER.search(row.group(0))
        who = organiser.group(1) if organiser else None
        spans.append(ItemSpan(origin=event_origin(row["title"], re.sub(r"(?<=\d)T(?=\d)", " ", row["when"]), who),
                              start=row.start(), end=row.end(), author=_address(who) if who else None))
    return tuple(spans)


def _address(sender: str) -> str | None:
    found = _ADDRESS.search(sender)
    return found.group(0).lower() if found else None
