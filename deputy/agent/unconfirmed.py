"""What a goal's last words must say about actions whose outcome stayed unknown.

When the executor was cut off midway and the user chose Drop it (or nobody chose in time),
nobody knows whether the action happened. The goal's ending then carries a line written
here, from the action itself, whatever the model wrote and however it ended the goal (the
`reply` tool, plain text, a failure, or a part's answer joined into its main goal).
"""

from __future__ import annotations

from deputy.agent.goals import Goal
from deputy.core.records.actions import Action

_CAVEAT = "I couldn't confirm whether "
_EMAIL_OPERATIONS = {"send_email", "reply_email", "forward_email"}


def unconfirmed_line(action: Action) -> str:
    """One sentence about one action whose outcome is unknown."""
    targets = ", ".join(action.targets)
    if action.connector == "email" and action.operation in _EMAIL_OPERATIONS:
        return f"{_CAVEAT}the email to {targets or 'its recipients'} was sent."
    what = f"{action.connector}.{action.operation}" + (f" ({targets})" if targets else "")
    return f"{_CAVEAT}{what} happened."


def _as_line(item: str) -> str:
    # Goals stored before these lines existed kept only the action's targets.
    return item if item.startswith(_CAVEAT) else f"{_CAVEAT}this happened: {item}."


def with_caveats(goal: Goal, text: str) -> str:
    """`text` with a line per unconfirmed action of `goal`, which are then said (and cleared)."""
    if not goal.unconfirmed:
        return text
    lines = [_as_line(item) for item in dict.fromkeys(goal.unconfirmed)]
    goal.unconfirmed = []
    return text + "\n\n" + "\n".join(f"⚠️ {line}" for line in lines)


def pass_up(parent: Goal, child: Goal) -> None:
    """A part's unconfirmed actions become its main goal's: the main goal's answer says them."""
    parent.unconfirmed.extend(item for item in child.unconfirmed if item not in parent.unconfirmed)
