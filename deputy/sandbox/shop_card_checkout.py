"""Paying a sandbox shop's cart with a card in a web form, as people do on most shops.

`/checkout/card` asks for the buyer's name and address and the card's number, expiry and
CVC (with the usual `cc-*` autocomplete names); the shop's acquirer presents the card to
the issuer. When the issuer wants the cardholder to confirm (3-D Secure style), the
browser lands on `/checkout/verify/<challenge>`, which asks for the one-time code the bank
sent to the cardholder's phone; the order is placed only once the issuer confirms.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from aiohttp import web

from deputy.sandbox.acquirer import ChallengeNeeded
from deputy.sandbox.webapp_common import SiteError, esc, page
from deputy.sandbox.webapp_common import field as input_field

CART_COOKIE = "cart"


def card_checkout_routes(shop: Any) -> list[web.RouteDef]:
    pending: dict[str, tuple[str, str, str, str]] = {}
    """challenge -> (cart id, name, address, card shown as) while the cardholder confirms."""

    def account() -> Any:
        charge = getattr(shop.check_payment, "charge", None)
        if charge is None:
            raise SiteError(503, "This shop takes cards only through its payment network, which is not set up.")
        return shop.check_payment

    def cart_of(request: web.Request) -> Any:
        cart = shop.carts.get(request.cookies.get(CART_COOKIE, ""))
        if cart is None or cart.status != "open" or not cart.items:
            raise SiteError(409, "Your cart is empty.")
        return cart

    async def form(request: web.Request) -> web.Response:
        view = shop.view(cart_of(request))
        body = (
            f"<p>Total: {esc(view['total'])} {esc(view['currency'])} (shipping {esc(view['shipping'])}), "
            f"delivered by {esc(view['delivery_by'])}.</p>"
            "<form id='pay' method='post' action='/checkout/card'>"
            f"<input type='hidden' name='amount' value='{esc(view['total'])}'>"
            + input_field("Full name", "name", "", required="required", autocomplete="name")
            + input_field("Shipping address", "shipping_address", "", required="required",
                          autocomplete="street-address")
            + input_field("Card number", "cardnumber", "", required="required", autocomplete="cc-number",
                          inputmode="numeric")
            + input_field("Expiry (MM/YY)", "exp-date", "", required="required", autocomplete="cc-exp")
            + input_field("Security code (CVC)", "cvc", "", required="required", autocomplete="cc-csc")
            + f"<button type='submit'>Pay {esc(view['total'])} {esc(view['currency'])}</button></form>")
        return page("Pay by card", body, site=shop.site)

    async def pay(request: web.Request) -> web.Response:
        cart = cart_of(request)
        posted = {k: v.strip() for k, v in (await request.post()).items() if isinstance(v, str)}
        if not all(posted.get(k) for k in ("name", "shipping_address", "cardnumber", "exp-date", "cvc", "amount")):
            raise SiteError(422, "Please fill in every field.")
        try:
            amount = Decimal(posted["amount"])
        except ArithmeticError:
            raise SiteError(422, "The amount is not a number.") from None
        total = shop.due(cart, amount, "USD")
        shown = "card ····" + "".join(c for c in posted["cardnumber"] if c.isdigit())[-4:]
        try:
            reference = account().charge(total, "USD", number=posted["cardnumber"], cvc=posted["cvc"],
                                         expiry=posted["exp-date"])
        except ChallengeNeeded as needed:
            pending[needed.challenge] = (cart.id, posted["name"], posted["shipping_address"], shown)
            raise web.HTTPSeeOther(f"/checkout/verify/{needed.challenge}") from None
        order = shop.place(cart, shown, posted["name"], posted["shipping_address"], reference)
        raise web.HTTPSeeOther(f"/orders/{order.id}")

    def verify_page(challenge: str, problem: str = "") -> web.Response:
        if challenge not in pending:
            raise SiteError(404, "This confirmation is over. Start the checkout again.")
        error = f"<p class='error'>{esc(problem)}</p>" if problem else ""
        body = (error + "<p>Your bank wants to make sure it's you. Enter the one-time code your bank sent "
                "to your phone to confirm this payment.</p>"
                f"<form method='post' action='/checkout/verify/{esc(challenge)}'>"
                + input_field("One-time code", "otp", "", required="required", autocomplete="one-time-code")
                + "<button type='submit'>Confirm payment</button></form>")
        return page("Confirm your payment", body, status=400 if problem else 200, site=shop.site)

    async def verify(request: web.Request) -> web.Response:
        return verify_page(request.match_info["challenge"])

    async def confirm(request: web.Request) -> web.Response:
        challenge = request.match_info["challenge"]
        if challenge not in pending:
            raise SiteError(404, "This confirmation is over. Start the checkout again.")
        code = str((await request.post()).get("otp", ""))
        try:
            reference = account().confirm(challenge, code)
        except SiteError as refused:
            if "not right" in refused.message:
                return verify_page(challenge, "That code was not right. Please try again.")
            del pending[challenge]
            raise
        cart_id, name, address, shown = pending.pop(challenge)
        order = shop.place(shop.cart(cart_id), shown, name, address, reference)
        raise web.HTTPSeeOther(f"/orders/{order.id}")

    return [web.get("/checkout/card", form), web.post("/checkout/card", pay),
            web.get("/checkout/verify/{challenge}", verify), web.post("/checkout/verify/{challenge}", confirm)]
