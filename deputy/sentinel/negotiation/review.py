"""`review_offer`: the mandate's say on one outgoing message of a negotiation.

Pure: the message text, the mandate, the state and the time in; allow, ask (with the
reason) or deny (with the reason) out. What it enforces, whatever the model wrote:
- the reservation price and private items never appear, in any form (deny);
- every amount is read; one past the reservation price, or a bigger concession than the
  mandate allows, is denied; one that cannot be read for sure goes to the user;
- a commitment: the final acceptance always asks; a threat to cancel asks unless the mandate
  allows it; a signature or a payment is denied;
- rounds and the deadline: past either, a new offer asks the user;
- a question from the counterpart that neither the mandate nor the negotiation answers goes
  to the user before a reply is sent, and so does a message stating a fact nobody gave the
  agent (neither the mandate's facts nor the user's own words);
- a walk-away condition met (by their messages, the rounds, their offers): no further message
  to them without the user's tap, on a card naming the condition; a condition code could not
  read asks before every offer;
- disclosure: the first message to a counterpart says it is an AI acting for the user, and
  no message ever claims to be human;
- a paused or stopped mandate sends nothing; a draft one (not yet confirmed) neither.

Every reason is redacted (`leaks.redact`): the reservation price and private items never appear
in a reason, whatever the message or the counterpart wrote, because reasons reach the audit trail.
"""

from __future__ import annotations

import re
from decimal import Decimal
from enum import Enum

from pydantic import BaseModel, Field

from deputy.sentinel.negotiation.amounts import Amount, read_amounts
from deputy.sentinel.negotiation.commitments import Commitment, commitments_in
from deputy.sentinel.negotiation.acceptance import accepts_their_deal, deal_on_table
from deputy.sentinel.negotiation.freetext import AGREEMENT, Similar, text_problems
from deputy.sentinel.negotiation.leaks import LIMIT_SHOWN, private_leaks, redact, reservation_leaks
from deputy.sentinel.negotiation.mandate import Mandate, MandateStatus
from deputy.sentinel.negotiation.questions import unsupported_claims
from deputy.sentinel.negotiation.state import NegotiationState, Thread, their_messages, their_offers
from deputy.sentinel.negotiation.walkaway import conditions_met


class OfferVerdict(str, Enum):
    allow = "allow"
    ask = "ask"
    deny = "deny"


class OfferReview(BaseModel):
    verdict: OfferVerdict
    reasons: list[str] = Field(default_factory=list)
    offer: Decimal | None = Field(default=None, description="Our offer in this message, as read.")
    accepts: bool = False
    questions: list[str] = Field(default_factory=list, description="The counterpart's questions passed to the user.")


_DISCLOSED = re.compile(
    r"\b(?:AI|A\.I\.|artificial intelligence|automated|an? (?:digital |virtual |AI )?assistant|bot|agent)\b",
    re.IGNORECASE)
_CLAIMS_HUMAN = re.compile(
    r"\b(?:i'?m|i am|this is)\s+(?:not\s+(?:a|an)\s+(?:bot|ai|robot|machine|program)|(?:a\s+)?(?:real|human|actual)"
    r"\s*(?:person|human|being)?)\b|\bno,? i'?m not (?:a |an )?(?:bot|ai)\b|\bnot an? (?:bot|ai|robot)\b",
    re.IGNORECASE)


def review_offer(text: str, mandate: Mandate, state: NegotiationState, counterpart: str, now: float,
                 user_words: list[str] | None = None, similar: Similar | None = None,
                 hold_free_text: bool = True) -> OfferReview:
    """The mandate's verdict on sending `text` to `counterpart` now. `user_words`: the user's own words
    (the goal, what they told Deputy to remember), the only other source of facts than the mandate.
    `similar` finds private items said in other words. `hold_free_text`: a message the agent wrote itself
    (not a move) that carries an amount, agreement, payment or a contact waits on a card; False only to
    ask what the mandate alone says of the words."""
    found = _review(text, mandate, state, counterpart, now, user_words or [], similar, hold_free_text)
    return found.model_copy(update={"reasons": [redact(r, mandate.reservation, mandate.private) for r in found.reasons],
                                    "questions": [redact(q, mandate.reservation, mandate.private)
                                                  for q in found.questions]})


