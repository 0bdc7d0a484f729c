"""Questions only the user can answer, however they are phrased, and facts nobody gave the agent."""

from __future__ import annotations

from decimal import Decimal

import pytest

from deputy.sentinel.negotiation import OfferVerdict, record_theirs, review_offer
from deputy.sentinel.negotiation.questions import open_questions, unsupported_claims
from tests.sentinel_negotiation.test_review_offer import CAR, bill, car, disclosed


@pytest.mark.parametrize("said", [
    "Is the price including the winter tires?",       # a price word, and still a fact only the user knows
    "Tell me whether it ever failed inspection.",      # a request, no question mark
    "I need to know if the title is clean",
    "Who was the previous owner",
    "How many keys come with it? I'd do $15,000.",
    "Can we meet tomorrow at noon?",
    "Does it come with the service records?",
])
def test_a_question_for_a_fact_goes_to_the_user(said: str) -> None:
    assert open_questions(said, car()), said


@pytest.mark.parametrize("said", [
    "What's your best price?", "Is it still available?", "Would you take 14k?", "Are you a bot?",
    "What's the mileage?",  # the mandate's facts answer it
    "Yes, $15,000 works for me. Shall we close?",
])
def test_questions_the_deal_or_the_mandate_answers_are_not_asked(said: str) -> None:
    assert open_questions(said, car()) == [], said


def test_an_apis_json_around_their_message_is_not_part_of_a_question() -> None:
    body = '{"conversation_id": "c1", "with": "Alex", "messages": ["Is it still available?", "How many keys?"]}'
    assert open_questions(body, car()) == ["How many keys?"]


def test_the_users_own_words_answer_a_question() -> None:
    said = "Do you still need the landline bundle on your contract?"
    assert open_questions(said, bill())
    assert open_questions(said, bill(), ["I don't need the landline bundle, drop it"]) == []


def test_a_reply_after_an_unanswered_question_waits_for_the_user() -> None:
    mandate = car()
    state = record_theirs(disclosed(CAR, Decimal(16000)), CAR, "How many keys come with it? $15,000.", mandate, 1)
    review = review_offer("I can do $15,600.", mandate, state, CAR, 2, hold_free_text=False)
    assert review.verdict is OfferVerdict.ask and review.questions == ["How many keys come with it?"]


@pytest.mark.parametrize("claim", ["It has two keys and new tires.", "The timing belt was replaced last year.",
                                   "It has never been in an accident."])
def test_a_fact_nobody_gave_the_agent_waits_for_the_user(claim: str) -> None:
    review = review_offer(f"{claim} I can do $15,600.", car(), disclosed(CAR, Decimal(16000)), CAR, 2)
    assert review.verdict is OfferVerdict.ask and any("states something" in r for r in review.reasons)


def test_facts_from_the_mandate_or_the_users_words_go_out() -> None:
    assert unsupported_claims("The mileage is 62,000 miles. Thanks for your interest!", car()) == []
    assert unsupported_claims("It has two keys.", car(), ["the civic has two keys"]) == []
    ours = "Thanks, we're getting closer, but I can't do that. I can do $15,600."
    assert review_offer(ours, car(), disclosed(CAR, Decimal(16000)), CAR, 2, hold_free_text=False).verdict \
        is OfferVerdict.allow
