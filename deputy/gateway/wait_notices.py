"""What a user whose goal waits for the model is told, and when (a pure core).

A goal that waits a few seconds for the model gets one message saying how many goals are
ahead of it; that same message is edited when the count has at least halved (12, 6, 3, 1,
next) and once more when the model takes the goal up, and it is taken back (deleted, where the
chat allows) when the call is over, before the goal's next words: a goal of many steps leaves no
trail of notices. A handful of edits at most, and none for a goal that got the model at once.
"""

from __future__ import annotations

NOTICE_AFTER = 3.0
"""Seconds a call waits for a slot before its user is told (shorter waits are not worth a message)."""

WORKING = "The model is working on your goal now."


def waiting_text(ahead: int) -> str:
    if ahead <= 0:
        return "Waiting for the model: yours is next."
    return f"Waiting for the model: {ahead} goal{'s' if ahead != 1 else ''} ahead of yours."


def worth_telling(waited: float, last_told: int | None, ahead: int, notice_after: float = NOTICE_AFTER) -> bool:
    """Whether to tell the user `ahead` now, having told them `last_told` before (None: nothing yet)."""
    if last_told is None:
        return waited >= notice_after
    return ahead < last_told and (ahead == 0 or ahead <= last_told // 2)