def shown_offer(review: OfferReview, mandate: Mandate) -> str | None:
    """The offer as the audit trail may record it: never the reservation price itself."""
    if review.offer is None:
        return None
    return LIMIT_SHOWN if review.offer == mandate.reservation else str(review.offer)


def _review(text: str, mandate: Mandate, state: NegotiationState, counterpart: str, now: float,
            user_words: list[str], similar: Similar | None = None, hold_free_text: bool = True) -> OfferReview:
    thread = state.thread(counterpart)
    denied: list[str] = []
    asked: list[str] = []
    if mandate.status is MandateStatus.draft:
        return _deny("The negotiation's mandate is not confirmed yet; nothing is sent before you confirm it.")
    if mandate.status is MandateStatus.paused:
        return _deny("You paused this negotiation; nothing is sent until you resume it.")
    if mandate.status is MandateStatus.stopped:
        return _deny("You stopped this negotiation; nothing more is sent.")
    if state.accepted is not None:
        asked.append("A deal was already accepted in this negotiation; anything more needs you.")
    leaks = reservation_leaks(text, mandate.reservation)
    if leaks:
        denied.append("The message would reveal your limit, which is never said.")
    private = private_leaks(text, mandate.private) or (similar(text, mandate.private) if similar else [])
    if private:
        denied.append("The message would say something you marked private.")
    if _CLAIMS_HUMAN.search(text):
        denied.append("The message claims to be a person; Deputy never denies being an AI.")
    if mandate.disclosure and not thread.disclosed and not _DISCLOSED.search(text):
        denied.append(f"The first message to them must say it is an AI assistant acting for {mandate.principal}.")
    reading = read_amounts(text, scale=mandate.reservation)
    if reading.unreadable:
        asked.append("I can't read for sure what amount “" + _cut(reading.unreadable[0]) + "” means.")
    offers, problems = _offers(reading.amounts, mandate, thread)
    denied += problems
    offer = _our_offer(offers, mandate)
    their_words = their_messages(thread)
    # With a deal on the table (their last message names their price, or agrees to or presupposes a deal), a
    # reply that doesn't say no, put it off, counter or only ask takes it, whatever words it is in.
    accepts = Commitment.accept in commitments_in(text) or accepts_their_deal(
        text, their_words[-1] if their_words else None, thread.our_last, mandate.reservation,
        standing=thread.their_last is not None or thread.our_last is not None)
    # Accepting their standing offer is no concession of ours to pace: it is the final yes, the user's tap.
    taking_theirs = accepts and offer is not None and offer == thread.their_last
    too_far = check_step(offer, mandate, thread) if not problems and not taking_theirs else None
    if too_far:
        denied.append(too_far)
    if offer is not None:
        if thread.rounds >= mandate.max_rounds:
            asked.append(f"This would be offer {thread.rounds + 1} to them; your mandate allows {mandate.max_rounds}.")
        if mandate.deadline is not None and now > mandate.deadline:
            asked.append("The negotiation's deadline has passed.")
    commitments = commitments_in(text)
    latest = thread.offers[-1] if thread.offers else None
    if accepts and offer is None and latest is not None and not latest.certain:
        asked.append("This agrees to their offer, which I couldn't read for sure: “" + _cut(latest.quote, 120) + "”.")
    if accepts:
        # Every reading of what is accepted must be inside: their latest offer, even one not read for sure.
        readings = [offer] if offer is not None else [
            x for x in (latest.total_in_mandate if latest is not None else None, thread.their_last) if x is not None]
        past = [x for x in readings if mandate.past_reservation(x) and x != mandate.reservation]
        closing = past[0] if past else (readings[0] if readings else None)
        if past:
            denied.append(f"Accepting {mandate.money(past[0])} would go past your limit.")
        else:
            shown = mandate.money(closing) if closing is not None else "their terms"
            asked.append(f"This accepts the deal at {shown}: the final yes is always yours.")
    if Commitment.cancel in commitments and not mandate.may_threaten_cancel:
        asked.append("The message says you would cancel, a commitment your mandate doesn't give.")
    if Commitment.sign in commitments or Commitment.pay in commitments:
        denied.append("A negotiation never signs or pays on your behalf; you do that yourself.")
    met = conditions_met(mandate.conditions, their_messages(thread), thread.rounds, their_offers(thread),
                         mandate.role.sells)
    if met:
        asked.append("Your walk-away condition is met: " + "; ".join(met) + ". I make no further offer to them "
                     "without you: approve to send this anyway, or deny and stop.")
    if offer is not None and mandate.unread_conditions:
        asked.append("I can't check your walk-away condition “" + _cut(mandate.unread_conditions[0], 120)
                     + "” myself: approve only if it isn't met.")
    # A yes to their plain question, with no deal on the table, commits to nothing ("Yes, still for sale.");
    # agreeing to anything they stated (a condition, a change of terms) still waits for the user.
    said_last = their_words[-1] if their_words else None
    answers_question = bool(said_last and re.search(r"[?？]\s*$", said_last.strip())) and not deal_on_table(
        said_last, thread.our_last, mandate.reservation,
        standing=thread.their_last is not None or thread.our_last is not None)
    held = [p for p in text_problems(text, [], None) if not accepts and hold_free_text
            and (p != AGREEMENT or not answers_question)]
    if held:
        asked.append("The agent wrote this message itself instead of making a move, and " + ", ".join(held)
                     + ": a person could read it as a commitment.")
    claims = unsupported_claims(text, mandate, user_words)
    if claims:
        asked.append("The message states something neither your mandate nor your own words say: “"
                     + _cut(claims[0], 120) + "”. Approve only if it is true.")
    if thread.open_questions:
        asked.append("They asked something your mandate doesn't answer: “" + _cut(thread.open_questions[0], 120)
                     + "”. Approve only if the reply is true.")
    if denied:
        return OfferReview(verdict=OfferVerdict.deny, reasons=denied, offer=offer, accepts=accepts)
    if asked:
        return OfferReview(verdict=OfferVerdict.ask, reasons=asked, offer=offer, accepts=accepts,
                           questions=list(thread.open_questions))
    reason = (f"Inside your mandate: offers {mandate.money(offer)}." if offer is not None
              else "Inside your mandate: no offer, no commitment, nothing private.")
    return OfferReview(verdict=OfferVerdict.allow, reasons=[reason], offer=offer)


