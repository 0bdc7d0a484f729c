"""What the agent reads back from the mailbox: compact, bounded summaries, plus the pure
pieces of searching (IMAP criteria) and threading (which messages belong together)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timezone

from deputy.connectors.email.imap_decode import MailContent, one_line
from deputy.core.records.read_items import ReadItem, email_origin
from deputy.connectors.email.imap_protocol import MessageRef, quote

MAX_TEXT_CHARS = 12_000
"""Most characters of one email's text in a read_email summary."""
MAX_THREAD_CHARS = 16_000
"""Most characters of a whole read_thread summary."""
SNIPPET_CHARS = 140
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_PREFIX = re.compile(r"^\s*((re|fwd?|aw|sv|antw)\s*(\[\d+\])?\s*:\s*)+", re.IGNORECASE)


@dataclass(frozen=True)
class Fetched:
    """One message as fetched: where it is, what it says, its flags, full size, and
    whether only the first part of it was fetched."""

    ref: MessageRef
    content: MailContent
    flags: frozenset[str]
    size: int | None
    cut: bool


def imap_date(day: date) -> str:
    """`date` as IMAP writes it (01-Dec-2026), independent of the locale."""
    return f"{day.day:02d}-{_MONTHS[day.month - 1]}-{day.year}"


def search_criteria(
    sender: str | None, subject: str | None, text: str | None, since: date | None, unseen: bool
) -> tuple[list[str], bytes | None]:
    """IMAP SEARCH criteria and the UTF-8 literal for the (at most one) non-ASCII term,
    which must come last because imaplib appends the literal to the command."""
    criteria = ["UNDELETED"]
    late: list[str] = []
    literal: bytes | None = None
    for key, value in (("FROM", sender), ("SUBJECT", subject), ("TEXT", text)):
        if value is None:
            continue
        if value.isascii():
            criteria += [key, quote(value)]
        else:
            late, literal = [key], value.encode("utf-8")
    if since is not None:
        criteria += ["SINCE", imap_date(since)]
    if unseen:
        criteria.append("UNSEEN")
    return criteria + late, literal


def base_subject(subject: str) -> str:
    """The subject without Re:/Fwd: prefixes, as threads share it."""
    return _PREFIX.sub("", subject).strip()


def thread_ids(content: MailContent) -> set[str]:
    return {i for i in [content.message_id, content.in_reply_to, *content.references] if i}


def thread_members(root: Fetched, candidates: list[Fetched]) -> list[Fetched]:
    """`root` and the candidates in its conversation, oldest first: linked by
    Message-ID/In-Reply-To/References, followed transitively. When neither side says what
    it replies to (some mail programs never do), a shared subject links them instead."""
    known = thread_ids(root.content)
    subject = base_subject(root.content.subject).lower()
    members = {root.ref: root}
    seen_ids = {root.content.message_id}
    changed = True
    while changed:
        changed = False
        for item in candidates:
            if item.ref in members or (item.content.message_id and item.content.message_id in seen_ids):
                continue  # the same email filed twice (say in INBOX and Archive) is shown once
            ids = thread_ids(item.content)
            unlinked = not _links(root.content) and not _links(item.content)
            if ids & known or (unlinked and subject and base_subject(item.content.subject).lower() == subject):
                members[item.ref] = item
                seen_ids.add(item.content.message_id)
                known |= ids
                changed = True
    return sorted(members.values(), key=lambda f: (_when(f.content), f.ref.uid))


def _links(content: MailContent) -> bool:
    return bool(content.in_reply_to or content.references)


def _when(content: MailContent) -> datetime:
    """When an email was written, from the date `imap_decode` formats; undated mail sorts first."""
    for pattern in ("%Y-%m-%d %H:%M %z", "%Y-%m-%d %H:%M"):
        try:
            moment = datetime.strptime(content.date, pattern)
        except ValueError:
            continue
        return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    return datetime.min.replace(tzinfo=timezone.utc)


def _flags(flags: frozenset[str]) -> str:
    words = ["unread" if "\\seen" not in flags else "read"]
    words += [w for f, w in (("\\flagged", "flagged"), ("\\answered", "answered"), ("\\draft", "draft")) if f in flags]
    return ", ".join(words)


