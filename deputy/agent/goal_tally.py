"""What a goal did, counted by code as it happened: the figures its digests are written from.

The runner adds to the tally when one of the goal's actions ends (`count_action`); the monitor
keeps a copy of the tally at its last digest (`DigestMark`), so a digest tells what happened
since then by subtraction, never by asking the model.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Literal

from pydantic import BaseModel, Field

from deputy.core.records.actions import Action, ActionState
from deputy.core.records.effects import EffectClass

DigestChoice = Literal["daily", "weekly", "off"]


class GoalTally(BaseModel):
    """Running totals of a goal's actions (reads excluded): done, cards shown and their answers, money."""

    actions_done: int = 0
    cards: int = Field(default=0, description="Actions that waited for the user's approval card.")
    approved: int = 0
    declined: int = Field(default=0, description="Cards the user said no to, or let expire.")
    spent: dict[str, str] = Field(default_factory=dict, description="Currency -> amount spent (decimal string).")

    def spent_amount(self, currency: str) -> Decimal:
        try:
            return Decimal(self.spent.get(currency, "0"))
        except InvalidOperation:
            return Decimal(0)


class DigestMark(BaseModel):
    """Where the goal stood at its last digest (or when its watch began)."""

    at: float
    checks_done: int = 0
    news: int = 0
    reminders: int = 0
    value: float | None = Field(default=None, description="The watched figure then, for a threshold watch.")
    tally: GoalTally = Field(default_factory=GoalTally)
    sent: int = Field(default=0, description="Digests sent so far.")


def count_action(tally: GoalTally, action: Action, state: ActionState, carded: bool) -> None:
    """Add one ended action of the goal to its tally (a read is not counted)."""
    if action.effect is EffectClass.read:
        return
    if carded:
        tally.cards += 1
        if state is ActionState.succeeded:
            tally.approved += 1
        elif state in (ActionState.declined, ActionState.expired):
            tally.declined += 1
    if state is not ActionState.succeeded:
        return
    tally.actions_done += 1
    if action.effect is EffectClass.spend and action.amount is not None:
        currency = (action.currency or "").upper() or "?"
        tally.spent[currency] = str(tally.spent_amount(currency) + action.amount)


__all__ = ["DigestChoice", "DigestMark", "GoalTally", "count_action"]
