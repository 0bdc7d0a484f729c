"""Negotiation moves as the agent sees them: typed tools instead of free-text messages.

`offer`, `counter`, `accept`, `decline`, `ask` and `tell` each take the counterpart's address
(`to`: `market:<conversation>`, `provider:retention`, an email address, or `<service>:<recipient>` for a
service the user connected and whose message operation they marked) and typed fields. Deputy's
code writes the message from the move and sends it over the counterpart's channel; the guard
checks the move (where an offer lands, which of their parsed offers is accepted, which of the
user's facts is told), never the model's prose. The optional `note` is short free text that goes
with the move only if it carries no amount, agreement, payment or private detail.
"""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, Field

from deputy.connectors.catalog import Operation
from deputy.core.records.effects import EffectClass, OperationSpec

_TO = ("The counterpart's address: market:<conversation>, provider:retention, an email address, or "
       "<service>:<recipient> for a connected service whose message operation the user marked.")
_NOTE = "Optional short words sent with the move: no amounts, no agreement, no payment details."


class OfferArgs(BaseModel):
    to: str = Field(max_length=200, description=_TO)
    amount: Decimal = Field(gt=0, max_digits=14, decimal_places=2)
    currency: str | None = Field(default=None, max_length=3, description="ISO code; the mandate's if left out.")
    period: str | None = Field(default=None, pattern=r"^(?:day|week|month|year)$")
    terms: list[str] = Field(default_factory=list, max_length=5, description="Ids of the user's facts to state.")
    note: str | None = Field(default=None, max_length=500, description=_NOTE)


class AcceptArgs(BaseModel):
    to: str = Field(max_length=200, description=_TO)
    their_offer_id: str = Field(max_length=20, description="The id Deputy gave their offer (T1, T2, …).")
    note: str | None = Field(default=None, max_length=500, description=_NOTE)


class DeclineArgs(BaseModel):
    to: str = Field(max_length=200, description=_TO)
    note: str | None = Field(default=None, max_length=500, description=_NOTE)


class AskArgs(BaseModel):
    to: str = Field(max_length=200, description=_TO)
    question: str = Field(min_length=1, max_length=500, description="A question to them; no amounts in it.")


class TellArgs(BaseModel):
    to: str = Field(max_length=200, description=_TO)
    fact_id: str = Field(max_length=80, description="The topic of one of the facts the user gave.")
    note: str | None = Field(default=None, max_length=500, description=_NOTE)


def _op(name: str, arguments: type[BaseModel], description: str) -> Operation:
    return Operation(OperationSpec(connector="negotiation", operation=name, effect=EffectClass.communicate,
                                   description=description), arguments, targets=lambda a: [a.to])


MOVE_OPERATIONS = [
    _op("offer", OfferArgs, "Make an offer to a counterpart in a negotiation (Deputy writes the message)."),
    _op("counter", OfferArgs, "Answer their offer with a counter-offer (Deputy writes the message)."),
    _op("accept", AcceptArgs, "Accept one of their offers by its id; the user always confirms first."),
    _op("decline", DeclineArgs, "Decline their offer politely, with no new amount."),
    _op("ask", AskArgs, "Ask the counterpart a question (no amounts in it)."),
    _op("tell", TellArgs, "Tell the counterpart one of the facts the user gave, by its topic."),
]
