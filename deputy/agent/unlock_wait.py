"""A goal step of a locked confidential user: parked until the user unlocks, the user told once.

A monitor's check that comes due while locked is parked the same way: it runs (and catches up)
as soon as the user unlocks, then keeps its schedule.
"""

from __future__ import annotations

from deputy.core.confidential import Locked, WaitingWork
from deputy.core.confidential.errors import UNLOCK_HINT
from deputy.core.records.outbox import Outbox

WAITING_TEXT = ("🔒 Some of your work is waiting: your data is locked (confidential mode), so I cannot read it. "
                f"Nothing is lost; it carries on when you unlock. {UNLOCK_HINT}")


def park_until_unlocked(waiting: WaitingWork, outbox: Outbox, locked: Locked, goal_id: str, step: int) -> None:
    """Keep the step for the unlock and, the first time in this locked spell, say so."""
    waiting.park_step(locked.user_id, goal_id, step)
    if waiting.first_notice(locked.user_id):
        outbox.send(locked.chat_id, WAITING_TEXT)
