"""Where a negotiation is heading, by code: a walk-away point coming near, and its digest lines.

`nearing` says which of the user's stopping points one counterpart is one step from: the last
round the mandate allows, a "no offer above $X after N rounds" condition with one round to go,
their offer within 5 % of a "they offer less than $X" condition or just past the user's limit,
or a deadline under a day away. Each comes with the change the user might make, so Deputy can
offer it once (the user decides: Edit or Keep). `digest_lines` tells what the negotiation did
since a moment: offers both ways, rounds, the best offer against the target. Both read only the
mandate and the recorded state (what was actually sent and received), never the model. Pure: no IO.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from deputy.sentinel.negotiation.mandate import Mandate
from deputy.sentinel.negotiation.state import NegotiationState, Thread, their_offers
from deputy.sentinel.negotiation.walkaway import Trigger

NEAR = Decimal("0.05")
"""An offer within 5 % of a stopping amount is near it."""
DAY = 86400.0


@dataclass(frozen=True)
class Nearing:
    """One stopping point a counterpart is close to: `kind` names it (offered once per counterpart)."""

    kind: str
    text: str
    change: str
    """The change the user might make, as `/negotiate change …` words (empty: a change in their own words)."""


def nearing(mandate: Mandate, state: NegotiationState, counterpart: str, now: float) -> list[Nearing]:
    """The stopping points `counterpart` is near and has not reached (none once a deal is accepted)."""
    thread = state.thread(counterpart)
    if state.accepted is not None or thread.closed_at is not None:
        return []
    found: list[Nearing] = []
    if mandate.max_rounds > 1 and thread.rounds == mandate.max_rounds - 1:
        found.append(Nearing("rounds", f"one round left before I stop and ask you ({thread.rounds} of "
                                       f"{mandate.max_rounds} used)", f"{mandate.max_rounds + 2} rounds"))
    offers = their_offers(thread)
    best = _best(mandate, offers)
    for condition in mandate.conditions:
        if condition.amount is None:
            continue
        if condition.trigger is Trigger.no_offer and condition.rounds is not None \
                and thread.rounds == condition.rounds - 1 and not _reached(mandate, offers, condition.amount):
            so_far = f" (their best so far: {mandate.money(best)})" if best is not None else ""
            found.append(Nearing("no_offer", f"one more round without a better offer and your walk-away "
                                             f"“{condition.words}” is met{so_far}", ""))
        if condition.trigger is Trigger.offer_worse and thread.their_last is not None \
                and _just_short(mandate, thread.their_last, condition.amount):
            found.append(Nearing("offer_worse", f"their offer of {mandate.money(thread.their_last)} is within 5 % "
                                                f"of your walk-away “{condition.words}”", ""))
    last = thread.their_last
    if last is not None and last != mandate.reservation and mandate.past_reservation(last) \
            and abs(last - mandate.reservation) <= mandate.reservation * NEAR:
        limit, words = ("floor", "at least") if mandate.role.sells else ("ceiling", "at most")
        found.append(Nearing("limit", f"their offer of {mandate.money(last)} is only "
                                      f"{mandate.money(abs(last - mandate.reservation))} past your {limit} of "
                                      f"{mandate.money(mandate.reservation)}", f"{words} {mandate.money(last).split('/')[0]}"))
    if mandate.deadline is not None and 0 < mandate.deadline - now <= DAY:
        found.append(Nearing("deadline", f"your deadline, {mandate.deadline_words()}, is less than a day away", ""))
    return found


def offer_text(mandate: Mandate, counterpart: str, near: Nearing) -> str:
    """The one-time offer of a change: what is near, the change, and that nothing changes without the user."""
    change = f"/negotiate change {near.change}" if near.change else "/negotiate change followed by the new terms"
    return (f"💡 {mandate.subject}, with {counterpart}: {near.text}. To change the mandate, press Edit and send "
            f"{change}; press Keep and I go on as it is.")


def digest_lines(mandate: Mandate, state: NegotiationState, since: float) -> list[str]:
    """The negotiation since `since`, one line per counterpart, plus the best offer against the target."""
    lines = []
    for counterpart, thread in sorted(state.threads.items()):
        fresh = [r for r in thread.history if r.at > since]
        ours = sum(1 for r in fresh if r.who == "us" and r.amount is not None)
        theirs = sum(1 for r in fresh if r.who == "them")
        line = (f"• {counterpart}: {_count(ours, 'offer')} from me, {_count(theirs, 'message')} from them; "
                f"round {thread.rounds}/{mandate.max_rounds}")
        line += _where(mandate, thread)
        lines.append(line)
    best = _best(mandate, [o for t in state.threads.values() for o in their_offers(t)])
    if state.accepted is not None:
        lines.append(f"• Deal accepted with {state.accepted_with} at {mandate.money(state.accepted)}.")
    elif best is not None:
        gap = abs(best - mandate.target)
        head = "at or better than" if not _worse(mandate, best, mandate.target) else f"{mandate.money(gap)} from"
        lines.append(f"• Best offer so far: {mandate.money(best)}, {head} your target of {mandate.money(mandate.target)}.")
    else:
        lines.append("• No offer from anyone yet.")
    return lines


def _where(mandate: Mandate, thread: Thread) -> str:
    if thread.their_last is None and thread.our_last is None:
        return ""
    theirs = mandate.money(thread.their_last) if thread.their_last is not None else "no offer yet"
    ours = mandate.money(thread.our_last) if thread.our_last is not None else "none"
    return f"; their last {theirs}, mine {ours}"


def _best(mandate: Mandate, offers: list[Decimal]) -> Decimal | None:
    if not offers:
        return None
    return max(offers) if mandate.role.sells else min(offers)


def _worse(mandate: Mandate, amount: Decimal, than: Decimal) -> bool:
    return amount < than if mandate.role.sells else amount > than


def _reached(mandate: Mandate, offers: list[Decimal], amount: Decimal) -> bool:
    return any(o > amount if mandate.role.sells else o < amount for o in offers)


def _just_short(mandate: Mandate, last: Decimal, amount: Decimal) -> bool:
    """`last` has not yet crossed `amount` (a "they offer less/more than" point) but is within 5 % of it."""
    if mandate.role.sells:
        return amount <= last <= amount * (1 + NEAR)
    return amount * (1 - NEAR) <= last <= amount


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


__all__ = ["Nearing", "digest_lines", "nearing", "offer_text"]
