"""The sandbox shop's web pages: browse, fill a cart (kept in a cookie), pay with a token, see the order.

Paying by card has its own pages (`deputy.sandbox.shop_card_checkout`); the API is in `deputy.sandbox.shop`.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from deputy.sandbox.shop_model import CART_COOKIE, CURRENCY, MAX_PER_ITEM, Cart, CheckoutRequest, ItemRequest
from deputy.sandbox.webapp_common import SiteError, esc, money, page, validated
from deputy.sandbox.webapp_common import field as input_field


def shop_page_routes(shop: Any) -> list[web.RouteDef]:
    """The shop's pages for people: products, the cart (checkout with a token), orders."""
    def visitor_cart(request: web.Request) -> Cart | None:
        cart = shop.carts.get(request.cookies.get(CART_COOKIE, ""))
        return cart if cart is not None and cart.status == "open" else None

    async def home(request: web.Request) -> web.Response:
        q = request.query.get("q", "")
        rows = "".join(f"<li><a href='/products/{esc(p['id'])}'>{esc(p['name'])}</a>: {esc(p['price'])} {CURRENCY}"
                       f"{'' if p['stock'] else ' (sold out)'}</li>" for p in shop.search(q, "", None, False))
        form = ("<form method='get' action='/'>" + input_field("Search", "q", q)
                + "<button type='submit'>Search</button></form><p><a href='/cart'>Your cart</a> · "
                + "<a href='/account'>Your account</a> · <a href='/deals'>Today's deals</a></p>")
        return page("Products", form + f"<ul>{rows or '<li>Nothing matches.</li>'}</ul>", site=shop.site)

    async def product_page(request: web.Request) -> web.Response:
        p = shop.product(request.match_info["product_id"])
        buy = (f"<form method='post' action='/cart/add'><input type='hidden' name='product_id' value='{esc(p.id)}'>"
               + input_field("Quantity", "quantity", 1, "number", min=1, max=max(1, min(p.stock, MAX_PER_ITEM)))
               + "<button type='submit'>Add to cart</button></form>") if p.stock else "<p>Sold out.</p>"
        body = (f"<p>{esc(p.description)}</p><p>Price: {money(p.price)} {CURRENCY} · {p.stock} in stock · "
                f"{esc(p.category)}</p>{buy}")
        return page(p.name, body, site=shop.site)

    async def add_form(request: web.Request) -> web.Response:
        form = {k: v for k, v in (await request.post()).items() if isinstance(v, str) and v.strip()}
        cart = visitor_cart(request) or shop.new_cart()
        shop.add(cart, validated(ItemRequest, form))
        response = web.HTTPSeeOther("/cart")
        response.set_cookie(CART_COOKIE, cart.id, httponly=True, samesite="Lax")
        raise response

    async def cart_page(request: web.Request) -> web.Response:
        cart = visitor_cart(request)
        if cart is None or not cart.items:
            return page("Your cart", "<p>Your cart is empty. <a href='/'>Browse products</a></p>", site=shop.site)
        view = shop.view(cart)
        rows = "".join(
            f"<li>{esc(line['quantity'])} × {esc(line['name'])}: {esc(line['line_total'])} {CURRENCY} "
            f"<form method='post' action='/cart/remove'><input type='hidden' name='product_id' "
            f"value='{esc(line['product_id'])}'><button type='submit'>Remove</button></form></li>"
            for line in view["items"])
        checkout = (
            "<form method='post' action='/cart/checkout'>"
            f"<input type='hidden' name='amount' value='{view['total']}'>"
            f"<input type='hidden' name='currency' value='{CURRENCY}'>"
            + input_field("Name", "name", "", required="required")
            + input_field("Shipping address", "shipping_address", "", required="required")
            + input_field("Payment token", "payment_token", "", required="required", placeholder="ptok_...")
            + f"<button type='submit'>Pay {view['total']} {CURRENCY}</button></form>"
            + "<p>Or <a href='/checkout/card'>pay by card</a>.</p>")
        return page("Your cart", f"<ul>{rows}</ul><p>Total: {view['total']} {CURRENCY}</p>{checkout}", site=shop.site)

    async def remove_form(request: web.Request) -> web.Response:
        cart = visitor_cart(request)
        if cart is not None:
            shop.remove(cart, str((await request.post()).get("product_id", "")))
        raise web.HTTPSeeOther("/cart")

    async def checkout_form(request: web.Request) -> web.Response:
        cart = visitor_cart(request)
        if cart is None:
            raise SiteError(409, "Your cart is empty.")
        form = {k: v for k, v in (await request.post()).items() if isinstance(v, str) and v.strip()}
        placed = shop.checkout(cart, validated(CheckoutRequest, form))
        raise web.HTTPSeeOther(f"/orders/{placed.id}")

    async def order_page(request: web.Request) -> web.Response:
        o = shop.order(request.match_info["order_id"]).public()
        items = "".join(f"<li>{esc(i['quantity'])} × {esc(i['name'])}</li>" for i in o["items"])
        body = (f"<p>Thank you, {esc(o['name'])}. Paid {esc(o['total'])} {CURRENCY} with token "
                f"{esc(o['payment_token'])}; shipping to {esc(o['shipping_address'])}.</p><ul>{items}</ul>")
        return page(f"Order {o['order_id']}", body, site=shop.site)

    return [
        web.get("/", home), web.get("/products/{product_id}", product_page), web.post("/cart/add", add_form),
        web.get("/cart", cart_page), web.post("/cart/remove", remove_form), web.post("/cart/checkout", checkout_form),
        web.get("/orders/{order_id}", order_page),
    ]