def _size(size: int | None) -> str:
    if size is None:
        return "unknown size"
    return f"{size} bytes" if size < 1024 else f"{size / 1024:.0f} KB" if size < 1024**2 else f"{size / 1024**2:.1f} MB"


def _people(content: MailContent, field: str) -> str:
    people = getattr(content, field)
    shown = ", ".join(p.display() for p in people[:20])
    return shown + (f" and {len(people) - 20} more" if len(people) > 20 else "")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rstrip() + f"\n[... cut: {len(text) - limit} more characters]"


def format_search(folder: str, found: int, rows: list[Fetched], what: str) -> str:
    if not rows:
        return f"No emails in {folder} match {what}."
    more = f" (showing the newest {len(rows)} of {found})" if found > len(rows) else ""
    lines = [f"{found} email(s) in {folder} match {what}{more}, newest first:"]
    lines += [search_row(row) for row in rows]
    return "\n".join(lines)


def search_row(row: Fetched) -> str:
    """One email of a search listing, on one line (no text of it can start another row)."""
    c = row.content
    snippet = one_line(c.text, SNIPPET_CHARS)
    clip = ", has attachments" if c.attachments else ""
    return (f"- {row.ref} | {c.date} | {c.sender.display() if c.sender else '(no sender)'} | "
            f"{one_line(c.subject, 150) or '(no subject)'} | {_flags(row.flags)}{clip} | {snippet}")


def read_item(item: Fetched, text: str) -> ReadItem:
    """`text` (one email as a result shows it) named as that one email: sender, subject and id."""
    c = item.content
    return ReadItem(origin=email_origin(c.sender_address or (c.sender.display() if c.sender else ""), c.subject or "",
                                        str(item.ref)), text=text, author=c.sender_address or None)


def format_email(item: Fetched) -> str:
    c = item.content
    lines = [f"Email {item.ref} ({_flags(item.flags)}, {_size(item.size)})",
             f"From: {c.sender.display() if c.sender else '(no sender)'}"]
    if c.reply_to:
        lines.append(f"Reply-To: {_people(c, 'reply_to')}")
    lines.append(f"To: {_people(c, 'to') or '(none)'}")
    if c.cc:
        lines.append(f"Cc: {_people(c, 'cc')}")
    lines += [f"Date: {c.date or '(none)'}", f"Subject: {c.subject or '(no subject)'}"]
    if c.attachments:
        listed = "; ".join(f"{a.name} ({a.content_type}, {_size(a.size)})" for a in c.attachments[:30])
        lines.append(f"Attachments (listed, not opened): {listed}")
    if item.cut:
        lines.append(f"Note: this email is {_size(item.size)}; I read only its beginning, so the text "
                     "and attachment list may be incomplete.")
    lines += [f"Note: {note}" for note in c.notes]
    lines += ["", _clip(c.text, MAX_TEXT_CHARS) or "(no text)"]
    return "\n".join(lines)


def format_thread(members: list[Fetched]) -> str:
    subject = base_subject(members[-1].content.subject) or "(no subject)"
    parts = [f"Conversation \"{subject}\": {len(members)} email(s), oldest first."]
    parts += thread_parts(members)
    return "\n\n".join(parts)


def thread_parts(members: list[Fetched]) -> list[str]:
    """Each email of a conversation as `format_thread` shows it."""
    parts = []
    budget = MAX_THREAD_CHARS // max(len(members), 1)
    for item in members:
        c = item.content
        # Earlier messages are shown in full above, so quoted copies of them are dropped.
        own = "\n".join(line for line in c.text.splitlines() if not line.startswith(">")).strip()
        head = f"--- {item.ref} | {c.date} | from {c.sender.display() if c.sender else '(no sender)'}"
        extra = f" | attachments: {', '.join(a.name for a in c.attachments[:10])}" if c.attachments else ""
        cut = " | (only its beginning was read)" if item.cut else ""
        parts.append(f"{head}{extra}{cut} ---\n{_clip(own, budget) or '(no text)'}")
    return parts


def senders(items: list[Fetched], limit: int = 5) -> str:
    addresses = list(dict.fromkeys(i.content.sender_address or "an unknown sender" for i in items))
    shown = ", ".join(addresses[:limit])
    return shown + (f" and {len(addresses) - limit} more" if len(addresses) > limit else "")
