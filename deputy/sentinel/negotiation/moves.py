"""Moves, not messages: the agent negotiates through typed moves; code writes what is sent.

`offer`, `counter`, `accept`, `decline`, `ask`, `tell`: each a `Move` with typed fields. The guard
checks the move itself, never the model's prose: an offer where it lands (in the mandate's
currency and period, converted at the rate shown), an acceptance of one of their offers as code
parsed it (by id; the final yes is always the user's tap, on a card stating the deal as parsed),
a fact only from the ones the user supplied (by id). `compose` writes the outgoing text from the
move; an optional note goes with it only if it carries no amount, no agreement, no payment, no
contact and nothing private (`freetext.text_problems`), else the move waits on a card. Pure.
"""

from __future__ import annotations

from decimal import Decimal
from enum import Enum

from pydantic import BaseModel, Field

from deputy.sentinel.negotiation.commitments import Commitment, commitments_in
from deputy.sentinel.negotiation.freetext import Similar, text_problems
from deputy.sentinel.negotiation.incoming import ParsedOffer
from deputy.sentinel.negotiation.leaks import private_leaks, reservation_leaks
from deputy.sentinel.negotiation.mandate import Mandate, MandateStatus
from deputy.sentinel.negotiation.money import Rates, convert, money, rate_line
from deputy.sentinel.negotiation.state import NegotiationState, Thread, their_messages, their_offers
from deputy.sentinel.negotiation.walkaway import conditions_met

MOVE_OPERATIONS = ("offer", "counter", "accept", "decline", "ask", "tell")


class MoveKind(str, Enum):
    offer = "offer"
    counter = "counter"
    accept = "accept"
    decline = "decline"
    ask = "ask"
    tell = "tell"


class Move(BaseModel):
    kind: MoveKind
    to: str = Field(max_length=200)
    amount: Decimal | None = Field(default=None, gt=0, max_digits=14, decimal_places=2)
    currency: str | None = Field(default=None, max_length=3)
    period: str | None = Field(default=None, pattern=r"^(?:day|week|month|year)$")
    terms: list[str] = Field(default_factory=list, max_length=5, description="Ids of the user's facts to state.")
    their_offer_id: str | None = Field(default=None, max_length=20)
    question: str | None = Field(default=None, max_length=500)
    fact_id: str | None = Field(default=None, max_length=80)
    note: str | None = Field(default=None, max_length=500)


class MoveReview(BaseModel):
    verdict: str = Field(description="allow, ask or deny")
    reasons: list[str] = Field(default_factory=list)
    text: str = ""
    lands: Decimal | None = Field(default=None, description="Where an offer lands, in the mandate's terms.")
    accepts: ParsedOffer | None = None
    walk_away: list[str] = Field(default_factory=list)


def find_offer(thread: Thread, offer_id: str | None) -> ParsedOffer | None:
    return next((o for o in thread.offers if o.id == (offer_id or "").strip().upper()), None)


def compose(move: Move, mandate: Mandate, thread: Thread) -> str:
    """The words that go out for `move`, written by code (the note, if any, after them)."""
    parts: list[str] = []
    if mandate.disclosure and not thread.disclosed:
        parts.append(f"Hi, I'm an AI assistant acting for {mandate.principal}.")
    currency = (move.currency or mandate.currency).upper()
    period = move.period or mandate.per
    if move.kind in (MoveKind.offer, MoveKind.counter) and move.amount is not None:
        lead = "Thanks for your offer. " if move.kind is MoveKind.counter else ""
        verb = "I can do" if mandate.role.sells else "I can offer"
        parts.append(f"{lead}{verb} {money(move.amount, currency, period)} for {mandate.subject}.")
        parts += [f"{topic.capitalize()}: {mandate.facts[topic]}." for topic in move.terms if topic in mandate.facts]
    elif move.kind is MoveKind.accept:
        theirs = find_offer(thread, move.their_offer_id)
        if theirs is not None and theirs.price is not None:
            # No message of ours carries the limit's figure, not even as their number taken at exactly the limit.
            amount = "" if theirs.total_in_mandate == mandate.reservation else \
                f" of {money(theirs.total or theirs.price, theirs.currency, theirs.period)}"
            parts.append(f"Yes, we accept your offer{amount} for {mandate.subject}.")
    elif move.kind is MoveKind.decline:
        parts.append("Thank you, but we can't accept that.")
    elif move.kind is MoveKind.ask and move.question:
        parts.append(move.question.strip())
    elif move.kind is MoveKind.tell and move.fact_id in mandate.facts:
        parts.append(f"{move.fact_id.capitalize()}: {mandate.facts[move.fact_id]}.")
    if move.note and move.note.strip():
        parts.append(move.note.strip())
    return " ".join(parts)


