"""The mandate's check on each outgoing negotiation message, as a seller and as a customer lowering a bill."""

from __future__ import annotations

from decimal import Decimal

import pytest

from deputy.sentinel.negotiation import (
    Mandate, MandateStatus, NegotiationState, OfferVerdict, Role, commitments_in, read_amounts, record_ours,
    record_theirs, review_offer,
)

CAR = "market:c1"
DESK = "provider:retention"


def car(**changes) -> Mandate:
    base = dict(subject="my 2017 Honda Civic", role=Role.sell, target=Decimal(15500), reservation=Decimal(14000),
                opening=Decimal(16500), max_step=Decimal(500), max_rounds=4, principal="Sam",
                counterparts=["market:*"], status=MandateStatus.active, facts={"mileage": "62,000 miles"},
                private=["moving to Berlin"])
    base.update(changes)
    return Mandate(**base)


def bill(**changes) -> Mandate:
    base = dict(subject="my internet bill", role=Role.reduce, per="month", target=Decimal(45), reservation=Decimal(60),
                opening=Decimal(80), max_step=Decimal(5), principal="Sam", counterparts=[DESK],
                status=MandateStatus.active)
    base.update(changes)
    return Mandate(**base)


def disclosed(counterpart: str = CAR, our_last: Decimal | None = None) -> NegotiationState:
    state = record_ours(NegotiationState(), counterpart, None, "Hi, I'm an AI assistant acting for Sam.", 0)
    if our_last is not None:
        state = record_ours(state, counterpart, our_last, "offer", 1)
    return state


def verdict(text: str, mandate: Mandate | None = None, state: NegotiationState | None = None,
            counterpart: str = CAR, now: float = 10):
    return review_offer(text, mandate or car(), state if state is not None else disclosed(counterpart), counterpart, now, hold_free_text=False)


def test_an_offer_inside_the_mandate_is_allowed_and_read() -> None:
    result = verdict("I could come down to $16,000 for the Civic.")
    assert result.verdict is OfferVerdict.allow and result.offer == Decimal(16000)


@pytest.mark.parametrize("text", [
    "My floor is 14k.", "I can't go under 14,000.", "Fourteen thousand is my limit.", "1 4 0 0 0 is the lowest.",
    "Anything above 14 grand works.", "bottom line $14000", "14.000 EUR is where I stop", "l4OOO minimum",
])
def test_the_reservation_price_is_never_said_in_any_form(text: str) -> None:
    result = verdict(text)
    assert result.verdict is OfferVerdict.deny and "limit" in " ".join(result.reasons)


def test_an_offer_past_the_floor_is_denied_even_written_as_a_range_or_a_relative_move() -> None:
    assert verdict("I could do 13-14k").verdict is OfferVerdict.deny
    assert verdict("How about thirteen thousand five hundred?").verdict is OfferVerdict.deny
    # 16,000 last time; knocking 2,500 off reaches 13,500.
    assert verdict("I'll knock $2,500 off.", state=disclosed(our_last=Decimal(16000))).verdict is OfferVerdict.deny


def test_a_concession_bigger_than_the_step_is_denied() -> None:
    result = verdict("OK, $15,000 then.", state=disclosed(our_last=Decimal(16000)))
    assert result.verdict is OfferVerdict.deny and "per round" in " ".join(result.reasons)
    assert verdict("OK, $15,600 then.", state=disclosed(our_last=Decimal(16000))).verdict is OfferVerdict.allow


def test_an_amount_that_cannot_be_read_for_sure_goes_to_the_user() -> None:
    result = verdict("Something like fifteen-ish would work.")
    assert result.verdict is OfferVerdict.ask and "can't read" in " ".join(result.reasons)


def test_the_final_acceptance_always_asks_and_one_past_the_floor_is_denied() -> None:
    state = record_theirs(disclosed(our_last=Decimal(15600)), CAR, "I can pay $15,400.", car(), 2)
    result = verdict("Deal, $15,400 it is.", state=state)
    assert result.verdict is OfferVerdict.ask and result.accepts
    low = record_theirs(disclosed(our_last=Decimal(15600)), CAR, "Final: $9,000.", car(), 2)
    assert verdict("Deal!", state=low).verdict is OfferVerdict.deny


