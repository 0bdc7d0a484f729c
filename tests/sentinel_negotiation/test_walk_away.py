"""Walk-away conditions: read from the user's words, and met by the counterpart or the state, they stop the
offers and ask the user on a card that names the condition."""

from __future__ import annotations

from decimal import Decimal

import pytest

from deputy.sentinel.negotiation import NegotiationState, OfferVerdict, record_ours, record_theirs, review_offer
from deputy.sentinel.negotiation.parse import parse_mandate
from deputy.sentinel.negotiation.walkaway import conditions_met, Trigger, read_conditions
from tests.sentinel_negotiation.test_review_offer import CAR, car, disclosed

WORDS = ("sell my 2017 Civic on the marketplace, listed at $16,500, target $15,500, at least $14,000, steps of $500, "
         "walk away if they want a deposit or won't meet in person, "
         "walk away if no offer above $14,500 after 3 rounds; "
         "walk away if they ask for my bank details, walk away if they want it shipped")


def test_the_users_words_become_conditions_code_can_check() -> None:
    mandate = parse_mandate(WORDS, 0).mandate
    assert mandate is not None
    triggers = [c.trigger for c in mandate.conditions]
    assert triggers == [Trigger.deposit, Trigger.no_meeting, Trigger.no_offer, Trigger.bank_details, Trigger.shipping]
    no_offer = mandate.conditions[2]
    assert no_offer.amount == Decimal(14500) and no_offer.rounds == 3
    assert "walks away if" in mandate.summary()


def test_a_condition_in_no_known_form_is_kept_and_matched_by_meaning_not_ignored() -> None:
    parsed = parse_mandate("sell my bike on the marketplace, at least $200, walk away if they pay by cashiers check", 0)
    assert parsed.mandate is not None
    condition = parsed.mandate.conditions[0]
    assert condition.trigger is Trigger.meaning
    met = conditions_met([condition], ["I'll bring a cashier's cheque on Saturday."], 1, [], True)
    assert met and "cashier" in met[0]
    assert read_conditions(["they mention a cashier's check"])[0][0].phrase == "cashier's check"


def _heard(said: str, mandate=None, state: NegotiationState | None = None) -> NegotiationState:
    return record_theirs(state or disclosed(CAR, Decimal(16000)), CAR, said, mandate or _car(), 2)


def _car(*walk_away: str):
    return car(walk_away=list(walk_away) or ["they want a deposit", "they won't meet in person",
                                             "they ask for my bank details", "no offer above $14,500 after 3 rounds"])


@pytest.mark.parametrize("said,condition", [
    ("I'd need you to hold it for me, I can send a $500 deposit first. $15,000?", "deposit"),
    ("I can't meet, I'm abroad. Could you ship it? $15,000.", "meet in person"),
    ("Great. What are your bank details so I can send $15,000?", "bank details"),
    ("Please send me your IBAN and I pay $15,000.", "bank details"),
])
def test_a_condition_met_by_their_message_stops_the_offers_and_names_the_condition(said: str, condition: str) -> None:
    mandate = _car()
    state = _heard(said, mandate)
    review = review_offer("I can do $15,600.", mandate, state, CAR, 3, hold_free_text=False)
    assert review.verdict is OfferVerdict.ask
    assert any("walk-away condition is met" in r and condition in r for r in review.reasons), review.reasons
    # The same message, to a counterpart who met no condition, goes out.
    calm = _heard("I could do $15,000.", mandate)
    assert review_offer("I can do $15,600.", mandate, calm, CAR, 3, hold_free_text=False).verdict is OfferVerdict.allow


def test_no_offer_above_the_users_figure_after_the_rounds_stops_the_offers() -> None:
    mandate = _car("no offer above $14,500 after 3 rounds")
    state = disclosed(CAR)
    for ours, theirs in ((Decimal(16200), "I'd do $12,000."), (Decimal(15900), "$13,000."),
                         (Decimal(15600), "$14,000, final.")):
        assert review_offer(f"I can do ${ours:,}.", mandate, state, CAR, 3, hold_free_text=False).verdict is OfferVerdict.allow
        state = record_theirs(record_ours(state, CAR, ours, f"I can do ${ours:,}.", 3), CAR, theirs, mandate, 4)
    review = review_offer("I can do $15,300.", mandate, state, CAR, 5, hold_free_text=False)
    assert review.verdict is OfferVerdict.ask and "no offer above" in review.reasons[0]
    # The figure in the condition may be the limit itself: the reasons never say it.
    at_limit = _car("no offer above $14,000 after 3 rounds")
    reasons = " ".join(review_offer("I can do $15,300.", at_limit, state, CAR, 5, hold_free_text=False).reasons)
    assert "no offer above [your limit]" in reasons and "14,000" not in reasons


def test_a_better_offer_within_the_rounds_meets_no_condition() -> None:
    mandate = _car("no offer above $14,500 after 1 rounds")
    state = record_theirs(record_ours(disclosed(CAR), CAR, Decimal(16200), "I can do $16,200.", 1), CAR,
                          "I'd do $15,000.", mandate, 2)
    assert review_offer("I can do $15,800.", mandate, state, CAR, 3, hold_free_text=False).verdict is OfferVerdict.allow
