"""How the mandate's verdict and the guard's usual review combine for one outgoing message.

Pure. The usual policy still runs on every action; for a goal with a mandate, a message is
also held to the mandate. A denial from either wins. The mandate's "ask" (an acceptance, an
unreadable amount, a question for the user, a commitment) always reaches the user, even if
the policy would have let the message go. A message the mandate allows, to a counterpart the
mandate names, needs no card merely because the counterpart's own messages are outside
content (that is what a negotiation is): the user's confirmed mandate is the authority for
whom to talk to and what may be said, and code checked every amount. The usual card stays
when the message carries something else from outside content (a passage copied from
elsewhere, an address, a phone number, an account) or the user's own rules ask.
"""

from __future__ import annotations

from deputy.sentinel.negotiation.review import OfferReview, OfferVerdict
from deputy.sentinel.policy import Decision, Risk, Verdict


def combine(decision: Decision, offer: OfferReview, *, to_counterpart: bool, approved: bool,
            rules_ask: bool, carried: list[tuple[str, str]]) -> Decision:
    """The verdict on a message of a negotiating goal. `carried`: (kind, value) of the addresses, phone
    numbers and accounts written in the message."""
    if decision.verdict is Verdict.deny:
        return decision
    if offer.verdict is OfferVerdict.deny:
        return Decision(verdict=Verdict.deny, reasons=["Outside your negotiation mandate: " + " ".join(offer.reasons)],
                        risk=Risk.high)
    if approved and decision.verdict is Verdict.allow:
        return decision  # the user tapped Approve on exactly this message
    if offer.verdict is OfferVerdict.ask:
        reasons = [*offer.reasons, *[r for r in decision.reasons if decision.verdict is Verdict.ask]]
        return Decision(verdict=Verdict.ask, reasons=reasons[:6], risk=Risk.high if offer.accepts else Risk.medium,
                        untrusted_values=decision.untrusted_values, copied=decision.copied)
    if decision.verdict is Verdict.allow:
        return decision.model_copy(update={"reasons": [*decision.reasons, *offer.reasons]})
    outside = [v for v in decision.untrusted_values if v.argument != "target"]
    if to_counterpart and not rules_ask and not decision.copied and not outside and not carried:
        return Decision(verdict=Verdict.allow, reasons=offer.reasons, risk=Risk.low)
    return decision