def test_signing_or_paying_is_never_sent_and_a_cancel_threat_needs_the_mandate() -> None:
    assert verdict("I'll sign the transfer papers today.").verdict is OfferVerdict.deny
    desk = disclosed(DESK)
    threat = "If you can't do $55/month I will cancel my service."
    assert verdict(threat, bill(), desk, DESK).verdict is OfferVerdict.ask
    assert verdict(threat, bill(may_threaten_cancel=True), desk, DESK).verdict is OfferVerdict.allow


def test_a_bill_offer_above_the_ceiling_is_denied_but_quoting_the_current_bill_is_fine() -> None:
    desk = disclosed(DESK)
    assert verdict("I'm paying $80/month now; could you do $50/month?", bill(), desk, DESK).verdict is OfferVerdict.allow
    assert verdict("I could accept $65 a month.", bill(), desk, DESK).verdict is OfferVerdict.deny


def test_the_first_message_discloses_and_no_message_claims_to_be_human() -> None:
    fresh = NegotiationState()
    assert verdict("Hi! Still interested? $16,500.", state=fresh).verdict is OfferVerdict.deny
    assert verdict("Hi, I'm Sam's AI assistant. The asking price is $16,500.", state=fresh).verdict \
        is OfferVerdict.allow
    assert verdict("No, I'm a real person, not a bot.").verdict is OfferVerdict.deny
    assert verdict("Hi! $16,500.", car(disclosure=False), fresh).verdict is OfferVerdict.allow


def test_rounds_and_deadline_are_counted() -> None:
    state = disclosed()
    for n, price in enumerate([16400, 16300, 16200, 16100]):
        state = record_ours(state, CAR, Decimal(price), "offer", n)
    result = verdict("I can do $16,000.", state=state)
    assert result.verdict is OfferVerdict.ask and "allows 4" in " ".join(result.reasons)
    late = verdict("I can do $16,400.", car(deadline=5.0), now=6.0)
    assert late.verdict is OfferVerdict.ask and "deadline" in " ".join(late.reasons)


def test_a_question_the_mandate_cannot_answer_goes_to_the_user() -> None:
    state = record_theirs(disclosed(), CAR, "Has the timing belt been replaced? What's your best price?", car(), 2)
    result = verdict("Yes it was! I can do $16,200.", state=state)
    assert result.verdict is OfferVerdict.ask and "timing belt" in " ".join(result.reasons)
    answerable = record_theirs(disclosed(), CAR, "What's the mileage? Would you take 15k?", car(), 2)
    assert verdict("It has 62,000 miles. I can do $16,200.", state=answerable).verdict is OfferVerdict.allow


def test_private_items_and_paused_or_draft_mandates_send_nothing() -> None:
    assert verdict("Need it gone, I'm moving to Berlin.").verdict is OfferVerdict.deny
    assert verdict("$16,400 is fine.", car(status=MandateStatus.paused)).verdict is OfferVerdict.deny
    assert verdict("$16,400 is fine.", car(status=MandateStatus.draft)).verdict is OfferVerdict.deny


def test_amount_reader_leaves_years_mileage_and_counts_alone() -> None:
    reading = read_amounts("My 2017 Civic has 62,000 miles, 2 owners, asking $16,500.", Decimal(14000))
    assert [a.value for a in reading.amounts] == [Decimal(16500)] and reading.certain


@pytest.mark.parametrize("text", [
    "OK, $15,200 it is. Come pick it up tomorrow.", "You can have it for $15,800.", "Fine, that it is.",
    "We're agreed at $15,600.", "It's a go at 15.6k.", "Sold!", "That works for me: $15,700.",
])
def test_acceptances_without_the_word_deal_still_wait_for_the_tap(text: str) -> None:
    result = verdict(text, state=disclosed(our_last=Decimal(15900)))
    assert result.verdict is not OfferVerdict.allow and result.accepts


def test_negated_commitments_commit_to_nothing() -> None:
    assert commitments_in("No deal at that price, and I can't accept 12k.") == []
    assert commitments_in("It's a deal.")
