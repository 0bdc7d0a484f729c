"""An action's lifecycle: every state change an action may make, as pure transitions.

The executor and the store never pick states themselves: they name an `ActionEvent`, and
this table says from which states it may happen and where it leads. The store applies it
as one compare-and-set, so two processes can never both make the same move.

    submitted ──ask──▶ awaiting_approval ──claim──▶ executing ──succeed/fail──▶ done
        └────────────────────claim───────────────────▲   │
                                                         ├─lost_before_start─▶ back where it was
                                                         └─lost_midway──▶ outcome_unknown
    outcome_unknown ──retry──▶ executing      outcome_unknown ──drop──▶ dropped

"Outcome unknown" is a state the user sees (a card with Try again / Drop it), never a
silent success: the executor died after the side effect may have begun.
"""

from __future__ import annotations

from enum import Enum

from deputy.core.records.actions import ActionState

S = ActionState
PENDING = (S.submitted, S.awaiting_approval)


class ActionEvent(str, Enum):
    ask = "ask"  # the guard wants the user's approval
    claim = "claim"  # one executor takes the action to run it
    succeed = "succeed"
    fail = "fail"
    deny = "deny"  # the guard refused
    decline = "decline"  # the user refused, or the goal was cancelled
    expire = "expire"  # nobody answered the card in time
    lost_before_start = "lost_before_start"  # the executor died before any side effect began
    lost_midway = "lost_midway"  # the executor died after the side effect may have begun
    retry = "retry"  # the user pressed Try again on an outcome-unknown card
    drop = "drop"  # the user pressed Drop it (or nobody chose in time)


_FROM: dict[ActionEvent, tuple[ActionState, ...]] = {
    ActionEvent.ask: (S.submitted, S.awaiting_approval),
    ActionEvent.claim: PENDING,
    ActionEvent.succeed: (S.executing,),
    ActionEvent.fail: (S.executing,),
    ActionEvent.deny: PENDING,
    ActionEvent.decline: PENDING,
    ActionEvent.expire: PENDING,
    ActionEvent.lost_before_start: (S.executing,),
    ActionEvent.lost_midway: (S.executing,),
    # awaiting_approval too: a retry whose executor died before it began is back there.
    ActionEvent.retry: (S.outcome_unknown, S.awaiting_approval),
    ActionEvent.drop: (S.outcome_unknown,),
}

_TO: dict[ActionEvent, ActionState] = {
    ActionEvent.ask: S.awaiting_approval,
    ActionEvent.claim: S.executing,
    ActionEvent.succeed: S.succeeded,
    ActionEvent.fail: S.failed,
    ActionEvent.deny: S.denied,
    ActionEvent.decline: S.declined,
    ActionEvent.expire: S.expired,
    ActionEvent.lost_midway: S.outcome_unknown,
    ActionEvent.retry: S.executing,
    ActionEvent.drop: S.dropped,
}


def allowed_from(event: ActionEvent) -> tuple[ActionState, ...]:
    return _FROM[event]


def target(event: ActionEvent, approved: bool = False) -> ActionState:
    """Where `event` leads. An action lost before it started goes back to waiting to run:
    `awaiting_approval` when it runs under an approval (the approval stands), else `submitted`."""
    if event is ActionEvent.lost_before_start:
        return S.awaiting_approval if approved else S.submitted
    return _TO[event]


def after(state: ActionState, event: ActionEvent, approved: bool = False) -> ActionState | None:
    """The state `event` moves an action in `state` to, or None if it may not happen there."""
    return target(event, approved) if state in _FROM[event] else None


def lost(progress: str | None) -> ActionEvent:
    """What a claimed action whose executor died has become, from the progress it recorded."""
    return ActionEvent.lost_midway if progress else ActionEvent.lost_before_start
