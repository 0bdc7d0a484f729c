"""An outgoing message of a negotiating goal, reviewed against its mandate in one pure call.

`review_outgoing` takes the action, the usual review's decision and what the executor gathered
(the mandate, the negotiation's state, the user's own words) and returns the combined decision
with the offer it read, and whom it is to. It neither stores nor redacts: the executor's
`NegotiationGuard` records the round and redacts everything that leaves it, once, at its edge.
A structured move (`offer`, `counter`, `accept`...) is reviewed as a move (`moves.review_move`);
any other message is read as free text (`review.review_offer`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.sentinel.intent import Kind, action_kinds
from deputy.sentinel.negotiation.guard import combine
from deputy.sentinel.negotiation.mandate import Mandate
from deputy.sentinel.negotiation.money import Rates
from deputy.sentinel.negotiation.moves import MOVE_OPERATIONS, Move, MoveKind, MoveReview, review_move
from deputy.sentinel.negotiation.questions import answered_by
from deputy.sentinel.negotiation.review import OfferReview, OfferVerdict, review_offer
from deputy.sentinel.negotiation.state import NegotiationState
from deputy.sentinel.policy import Decision, ReviewContext, Verdict
from deputy.sentinel.provenance import values_in
from deputy.sentinel.textflow import string_fields

# Argument names that are addressing, not what is said.
_NOT_SAID = frozenset({"to", "cc", "bcc", "conversation_id", "url", "thread_id"})


@dataclass(frozen=True)
class OutgoingReview:
    decision: Decision
    """The usual review held to the mandate (its reasons may still name the limit: redact before showing)."""
    offer: OfferReview
    counterpart: str


def said(action: Action) -> str:
    """Everything an outgoing message says: every text argument but the addressing."""
    return "\n".join(value for name, value in string_fields(action.arguments)
                     if name.split(".")[0] not in _NOT_SAID)


def is_message(action: Action) -> bool:
    """Anything that puts words in front of someone else: a message, a post or form, an invitation, a share."""
    kinds = action_kinds(action.effect, frozenset(action.tags), action.connector, action.operation)
    return action.effect is EffectClass.communicate or bool(kinds & {Kind.post, Kind.send, Kind.share})


def move_of(action: Action) -> Move | None:
    """The move an action is, or None for any other action."""
    if action.connector != "negotiation" or action.operation not in MOVE_OPERATIONS:
        return None
    return Move(kind=MoveKind(action.operation), **{k: v for k, v in action.arguments.items()
                                                     if k in Move.model_fields and k != "kind"})


def counterpart_of(action: Action, mandate: Mandate) -> str:
    inside = [t for t in action.targets if mandate.allows_counterpart(t)]
    return (inside or action.targets or [f"{action.connector}.{action.operation}"])[0].strip().lower()


def answered_from_memory(state: NegotiationState, counterpart: str, trusted: list[str]) -> NegotiationState:
    """Questions the user's own words already answer (what they told Deputy to remember, the goal
    itself) are not asked again; the rest still go to the user."""
    thread = state.thread(counterpart)
    still = [q for q in thread.open_questions if not answered_by(q, trusted)]
    if still == thread.open_questions:
        return state
    changed = state.model_copy(deep=True)
    changed.put(counterpart, thread.model_copy(update={"open_questions": still}))
    return changed


def as_offer_review(review: MoveReview, mandate: Mandate) -> OfferReview:
    """The move's verdict in the form the guard combines with the usual review; an acceptance's card
    states the deal as code parsed it."""
    reasons = list(review.reasons)
    if review.verdict != "allow":
        reasons.append("Deputy would send: “" + review.text + "”")
    if review.accepts is not None:
        reasons.append("The deal as I read their message (" + review.accepts.id + "): "
                       + "; ".join(review.accepts.deal_lines(mandate)))
    verdict = {"allow": OfferVerdict.allow, "ask": OfferVerdict.ask, "deny": OfferVerdict.deny}[review.verdict]
    return OfferReview(verdict=verdict, reasons=reasons, offer=review.lands, accepts=review.accepts is not None)


def review_outgoing(action: Action, decision: Decision, context: ReviewContext, mandate: Mandate,
                    state: NegotiationState, now: float, rates: Rates,
                    similar: Callable[[str, list[str]], list[str]] | None = None,
                    counterpart: str | None = None) -> OutgoingReview:
    """`decision` (the usual review of `action`, a message of a negotiating goal) held to its mandate.
    `counterpart`: whom it is to, when the executor knows better than the targets (a service's channel)."""
    counterpart = counterpart or counterpart_of(action, mandate)
    user_words = list(context.provenance.trusted_texts)
    state = answered_from_memory(state, counterpart, user_words)
    move = move_of(action)
    if move is not None:
        checked = review_move(move, mandate, state, now, rates, similar)
        offer, text = as_offer_review(checked, mandate), checked.text
    else:
        text = said(action)
        offer = review_offer(text, mandate, state, counterpart, now, user_words, similar)
    carried = [v for v in values_in(text) if v[0] in ("email", "phone", "account", "url")]
    approved = context.approved_fingerprint is not None and context.approved_fingerprint == action.fingerprint()
    combined = combine(decision, offer, to_counterpart=all(mandate.allows_counterpart(t) for t in action.targets)
                       and bool(action.targets), approved=approved,
                       rules_ask=context.rules.verdict is Verdict.ask, carried=carried)
    return OutgoingReview(decision=combined, offer=offer, counterpart=counterpart)
