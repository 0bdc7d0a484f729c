"""Negotiation within a mandate: what the user allowed, and the code that holds every message to it.

Pure decisions, no IO: `mandate` (the user's limits), `amounts` (reading every amount in a
message), `leaks` (the reservation price and private items in any form), `commitments`
(acceptances, threats to cancel, signatures, payments), `state` (offers and rounds per
counterpart) and `review.review_offer` (allow / ask / deny one outgoing message).
"""

from deputy.sentinel.negotiation.amounts import Amount, Reading, read_amounts
from deputy.sentinel.negotiation.commitments import Commitment, commitments_in
from deputy.sentinel.negotiation.leaks import private_leaks, reservation_leaks
from deputy.sentinel.negotiation.mandate import Mandate, MandateStatus, Role
from deputy.sentinel.negotiation.review import OfferReview, OfferVerdict, review_offer
from deputy.sentinel.negotiation.state import NegotiationState, Thread, open_questions, record_ours, record_theirs

__all__ = [
    "Amount", "Commitment", "Mandate", "MandateStatus", "NegotiationState", "OfferReview", "OfferVerdict", "Reading",
    "Role", "Thread", "commitments_in", "open_questions", "private_leaks", "read_amounts", "record_ours",
    "record_theirs", "reservation_leaks", "review_offer",
]
