"""Sub-goals: independent parts of a goal run in parallel, then their results are joined.

The parent creates one child goal per part (ids derived from the parent, so a re-run
step creates the same children), enqueues them all, and waits (`waiting_children`)
without holding a worker. Each child that ends, well or badly, records itself on the
parent; the last one wakes the parent, whose next step gets every part's outcome, failed
parts included. Children never message the user: their answer goes to the parent.

A part's instructions are the model's words, not the user's: they reach the child as a
model-labelled message (the child's model follows them, the guard does not trust them).
The child's intent is the user's own words of the parent, and it starts with the parent's
ledger of outside content and its injection warnings; what a part read, and its answer
when it read anything from outside, flow back into the parent's ledger at the join.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Callable

from deputy.agent.goal_lifecycle import GoalEvent, advance
from deputy.agent.goals import Goal, GoalStatus, GoalStore
from deputy.agent.origins import model_note
from deputy.agent.prompt import tool_message
from deputy.agent.tools import SplitArgs
from deputy.agent.unconfirmed import pass_up
from deputy.sentinel.provenance import MAX_ITEM_CHARS, UntrustedItem

if TYPE_CHECKING:
    from deputy.agent.steps import Dispatch

MAX_DEPTH = 2


class Subgoals:
    def __init__(self, goals: GoalStore, dispatch: "Dispatch", clock: Callable[[], float]) -> None:
        self._goals = goals
        self._dispatch = dispatch
        self._clock = clock

    def refusal(self, goal: Goal) -> str | None:
        if goal.depth >= MAX_DEPTH:
            return "Error: parts of a goal cannot be split further; do this part yourself."
        return None

    def spawn(self, goal: Goal, call_id: str, args: SplitArgs) -> list[Goal]:
        """Create (or find again) the children, and put the parent to wait for them."""
        now = self._clock()
        children: list[Goal] = []
        for index, part in enumerate(args.parts):
            child_id = "g_" + hashlib.sha256(f"{goal.id}\x00{call_id}\x00{index}".encode()).hexdigest()[:16]
            existing = self._goals.get(child_id)
            if existing is None:
                instructions = (
                    f"{part.instructions}\n\n(This is the part “{part.title}” of the goal “{goal.text}”. "
                    "When you have the answer, call reply with it; it goes to the main goal, not to the user.)"
                )
                existing = self._goals.save(
                    Goal(id=child_id, user_id=goal.user_id, chat_id=goal.chat_id, text=part.title,
                         messages=[model_note(instructions)], inherited_words=goal.user_words(),
                         untrusted=list(goal.untrusted), risk_notes=list(goal.risk_notes), parent_id=goal.id,
                         depth=goal.depth + 1, created_at=now, updated_at=now)
                )
            children.append(existing)
        goal.children = [c.id for c in children]
        advance(goal, GoalEvent.split)
        return children

    def start(self, children: list[Goal]) -> None:
        for child in children:
            if child.status is GoalStatus.running:
                self._dispatch.step(child.id, child.step, owner=child.user_id)

    def child_ended(self, child: Goal) -> None:
        """Tell the parent; the last child to end wakes it."""
        if child.parent_id is None:
            return
        parent = self._goals.get(child.parent_id)
        if parent is None:
            return
        newly, ended = self._goals.child_finished(parent.id, child.id)
        if newly and ended >= len(parent.children) and parent.status is GoalStatus.waiting_children:
            self._dispatch.step(parent.id, parent.step, owner=parent.user_id)

    def join(self, goal: Goal) -> Goal | None:
        """The parent with the parts' results as the tool result, or None while parts still run."""
        children = [self._goals.get(child_id) for child_id in goal.children]
        if any(c is None or not c.status.finished for c in children):
            return None
        lines = []
        for number, child in enumerate(children, 1):
            assert child is not None
            _take_ledger(goal, child, self._clock())
            pass_up(goal, child)
            if child.status is GoalStatus.done:
                lines.append(f"{number}. {child.text}: {child.result or '(no answer)'}")
            else:
                reason = child.error or child.status.value
                lines.append(f"{number}. {child.text}: FAILED ({reason})")
        call = goal.pending_calls.pop(0)
        goal.messages.append(tool_message(call.id, "Results of the parts:\n" + "\n".join(lines)))
        advance(goal, GoalEvent.joined)
        return goal


def _take_ledger(parent: Goal, child: Goal, now: float) -> None:
    """What a part read (and its answer, if it read anything from outside) joins the parent's ledger."""
    known = {(item.origin, item.text) for item in parent.untrusted}
    for item in child.untrusted:
        if (item.origin, item.text) not in known:
            parent.untrusted.append(item)
            known.add((item.origin, item.text))
    if child.untrusted and child.result:
        # The part's model wrote this answer after reading outside content: it may carry that
        # content in its own words (an address rebuilt from pieces, a passage retold).
        parent.untrusted.append(UntrustedItem(origin=f"the answer of the part “{child.text}”",
                                              text=child.result[:MAX_ITEM_CHARS], at=now))
    parent.risk_notes.extend(note for note in child.risk_notes if note not in parent.risk_notes)
