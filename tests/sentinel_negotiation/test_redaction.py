"""The reservation price and private items never reach a reason, the audit trail or a log, in any form."""

from __future__ import annotations

from decimal import Decimal

import pytest

from deputy.sentinel.negotiation import OfferVerdict, review_offer
from deputy.sentinel.negotiation.leaks import redact, reservation_leaks
from tests.sentinel_negotiation.test_review_offer import CAR, car, disclosed


@pytest.mark.parametrize("text", ["My floor is $14,000.", "fourteen thousand, not less", "1 4 0 0 0 is my bottom",
                                  "14k and no lower", "l4OOO", "14.000,00 € minimum"])
def test_a_refused_leak_is_refused_and_its_reasons_do_not_quote_it(text: str) -> None:
    review = review_offer(text, car(), disclosed(CAR, Decimal(16000)), CAR, 2)
    assert review.verdict is OfferVerdict.deny
    for reason in review.reasons:
        assert not reservation_leaks(reason, Decimal(14000)), reason


def test_redact_replaces_every_form_and_keeps_the_rest() -> None:
    redacted = redact("Deal at 15,500 but my floor is 14k", Decimal(14000), [])
    assert redacted == "Deal at 15,500 but my floor is [your limit]"
    assert redact("I'm Moving-to  BERLIN soon", Decimal(14000), ["moving to Berlin"]) == "I'm [private] soon"
