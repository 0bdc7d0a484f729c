"""Paying on a shop's own web checkout form with a single-use card the agent never sees.

The agent asks for `pay_on_page` with the page, where the form sends, the amount and
currency it saw, and the form's fields, writing `<card:number>`, `<card:expiry>`,
`<card:cvc>` (and optionally `<card:name>`) for the payment fields. It is a spend: the
user approves the amount and the shop on a card. Only then does the executor mint a
single-use virtual card bound to that amount and the shop's origin, and hand it to this
runner for one run (`offer_card`). The runner fills the payment fields only on that
origin (the page, and where its form sends), registers the numbers with the page guard
so no request may carry them to another host, and scrubs them from what comes back. A
bank's confirmation page (3-D Secure) that follows is handed to the user like any page
asking for a one-time code.
"""

from __future__ import annotations

from contextvars import ContextVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, SecretStr

from deputy.connectors.web.fields import fill_form_fields
from deputy.connectors.web.forms import choose_form, find_field, host_of, is_payment
from deputy.connectors.web.logins import WebLogins
from deputy.connectors.web.navigation import at, same_page
from deputy.connectors.web.operations import PayArgs
from deputy.connectors.web.pages import PageRead, _before_acting, _choose_button, submit_and_read
from deputy.connectors.web.session import UserSession
from deputy.core.records.effects import ConnectorRejected
from deputy.sentinel.egress.policy import SecretValue

CARD_PLACEHOLDERS = {"<card:number>": "number", "<card:expiry>": "expiry", "<card:cvc>": "cvc", "<card:name>": "name"}


class CheckoutCard(BaseModel):
    """A single-use card for one approved payment at one merchant origin."""

    model_config = ConfigDict(frozen=True)

    number: SecretStr
    cvc: SecretStr
    expiry: str
    name: str = ""
    merchant: str
    """The origin it may be used on, `scheme://host[:port]`."""
    action_id: str


_OFFERED: ContextVar[CheckoutCard | None] = ContextVar("checkout_card", default=None)


def offer_card(card: CheckoutCard | None) -> None:
    """The executor hands the card for the action it is about to run (None withdraws it)."""
    _OFFERED.set(card)


def take_card(action_id: str) -> CheckoutCard | None:
    """The card offered for this action, once; any other card is withdrawn."""
    card = _OFFERED.get()
    _OFFERED.set(None)
    return card if card is not None and card.action_id == action_id else None


def origin_of(url: str) -> str:
    parts = urlsplit(url.strip())
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme.lower()}://{(parts.hostname or '').lower()}{port}"


def wants_card(arguments: object) -> bool:
    fields = arguments.get("fields") if isinstance(arguments, dict) else None
    return isinstance(fields, dict) and any(v in CARD_PLACEHOLDERS for v in fields.values())


def _resolved(form_fields: dict[str, str], form, card: CheckoutCard) -> dict[str, str]:  # type: ignore[no-untyped-def]
    values = {}
    for key, value in form_fields.items():
        field = find_field(form, key)
        if value in CARD_PLACEHOLDERS:
            if not is_payment(field) and value != "<card:name>":
                raise ConnectorRejected(f"{value} only goes into a card field; {key!r} is not one.")
            part = CARD_PLACEHOLDERS[value]
            secret = {"number": card.number, "cvc": card.cvc}.get(part)
            values[key] = secret.get_secret_value() if secret else (card.expiry if part == "expiry" else card.name)
        elif is_payment(field):
            raise ConnectorRejected(f"The card field {key!r} takes only {', '.join(CARD_PLACEHOLDERS)}.")
        else:
            values[key] = value
    return values


async def pay(session: UserSession, args: PayArgs, card: CheckoutCard, logins: WebLogins) -> PageRead:
    """Fill and send the checkout form with `card`, on the card's merchant origin only."""
    if origin_of(args.url) != card.merchant or origin_of(args.action_url) != card.merchant:
        raise ConnectorRejected(f"The approved payment is for {card.merchant}; I won't enter the card anywhere else.")
    page = await at(session, args.url)
    snapshot = await _before_acting(page)
    if origin_of(snapshot.url) != card.merchant:
        raise ConnectorRejected(f"The page is now on {origin_of(snapshot.url)}, not {card.merchant}; nothing was paid.")
    form = choose_form(snapshot.forms, args.form, list(args.fields), submittable=True)
    chosen = _choose_button(form, args.button)
    destination = chosen.formaction if chosen is not None and chosen.formaction else (form.action or snapshot.url)
    if not same_page(destination, args.action_url) or origin_of(destination) != card.merchant:
        raise ConnectorRejected(f"That form sends to {destination}, not to {args.action_url}; nothing was paid.")
    host = host_of(card.merchant) or ""
    for label, secret in (("the single-use card number", card.number), ("the single-use card's code", card.cvc)):
        session.guard.protect_secret(SecretValue(label=label, value=secret, domains=[host]))
    await fill_form_fields(page, form, _resolved(dict(args.fields), form, card), None, session.guard)
    return await submit_and_read(session, page, form, chosen, destination, logins,
                                 [card.number.get_secret_value(), card.cvc.get_secret_value()])
