"""A new goal that follows up the user's previous one: which goal it follows, and what it carries.

Pure functions of goal records, used by the bot at intake (`deputy.bot.follow_ups`): the record
of the earlier goal (`deputy.agent.earlier.Earlier`) goes onto the new goal before it is stored,
so every step's prompt shows it and the guard counts the earlier words as the user's. What the
earlier goal read from outside stays outside content in the new goal's ledger, and so does
Deputy's answer about it when that answer was written after reading it (it may retell what was
read), exactly as a part's reading and answer flow back to its main goal.
"""

from __future__ import annotations

from deputy.agent.earlier import (
    FOLLOW_UP_WINDOW,
    MAX_ANSWER_CHARS,
    MAX_DONE_LINES,
    Earlier,
    latest_words,
    shorten,
)
from deputy.agent.goals import Goal, GoalStatus
from deputy.sentinel.provenance import MAX_ITEM_CHARS, UntrustedItem

LAST_GOAL_KEY = "deputy:user:{}:last_goal"
"""The id of the user's latest goal (the one a next message may follow); deleted by /new."""
LAST_GOAL_TTL = 24 * 3600

_STATUS_WORDS = {
    GoalStatus.done: "done",
    GoalStatus.failed: "stopped before it was finished",
    GoalStatus.cancelled: "cancelled by the user",
    GoalStatus.waiting_approval: "waiting for the user's approval",
    GoalStatus.waiting_user: "waiting for the user's answer",
    GoalStatus.paused: "paused",
    GoalStatus.scheduled: "watching, with checks to come",
}


def last_goal_key(user_id: int) -> str:
    return LAST_GOAL_KEY.format(user_id)


def follows_soon(previous: Goal, chat_id: int, now: float, window: float = FOLLOW_UP_WINDOW) -> bool:
    """Whether a message sent `now` in `chat_id` follows `previous` without saying so: same chat,
    and its last step (its end, or where it waits) was at most `window` seconds ago."""
    return previous.chat_id == chat_id and previous.parent_id is None and now - previous.updated_at <= window


def earlier_of(previous: Goal) -> Earlier:
    """What a follow-up keeps of `previous`: the user's words, its state, what its actions did, the last
    message it sent the user (all small)."""
    answer = shorten(previous.last_told, MAX_ANSWER_CHARS) if previous.last_told else None
    return Earlier(
        goal_id=previous.id, text=previous.text, words=latest_words(previous.user_words()),
        status=_STATUS_WORDS.get(previous.status, "still being worked on"),
        done=previous.done[-MAX_DONE_LINES:], answer=answer, wrote=previous.wrote,
    )


def carry(goal: Goal, previous: Goal, now: float) -> Goal:
    """`goal` (new, not stored yet) following up `previous`: its record, and the outside content it read."""
    goal.earlier = earlier_of(previous)
    known = {(item.origin, item.text) for item in goal.untrusted}
    for item in previous.untrusted:
        if (item.origin, item.text) not in known:
            goal.untrusted.append(item)
            known.add((item.origin, item.text))
    told = [*goal.earlier.done, goal.earlier.answer or "", goal.earlier.wrote or ""]
    if previous.untrusted and any(told):
        # Written after reading outside content: it may carry that content in Deputy's words.
        goal.untrusted.append(UntrustedItem(origin=f"Deputy's earlier answer about “{shorten(previous.text, 60)}”",
                                            text="\n".join(t for t in told if t)[:MAX_ITEM_CHARS], at=now))
    goal.risk_notes.extend(note for note in previous.risk_notes if note not in goal.risk_notes)
    return goal
