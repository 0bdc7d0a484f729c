"""Where a negotiation stands, per counterpart: offers both ways, rounds, open questions.

Kept by code from what was actually sent and received (the executor records each message
after it ran), never from what the model says happened.
"""

from __future__ import annotations

import re
from decimal import Decimal

from pydantic import BaseModel, Field

from sentinel.negotiation.amounts import read_amounts
from sentinel.negotiation.mandate import Mandate


class Round(BaseModel):
    at: float
    who: str = Field(description="“us” or “them”.")
    amount: Decimal | None = None
    text: str = Field(max_length=400)


class Thread(BaseModel):
    """One counterpart: a buyer on the marketplace, a provider's retention desk."""

    rounds: int = 0
    our_last: Decimal | None = None
    their_last: Decimal | None = None
    disclosed: bool = False
    open_questions: list[str] = Field(default_factory=list)
    history: list[Round] = Field(default_factory=list)
    closed_at: Decimal | None = None


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
    thread.history = [*thread.history, Round(at=at, who="us", amount=offer, text=text[:400])][-_HISTORY_KEPT:]
    new = state.model_copy(deep=True)
    if accepted:
        closing = offer if offer is not None else thread.their_last
        thread.closed_at = closing
        new.accepted, new.accepted_with = closing, counterpart
    new.put(counterpart, thread)
    return new


def record_theirs(state: NegotiationState, counterpart: str, text: str, mandate: Mandate,
                  at: float) -> NegotiationState:
    """The counterpart wrote: their latest offer (the last amount read for sure) and their questions."""
    thread = state.thread(counterpart).model_copy(deep=True)
    reading = read_amounts(text, scale=mandate.reservation)
    absolute = [a.value for a in reading.amounts if not a.relative]
    offer = absolute[-1] if absolute else None
    if offer is not None:
        thread.their_last = offer
    questions = open_questions(text, mandate)
    thread.open_questions = list(dict.fromkeys([*thread.open_questions, *questions]))[-5:]
    thread.history = [*thread.history, Round(at=at, who="them", amount=offer, text=text[:400])][-_HISTORY_KEPT:]
    new = state.model_copy(deep=True)
    new.put(counterpart, thread)
    return new


# Questions any negotiation can answer from the mandate itself: price, availability, timing of a reply.
_NEGOTIABLE = re.compile(
    r"\b(?:price|offer|lowest|best|take|accept|do|go|budget|deal|discount|cheaper|less|more|negotiable|firm|"
    r"available|still for sale|sold|how much|counter|rate|bill|plan|pay|paying|afford|come down|meet|"
    r"human|person|bot|ai|robot|real|who are you|speak to|talk to|agent)\b",
    re.IGNORECASE)
_STOP = frozenset("the a an is are was were has have had do does did it its this that what when where which who how "
                  "any your you with for from about and or of to in on at be been can could would will there "
                  "ever been still yes no".split())


def open_questions(text: str, mandate: Mandate) -> list[str]:
    """Questions in `text` that neither the negotiation itself nor the mandate's facts answer."""
    questions = [q.strip() for q in re.findall(r"[^.!?\n]*\?", text) if q.strip()]
    known = [f"{topic} {answer}" for topic, answer in mandate.facts.items()]
    unanswered = []
    for question in questions:
        if _NEGOTIABLE.search(question) and not re.search(r"\b(?:service|history|accident|title|lien|contract|"
                                                          r"fee|term|warranty|insurance|owner|repair|damage|"
                                                          r"replaced|condition|clause)", question, re.IGNORECASE):
            continue
        if not answered_by(question, known):
            unanswered.append(question[:200])
    return unanswered


def answered_by(question: str, known: list[str]) -> bool:
    """The user's own words (the mandate's facts, what they told Deputy to remember) speak to the question:
    enough of its words appear in one of them."""
    words = set(re.findall(r"[a-z]{3,}", question.lower())) - _STOP
    if not words:
        return False
    return any(len(words & set(re.findall(r"[a-z]{3,}", text.lower()))) >= max(1, (len(words) + 1) // 2)
               for text in known)
