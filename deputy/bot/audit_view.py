"""/audit: the user's whole audit trail, a page at a time, newest first, with Older / Newer buttons.

Pages are bounded by stream ids, so entries appended while the user pages do not shift what
an Older or Newer press shows: each entry appears on exactly one page. The buttons are signed
for the user like every bot button, and a press only ever shows the presser's own trail.
Every page says whether the whole trail still verifies (`AuditLog.check`). Entries older than
the trail's window are folded into a sealed checkpoint: the oldest page ends with its summary.
"""

from __future__ import annotations

from dataclasses import dataclass

from deputy.bot.activity import format_audit, format_checkpoint
from deputy.bot.presses_common import PressAnswer
from deputy.bot.services import BotServices
from deputy.core.records.outbox import Button, Outbox, OutboxMessage
from deputy.sentinel.stores.audit import AuditLog

PAGE_SIZE = 10


@dataclass(frozen=True)
class AuditPage:
    text: str
    buttons: list[tuple[str, str, str]]
    """(label, button kind, stream id) for Older / Newer."""


def audit_page(audit: AuditLog, user_id: int, before: str | None = None, after: str | None = None,
               size: int = PAGE_SIZE) -> AuditPage | None:
    """The page of entries just older than `before`, just newer than `after`, or the newest; None if empty."""
    entries = audit.page(user_id, before=before, after=after, size=size)
    if not entries:
        return None
    total = audit.count(user_id)
    older = audit.page(user_id, before=entries[0].id, size=1)
    newer = audit.page(user_id, after=entries[-1].id, size=1)
    check = audit.check(user_id)
    if check.intact and check.folded:
        footer = (f"The record is intact ({check.entries:,} entries checked, and the seal over the "
                  f"{check.folded:,} before them).")
    elif check.intact:
        footer = f"The record is intact ({check.entries} entries checked)."
    else:
        footer = f"⚠️ The record has been tampered with, from {check.where} on: {check.problem}."
    checkpoint = None if older else audit.checkpoint(user_id)
    kept = " kept" if check.folded else ""
    heading = ("Recent decisions" if not newer else "Earlier decisions") + \
        f" ({len(entries)} of {total:,}{kept} entries):"
    buttons = []
    if older:
        buttons.append(("⬅️ Older", "ao", entries[0].id))
    if newer:
        buttons.append(("Newer ➡️", "an", entries[-1].id))
    lines = [format_audit(entry) for entry in reversed(entries)]  # newest first, like the chat reads
    if checkpoint is not None:
        lines.append(format_checkpoint(checkpoint))
    return AuditPage(heading + "\n" + "\n".join(lines) + "\n\n" + footer, buttons)


def press_audit_page(services: BotServices, kind: str, ident: str, user_id: int) -> PressAnswer:
    page = audit_page(services.audit, user_id, before=ident if kind == "ao" else None,
                      after=ident if kind == "an" else None)
    if page is None:
        return PressAnswer("There are no more entries that way.")
    Outbox(services.redis).put(OutboxMessage(
        chat_id=user_id, text=page.text, buttons=[[Button(text=label, sign=f"{k}:{i}") for label, k, i in page.buttons]]
        if page.buttons else [],
    ))
    return PressAnswer("Older entries are below." if kind == "ao" else "Newer entries are below.")
