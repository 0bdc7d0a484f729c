"""The user's own exchange rates (/settings rate) are the ones an offer in another currency is read at."""

from __future__ import annotations

from decimal import Decimal

from deputy.sentinel.negotiation.incoming import parse_offer
from deputy.sentinel.negotiation.money import Rates
from tests.sentinel_negotiation.test_review_offer import car


def test_a_currency_the_user_gave_a_rate_for_is_read_at_that_rate_and_the_card_says_whose_rate() -> None:
    theirs = "I can pay CHF 13,000 for it."
    unknown = parse_offer(theirs, car())
    assert unknown is not None and not unknown.certain, "no rate for francs: it goes to the user"
    read = parse_offer(theirs, car(), Rates.for_user({"CHF": Decimal("1.13")}))
    assert read is not None and read.certain and read.total_in_mandate == Decimal("14690.00")
    assert read.rate_note == "1 CHF = $1.1300 USD (rate from your /settings)"
    euros = parse_offer("€13,000 and it's yours", car(), Rates.for_user({"EUR": Decimal("1.10")}))
    assert euros is not None and euros.total_in_mandate == Decimal("14300.00")
    default = parse_offer("€13,000 and it's yours", car())
    assert default is not None and default.total_in_mandate == Decimal("14040.00")
    assert "Deputy's default rates; set your own with /settings rate" in (default.rate_note or "")