def review_move(move: Move, mandate: Mandate, state: NegotiationState, now: float, rates: Rates | None = None,
                similar: Similar | None = None) -> MoveReview:
    """allow / ask / deny for `move`, with the exact text that would go out."""
    rates = rates or Rates()
    thread = state.thread(move.to)
    text = compose(move, mandate, thread)
    denied: list[str] = []
    asked: list[str] = []
    lands: Decimal | None = None
    accepts: ParsedOffer | None = None
    if mandate.status is not MandateStatus.active:
        return MoveReview(verdict="deny", reasons=[f"The negotiation is {mandate.status.value}: nothing is sent."],
                          text=text)
    if not mandate.allows_counterpart(move.to):
        asked.append(f"Your mandate doesn't name {move.to} as someone to negotiate with.")
    if state.accepted is not None:
        asked.append("A deal was already accepted in this negotiation; anything more needs you.")
    if move.kind in (MoveKind.offer, MoveKind.counter):
        if move.amount is None:
            denied.append("An offer needs an amount.")
        else:
            currency = (move.currency or mandate.currency).upper()
            lands = convert(move.amount, currency, move.period or mandate.per, mandate.currency, mandate.per, rates)
            if lands is None:
                denied.append(f"{money(move.amount, currency, move.period)} can't be put in your mandate's terms.")
            elif mandate.past_reservation(lands):
                denied.append(f"An offer of {mandate.money(lands)} is at or past your limit.")
            else:
                before = thread.our_last if thread.our_last is not None else mandate.opening
                if before is not None and mandate.concession(before, lands) > mandate.max_step:
                    denied.append(f"Going from {mandate.money(before)} to {mandate.money(lands)} concedes more than "
                                  f"the {mandate.money(mandate.max_step)} per round your mandate allows.")
                if currency != mandate.currency.upper():
                    asked.append("The offer is in " + currency + ": " + (rate_line(currency, mandate.currency, rates)
                                                                          or "") + ".")
            if thread.rounds >= mandate.max_rounds:
                asked.append(f"This would be offer {thread.rounds + 1} to them; your mandate allows "
                             f"{mandate.max_rounds}.")
            if mandate.deadline is not None and now > mandate.deadline:
                asked.append("The negotiation's deadline has passed.")
            unknown = [t for t in move.terms if t not in mandate.facts]
            if unknown:
                denied.append(f"“{unknown[0]}” is not one of the facts you gave.")
    elif move.kind is MoveKind.accept:
        accepts = find_offer(thread, move.their_offer_id)
        if accepts is None or accepts.price is None:
            denied.append(f"There is no offer of theirs with a price and the id “{move.their_offer_id}”.")
        elif accepts.total_in_mandate is not None and mandate.past_reservation(accepts.total_in_mandate) \
                and accepts.total_in_mandate != mandate.reservation:
            denied.append(f"Their offer comes to {mandate.money(accepts.total_in_mandate)}, past your limit.")
        elif not accepts.certain:
            asked.append("I couldn't read their offer for sure: " + "; ".join(accepts.doubts or ["no price"]) + ".")
        if accepts is not None:
            asked.append("This accepts their offer: the final yes is always yours.")
    elif move.kind is MoveKind.ask and not (move.question or "").strip():
        denied.append("A question needs its words.")
    elif move.kind is MoveKind.tell and move.fact_id not in mandate.facts:
        denied.append(f"“{move.fact_id}” is not one of the facts you gave; I only state those.")
    for words, what in ((move.note, "The note with it"), (move.question, "The question")):
        if not words:
            continue
        if reservation_leaks(words, mandate.reservation) or private_leaks(words, mandate.private):
            denied.append(f"{what} would say your limit or something you marked private.")
        if {Commitment.pay, Commitment.sign} & set(commitments_in(words)):
            denied.append(f"{what} speaks of paying or signing; a negotiation never does that for you.")
        problems = text_problems(words, mandate.private, similar)
        if problems:
            asked.append(f"{what} needs you: " + ", ".join(problems) + ".")
    if thread.open_questions and move.kind in (MoveKind.offer, MoveKind.counter, MoveKind.accept, MoveKind.tell):
        asked.append("They asked something your mandate doesn't answer: “" + thread.open_questions[0][:120]
                     + "”. Approve only if going on without your answer is right.")
    met = conditions_met(mandate.conditions, their_messages(thread), thread.rounds, their_offers(thread),
                         mandate.role.sells)
    if met and move.kind is not MoveKind.decline:
        asked.append("Your walk-away condition is met: " + "; ".join(met) + ".")
    if denied:
        return MoveReview(verdict="deny", reasons=denied, text=text, lands=lands, accepts=accepts, walk_away=met)
    if asked:
        return MoveReview(verdict="ask", reasons=asked, text=text, lands=lands, accepts=accepts, walk_away=met)
    said = f"offers {mandate.money(lands)}" if lands is not None else f"{move.kind.value}, no amount, nothing private"
    return MoveReview(verdict="allow", reasons=[f"Inside your mandate: {said}."], text=text, lands=lands, walk_away=met)