def _offers(amounts: list[Amount], mandate: Mandate, thread: Thread) -> tuple[list[Decimal], list[str]]:
    """Absolute amounts (relative moves turned into the amount they reach), and what breaks the mandate."""
    problems: list[str] = []
    offers: list[Decimal] = []
    for amount in amounts:
        value = amount.value
        if amount.relative:
            base = thread.our_last if thread.our_last is not None else mandate.opening
            if base is None:
                problems.append(f"“{_cut(amount.text)}” moves from an offer that was never made.")
                continue
            move = base * value / 100 if amount.percent else value
            value = base + amount.direction * move
        if mandate.opening is not None and value == mandate.opening and not mandate.role.sells:
            continue  # the bill as it is now: a reference the provider knows, not an offer
        offers.append(value)
        if mandate.past_reservation(value) and value != mandate.reservation:
            problems.append(f"{mandate.money(value)} is past your limit.")
    return offers, problems


def _our_offer(offers: list[Decimal], mandate: Mandate) -> Decimal | None:
    """The offer a counterpart would hold us to: the one most in their favour."""
    if not offers:
        return None
    return min(offers) if mandate.role.sells else max(offers)


def check_step(offer: Decimal | None, mandate: Mandate, thread: Thread) -> str | None:
    """The concession from our last offer (or the opening price) is within the mandate's step."""
    if offer is None:
        return None
    before = thread.our_last if thread.our_last is not None else mandate.opening
    if before is None:
        return None
    given = mandate.concession(before, offer)
    if given > mandate.max_step:
        return (f"Going from {mandate.money(before)} to {mandate.money(offer)} concedes {mandate.money(given)}; "
                f"your mandate allows {mandate.money(mandate.max_step)} per round.")
    return None


def _deny(reason: str) -> OfferReview:
    return OfferReview(verdict=OfferVerdict.deny, reasons=[reason])


def _cut(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
