"""Goals a button starts (a suggestion's Book, a check-in's yes, a negotiation's Confirm) take their
place in the user's plan exactly as a typed goal does: the same goal count, goals-in-progress limit
and suspension, counted atomically (`Quotas.start_goal`). A press over the limit gets the plan's own
refusal text in the chat (an alert is too short for it), and nothing is stored or queued."""

from __future__ import annotations

from deputy.bot.presses_common import PressAnswer
from deputy.bot.services import BotServices
from deputy.core.accounts.quota_texts import refusal_text
from deputy.core.records.outbox import Outbox

NO_ROOM = "Your plan has no room for this right now; I've said why in the chat."


def refused_by_plan(services: BotServices, user_id: int, chat_id: int, goal_id: str, doing: str) -> PressAnswer | None:
    """Count the new goal against the user's plan; when it has no room, the plan's words go to the chat
    and the press gets a short alert (None: there is room, go on)."""
    quotas = services.quotas
    if quotas is None:
        return None
    now = services.clock()
    started = quotas.start_goal(user_id, goal_id, now)
    if started.refusal is None:
        return None
    text = refusal_text(started.refusal, now, started.zone, quotas.book.upgrade, doing)
    Outbox(services.redis).send(chat_id, text, dedupe_key=f"{goal_id}:plan-refused")
    return PressAnswer(NO_ROOM, alert=True)


__all__ = ["NO_ROOM", "refused_by_plan"]
