"""What the guard may take from a goal: the user's own words, and the outside content it saw.

A part of a split goal answers for the goal it came from: its intent is the user's words
of that goal (never the model's instructions for the part) and everything that goal had
read is still outside content for it. Parts copy both when they are created; reading
them through the goal's ancestors as well keeps that true for parts created before they
did, and whatever the parent learned since.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from deputy.agent.goals import Goal, GoalStore
from deputy.sentinel.provenance import UntrustedItem

MAX_ANCESTORS = 4  # parts are at most two levels deep; a bound, in case a record points in a circle


@dataclass
class GuardView:
    user_words: list[str] = field(default_factory=list)
    untrusted: list[UntrustedItem] = field(default_factory=list)
    risk_notes: list[str] = field(default_factory=list)


def guard_view(goals: GoalStore, goal: Goal | None, ancestors: Mapping[str, Goal] | None = None) -> GuardView:
    """The user's words, the outside content and the injection warnings that hold for `goal`.
    `ancestors`: the goals it was split from, by id, as the caller read them (else read now)."""
    if goal is None:
        return GuardView()
    view = GuardView(user_words=goal.user_words(), untrusted=list(goal.untrusted), risk_notes=list(goal.risk_notes))
    if goal.parent_id is None:
        return view  # most goals: nothing to add, and their readings need not be hashed to find that out
    seen = {(item.origin, item.text) for item in view.untrusted}
    current, needs_words = goal, not goal.inherited_words
    for _ in range(MAX_ANCESTORS):
        if current.parent_id is None:
            break
        parent = goals.get(current.parent_id) if ancestors is None else ancestors.get(current.parent_id)
        if parent is None:
            break
        if needs_words:
            view.user_words = [*parent.user_words(), *view.user_words]
            needs_words = parent.parent_id is not None and not parent.inherited_words
        for item in parent.untrusted:
            if (item.origin, item.text) not in seen:
                seen.add((item.origin, item.text))
                view.untrusted.append(item)
        view.risk_notes.extend(note for note in parent.risk_notes if note not in view.risk_notes)
        current = parent
    return view
