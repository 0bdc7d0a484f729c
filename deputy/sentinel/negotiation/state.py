"""Where a negotiation stands, per counterpart: offers both ways, rounds, open questions.

Kept by code from what was actually sent and received (the executor records each message
after it ran), never from what the model says happened.
"""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, Field

from deputy.sentinel.negotiation.incoming import ParsedOffer, parse_offer
from deputy.sentinel.negotiation.mandate import Mandate
from deputy.sentinel.negotiation.money import Rates
from deputy.sentinel.negotiation.questions import open_questions


class Round(BaseModel):
    at: float
    who: str = Field(description="“us” or “them”.")
    amount: Decimal | None = None
    text: str = Field(max_length=1000)


class Thread(BaseModel):
    """One counterpart: a buyer on the marketplace, a provider's retention desk."""

    rounds: int = 0
    our_last: Decimal | None = None
    their_last: Decimal | None = None
    disclosed: bool = False
    open_questions: list[str] = Field(default_factory=list)
    history: list[Round] = Field(default_factory=list)
    closed_at: Decimal | None = None
    offers: list[ParsedOffer] = Field(default_factory=list, description="Their offers as code parsed them, by id.")
    unsure: list[str] = Field(default_factory=list, description="Their words code could not read for sure.")


class NegotiationState(BaseModel):
    threads: dict[str, Thread] = Field(default_factory=dict)
    accepted: Decimal | None = None
    accepted_with: str | None = None

    def thread(self, counterpart: str) -> Thread:
        return self.threads.get(counterpart.strip().lower(), Thread())

    def put(self, counterpart: str, thread: Thread) -> None:
        self.threads[counterpart.strip().lower()] = thread


_HISTORY_KEPT = 30


def record_ours(state: NegotiationState, counterpart: str, offer: Decimal | None, text: str, at: float,
                accepted: bool = False) -> NegotiationState:
    """Our message went out: one more round if it carried an offer; questions it answered are closed."""
    thread = state.thread(counterpart).model_copy(deep=True)
    if offer is not None:
        thread.rounds += 1
        thread.our_last = offer
    thread.disclosed = True
    thread.open_questions = []
    thread.history = [*thread.history, Round(at=at, who="us", amount=offer, text=text[:1000])][-_HISTORY_KEPT:]
    new = state.model_copy(deep=True)
    if accepted:
        closing = offer if offer is not None else thread.their_last
        thread.closed_at = closing
        new.accepted, new.accepted_with = closing, counterpart
    new.put(counterpart, thread)
    return new


def record_theirs(state: NegotiationState, counterpart: str, text: str, mandate: Mandate,
                  at: float, user_words: list[str] | None = None, rates: Rates | None = None) -> NegotiationState:
    """The counterpart wrote: their offer as code parsed it (with an id the agent may accept; only one read
    for sure counts as their latest offer) and their questions."""
    thread = state.thread(counterpart).model_copy(deep=True)
    parsed = parse_offer(text, mandate, rates)
    offer = None
    if parsed is not None:
        parsed = parsed.model_copy(update={"id": f"T{len(thread.offers) + 1}"})
        thread.offers = [*thread.offers, parsed][-_HISTORY_KEPT:]
        if parsed.certain:
            offer = parsed.total_in_mandate
            thread.their_last = offer
        else:
            thread.unsure = [*thread.unsure, parsed.quote][-5:]
    questions = open_questions(text, mandate, user_words or [])
    thread.open_questions = list(dict.fromkeys([*thread.open_questions, *questions]))[-5:]
    thread.history = [*thread.history, Round(at=at, who="them", amount=offer, text=text[:1000])][-_HISTORY_KEPT:]
    new = state.model_copy(deep=True)
    new.put(counterpart, thread)
    return new


def their_messages(thread: Thread) -> list[str]:
    return [r.text for r in thread.history if r.who == "them"]


def their_offers(thread: Thread) -> list[Decimal]:
    return [r.amount for r in thread.history if r.who == "them" and r.amount is not None]
