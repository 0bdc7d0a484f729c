"""The exact origin of a piece of outside content, down to the one email it came from.

A connector labels what it read as a whole ("INBOX in your mailbox (emails from a@…, b@…
and 4 more)"); a card must name the one email a value was copied from ("the email from
x@example.org, 3 Dec, 'Invoice'"). An item that lists several emails (a search result, one
row each) or holds one email with its headers is split into one source per email, named
from its own sender, date and subject. Anything else keeps the connector's label.
"""

from __future__ import annotations

import re
from email.utils import parsedate_to_datetime
from functools import lru_cache

from deputy.sentinel.textflow import Source

_ROW = re.compile(r"^- (?P<ref>[^|]+?) \| (?P<date>[^|]*?) \| (?P<sender>[^|]*?) \| (?P<subject>[^|]*?) \|", re.M)
_HEADER = re.compile(r"^(From|Date|Subject): ?(.*)$", re.M)
_ADDRESS = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_MAX_SUBJECT = 40


def email_origin(sender: str, date: str, subject: str) -> str:
    address = _ADDRESS.search(sender)
    who = address.group(0) if address else (sender.strip() or "an unknown sender")
    parts = [f"the email from {who}"]
    day = _short_date(date)
    if day:
        parts.append(day)
    subject = subject.strip()
    if subject and subject != "(no subject)":
        parts.append("'" + (subject if len(subject) <= _MAX_SUBJECT else subject[:_MAX_SUBJECT - 1] + "…") + "'")
    return ", ".join(parts)


def _short_date(value: str) -> str:
    value = value.strip()
    if not value or value == "(none)":
        return ""
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        match = re.match(r"(\d{4})-(\d{2})-(\d{2})", value)
        if not match:
            return value[:16]
        months = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
        month = int(match.group(2))
        return f"{int(match.group(3))} {months[month - 1]}" if 1 <= month <= 12 else value[:16]
    return f"{moment.day} {moment:%b}"


@lru_cache(maxsize=4096)
def split_sources(origin: str, text: str) -> tuple[Source, ...]:
    """`text` as one source per email it holds, each named exactly; else as one source."""
    rows = list(_ROW.finditer(text))
    if rows and ("emails from" in origin or "mailbox" in origin):
        ends = [m.start() for m in rows[1:]] + [len(text)]
        return tuple(Source(email_origin(m["sender"], m["date"], m["subject"]), text[m.start():end],
                            _address(m["sender"])) for m, end in zip(rows, ends))
    chat = re.match(r"chat messages from .* in (#\S+)$", origin)
    if chat:
        lines = [line for line in text.splitlines() if ": " in line]
        # No author is recorded: a message's text could forge another "name: " line.
        return tuple(Source(f"the message from {line.split(': ', 1)[0]} in {chat.group(1)}", line)
                     for line in lines) \
            or (Source(origin, text),)
    if origin.startswith("an email from"):
        headers: dict[str, str] = {}
        for name, value in _HEADER.findall(text[:4000]):
            headers.setdefault(name, value)
        if "From" in headers:
            return (Source(email_origin(headers["From"], headers.get("Date", ""), headers.get("Subject", "")), text,
                           _address(headers["From"])),)
    return (Source(origin, text),)


def _address(sender: str) -> str | None:
    found = _ADDRESS.search(sender)
    return found.group(0).lower() if found else None
