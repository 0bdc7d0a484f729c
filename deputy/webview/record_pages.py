"""The audit trail page (every entry, whether the chain verifies, the last seal), in the words of the
bot's views."""

from __future__ import annotations

from html import escape

from deputy.bot.activity import format_audit, format_checkpoint
from deputy.bot.services import BotServices
from deputy.webview.layout import short_when

MAX_ENTRIES = 500


def audit_body(services: BotServices, user_id: int) -> str:
    check = services.audit.check(user_id)
    entries = services.audit.entries(user_id)
    if check.intact:
        folded = f", and the seal over the {check.folded:,} folded before them" if check.folded else ""
        verdict = (f"<p class='verdict ok'>✅ The chain verifies: {check.entries:,} entries checked{folded}.</p>")
    else:
        verdict = (f"<p class='verdict bad'>⚠️ The record has been tampered with, from {escape(check.where)} on: "
                   f"{escape(check.problem or '')}.</p>")
    seal = (f"<p>Last seal: <span class='seal'>{escape(check.tip)}</span></p><p class='muted'>Note the start of "
            "it somewhere of your own: if a later visit shows an older seal, the newest entries were cut off.</p>")
    rows = "".join(f"<tr><td class='nowrap'>{escape(short_when(e.at))}</td><td>{escape(format_audit(e).split(' ', 3)[-1])}</td></tr>"
                   for e in reversed(entries[-MAX_ENTRIES:]))
    checkpoint = services.audit.checkpoint(user_id)
    folded = f"<p class='muted'>{escape(format_checkpoint(checkpoint))}</p>" if checkpoint else ""
    shown = f"<p class='muted'>The newest {MAX_ENTRIES} are shown.</p>" if len(entries) > MAX_ENTRIES else ""
    table = (f"<table><thead><tr><th scope='col'>When</th><th scope='col'>What</th></tr></thead><tbody>{rows}"
             "</tbody></table>") if rows else "<p>No entries yet.</p>"
    return f"<section class='card'>{verdict}{seal}</section>{shown}<section class='card'>{table}{folded}</section>"
