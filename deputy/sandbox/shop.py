"""The sandbox shop: products with prices and stock, carts, and checkout with a payment token.

Checkout never takes a card number: it takes the id of a single-use payment token
(`ptok_...`, issued by Deputy's vault after the user approved the purchase) together with
the amount and currency the buyer agreed to, which must equal the cart's total. The shop
records the token and amount and answers with an order id; `check_payment` (injected)
may redeem the token for real.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from typing import Any, Callable

from aiohttp import web
from pydantic import BaseModel

from deputy.sandbox.account_pages import add_account_pages
from deputy.sandbox.shop_model import (
    CURRENCY,
    MAX_PER_ITEM,
    SITE,
    Cart,
    CheckoutRequest,
    ItemRequest,
    Order,
    Product,
)
from deputy.sandbox.recipe_pages import recipe_products, recipe_routes
from deputy.sandbox.shop_pages import shop_page_routes
from deputy.sandbox.shop_card_checkout import card_checkout_routes
from deputy.sandbox.shop_orders import ReturnRequest, order_paths, order_routes
from deputy.sandbox.webapp_common import (
    IDEMPOTENCY_PARAM,
    Clock,
    IdempotencyCache,
    PaymentCheck,
    SiteError,
    accept_any_token,
    array_of,
    check_payment_token,
    json_response,
    local_now,
    model_schema,
    money,
    obj,
    openapi_document,
    operation,
    parse_price,
    path_param,
    query,
    read_json,
    serve_app,
    site_app,
)

@dataclass
class Shop:
    """The shop's state and rules."""

    clock: Clock
    check_payment: PaymentCheck = accept_any_token
    products: dict[str, Product] = field(default_factory=dict)
    carts: dict[str, Cart] = field(default_factory=dict)
    orders: dict[str, Order] = field(default_factory=dict)
    idempotency: IdempotencyCache = field(default_factory=IdempotencyCache)
    site: str = SITE
    shipping_fee: Decimal = Decimal(0)
    """Added once to every non-empty cart."""
    delivery_days: int = 5

    def product(self, product_id: str) -> Product:
        if product_id not in self.products:
            raise SiteError(404, f"There is no product {product_id!r}.")
        return self.products[product_id]

    def cart(self, cart_id: str) -> Cart:
        if cart_id not in self.carts:
            raise SiteError(404, f"There is no cart {cart_id!r}.")
        return self.carts[cart_id]

    def order(self, order_id: str) -> Order:
        if order_id not in self.orders:
            raise SiteError(404, f"There is no order {order_id!r}.")
        return self.orders[order_id]

    def search(self, text: str, category: str, top: Decimal | None, in_stock: bool) -> list[dict[str, Any]]:
        terms = {"seller": self.site, "shipping": money(self.shipping_fee), "delivery_by": self.delivery_by()}
        return [
            {**p.public(), **terms} for p in self.products.values()
            if (not text or all(w in f"{p.name} {p.description}".lower() for w in text.lower().split()))
            and (not category or p.category.lower() == category.lower())
            and (top is None or p.price <= top) and (not in_stock or p.stock > 0)
        ]

    def new_cart(self) -> Cart:
        cart = Cart("C-" + secrets.token_hex(4).upper())
        self.carts[cart.id] = cart
        return cart

    def view(self, cart: Cart) -> dict[str, Any]:
        lines = [self._line(pid, qty) for pid, qty in cart.items.items()]
        subtotal = sum((self.products[pid].price * qty for pid, qty in cart.items.items()), Decimal(0))
        shipping = self.shipping_fee if cart.items else Decimal(0)
        return {"cart_id": cart.id, "status": cart.status, "items": lines, "shipping": money(shipping),
                "delivery_by": self.delivery_by(), "total": money(subtotal + shipping), "currency": CURRENCY}

    def delivery_by(self) -> str:
        return (self.clock() + timedelta(days=self.delivery_days)).date().isoformat()

    def _line(self, product_id: str, quantity: int) -> dict[str, Any]:
        p = self.products[product_id]
        return {"product_id": p.id, "name": p.name, "quantity": quantity, "unit_price": money(p.price),
                "line_total": money(p.price * quantity)}

    def add(self, cart: Cart, request: ItemRequest) -> Cart:
        self._open(cart)
        product = self.product(request.product_id)
        wanted = cart.items.get(product.id, 0) + request.quantity
        if wanted > min(product.stock, MAX_PER_ITEM):
            raise SiteError(409, f"Only {min(product.stock, MAX_PER_ITEM)} of {product.name} can be ordered.")
        cart.items[product.id] = wanted
        return cart

    def remove(self, cart: Cart, product_id: str) -> Cart:
        self._open(cart)
        if cart.items.pop(product_id, None) is None:
            raise SiteError(404, f"The cart has no {product_id!r}.")
        return cart

    def checkout(self, cart: Cart, request: CheckoutRequest) -> Order:
        check_payment_token(request.payment_token)
        total = self.due(cart, request.amount, request.currency)
        reference = self.check_payment(request.payment_token, total, CURRENCY)
        return self.place(cart, request.payment_token, request.name, request.shipping_address,
                          reference if isinstance(reference, str) else None)

    def due(self, cart: Cart, amount: Decimal, currency: str) -> Decimal:
        """The cart's total, when it can be bought now for `amount` `currency`; else a 409 saying why."""
        self._open(cart)
        if not cart.items:
            raise SiteError(409, "The cart is empty.")
        short = [self.products[p].name for p, q in cart.items.items() if q > self.products[p].stock]
        if short:
            raise SiteError(409, f"Not enough stock any more: {', '.join(short)}.")
        view = self.view(cart)
        if currency != CURRENCY or amount != Decimal(view["total"]):
            raise SiteError(409, f"The cart costs {view['total']} {CURRENCY}, not {money(amount)} {currency}.")
        return Decimal(view["total"])

    def place(self, cart: Cart, paid_with: str, name: str, address: str, reference: str | None) -> Order:
        """The order for a paid cart; `paid_with` is the token id, or how a card was shown ("card ····1234")."""
        view = self.view(cart)
        for product_id, quantity in cart.items.items():
            self.products[product_id].stock -= quantity
        cart.status = "checked_out"
        order = Order("O-" + secrets.token_hex(4).upper(), view["items"], Decimal(view["total"]), paid_with,
                      name, address, self.clock(), reference)
        self.orders[order.id] = order
        return order

    @staticmethod
    def _open(cart: Cart) -> None:
        if cart.status != "open":
            raise SiteError(409, f"The cart {cart.id} was already checked out.")


def seed_products(shop: Shop) -> None:
    """Cables, chargers, notebooks, pens, groceries for the recipe posts and a few more; one notebook pack
    is sold out."""
    for values in [
        ("usb-c-cable-2m", "USB-C to USB-C cable, 2 m (100 W)", "Electronics", "12.99", 40,
         "Braided cable, charges laptops up to 100 W, USB 2.0 data."),
        ("usb-c-cable-1m", "USB-C to USB-C cable, 1 m", "Electronics", "8.99", 3, "Short cable for phones, 60 W."),
        ("usb-c-charger-65w", "65 W USB-C charger", "Electronics", "34.00", 12, "GaN charger with two USB-C ports."),
        ("headphones-nc", "Noise-cancelling headphones", "Electronics", "199.00", 5, "Over-ear, 30 h battery."),
        ("notebook-a5-dotted", "A5 dotted notebook", "Stationery", "9.50", 60, "120 pages, 100 g/m² paper."),
        ("notebook-a4-lined-3", "A4 lined notebooks, pack of 3", "Stationery", "14.00", 0, "80 pages each."),
        ("gel-pens-10", "Gel pens, pack of 10", "Stationery", "6.75", 100, "0.5 mm, assorted colours."),
        ("desk-lamp-led", "LED desk lamp", "Home", "39.90", 7, "Dimmable, warm to cool white."),
        ("espresso-beans-1kg", "Espresso beans, 1 kg", "Grocery", "24.50", 20, "Medium roast, whole beans."),
        *recipe_products(),
    ]:
        product_id, name, category, price, stock, description = values
        shop.products[product_id] = Product(product_id, name, category, Decimal(price), stock, description)


SHOP = web.AppKey("shop", Shop)


async def _json(request: web.Request, model: type[BaseModel]) -> tuple[Any, str | None, Any]:
    payload = await read_json(request, model)
    return payload, request.headers.get("Idempotency-Key"), payload.model_dump(mode="json")


def _api_routes(shop: Shop) -> list[web.RouteDef]:
    async def products(request: web.Request) -> web.Response:
        q = request.query
        found = shop.search(q.get("q", ""), q.get("category", ""), parse_price(q.get("max_price"), "maximum price"),
                            q.get("in_stock", "false").lower() == "true")
        return json_response({"products": found})

    async def product(request: web.Request) -> web.Response:
        return json_response(shop.product(request.match_info["product_id"]).public())

    async def new_cart(request: web.Request) -> web.Response:
        return json_response(shop.view(shop.new_cart()), status=201)

    async def cart(request: web.Request) -> web.Response:
        return json_response(shop.view(shop.cart(request.match_info["cart_id"])))

    async def add(request: web.Request) -> web.Response:
        item = await read_json(request, ItemRequest)
        return json_response(shop.view(shop.add(shop.cart(request.match_info["cart_id"]), item)))

    async def remove(request: web.Request) -> web.Response:
        found = shop.cart(request.match_info["cart_id"])
        return json_response(shop.view(shop.remove(found, request.match_info["product_id"])))

    async def checkout(request: web.Request) -> web.Response:
        found = shop.cart(request.match_info["cart_id"])
        payload, key, fingerprint = await _json(request, CheckoutRequest)
        replayed = shop.idempotency.replay(key, {**fingerprint, "cart": found.id})
        if replayed is not None:
            return json_response(replayed)
        answer = shop.checkout(found, payload).public()
        shop.idempotency.remember(key, {**fingerprint, "cart": found.id}, answer)
        return json_response(answer, status=201)

    async def orders(request: web.Request) -> web.Response:
        return json_response({"orders": [o.public() for o in shop.orders.values()]})

    async def order(request: web.Request) -> web.Response:
        return json_response(shop.order(request.match_info["order_id"]).public())

    return [
        web.get("/api/products", products), web.get("/api/products/{product_id}", product),
        web.post("/api/carts", new_cart), web.get("/api/carts/{cart_id}", cart),
        web.post("/api/carts/{cart_id}/items", add), web.delete("/api/carts/{cart_id}/items/{product_id}", remove),
        web.post("/api/carts/{cart_id}/checkout", checkout), web.get("/api/orders", orders),
        web.get("/api/orders/{order_id}", order),
    ]


def _document(request: web.Request, api_key: bool, site: str = SITE) -> dict[str, Any]:
    cart_id = path_param("cart_id", "The cart's id, e.g. C-1A2B3C4D.")
    product = {"id": "string", "name": "string", "category": "string", "price": "string", "currency": "string",
               "stock": "integer", "description": "string"}
    paths = {
        "/products": {"get": operation("search_products", "Search products by words, category and price",
                                       ("Products", "ProductList"), parameters=[
            query("q", {"type": "string"}, "Words in the name or description."),
            query("category", {"type": "string"}, "Electronics, Stationery, Home, Grocery."),
            query("max_price", {"type": "number", "minimum": 0}, "Price at most this much."),
            query("in_stock", {"type": "boolean"}, "Only products in stock.")])},
        "/products/{product_id}": {"get": operation("get_product", "One product", ("The product", "Product"),
                                                    parameters=[path_param("product_id", "e.g. usb-c-cable-2m")])},
        "/carts": {"post": operation("create_cart", "Start an empty cart", ("The cart", "Cart"), status="201")},
        "/carts/{cart_id}": {"get": operation("get_cart", "A cart with its total", ("The cart", "Cart"),
                                              parameters=[cart_id])},
        "/carts/{cart_id}/items": {"post": operation("add_to_cart", "Put a product in a cart", ("The cart", "Cart"),
                                                     parameters=[cart_id], body="ItemRequest")},
        "/carts/{cart_id}/items/{product_id}": {"delete": operation(
            "remove_from_cart", "Take a product out of a cart", ("The cart", "Cart"),
            parameters=[cart_id, path_param("product_id", "The product to remove.")])},
        "/carts/{cart_id}/checkout": {"post": operation(
            "checkout", "Pay for a cart with a payment token; amount must equal the cart's total",
            ("The order", "Order"), parameters=[cart_id, IDEMPOTENCY_PARAM], body="CheckoutRequest", status="201")},
        "/orders": {"get": operation("list_orders", "Orders placed in this shop", ("Orders", "OrderList"))},
        "/orders/{order_id}": {"get": operation("get_order", "One order", ("The order", "Order"), parameters=[
            path_param("order_id", "e.g. O-1A2B3C4D")])},
    }
    line = obj(product_id="string", name="string", quantity="integer", unit_price="string", line_total="string")
    schemas = {
        "Product": obj(**product),
        "ProductList": obj(products=array_of("Product")),
        "Cart": obj(cart_id="string", status="string", items=array_of(line), total="string", currency="string"),
        "ItemRequest": model_schema(ItemRequest),
        "CheckoutRequest": model_schema(CheckoutRequest, amount={
            "type": "string", "description": "The cart's total, e.g. 21.98"}),
        "Order": obj(**{k: "string" for k in ("order_id", "total", "currency", "payment_token", "name",
                                              "shipping_address", "created_at", "status")}, items=array_of(line)),
        "OrderList": obj(orders=array_of("Order")),
        "Tracking": obj(order_id="string", status="string", tracking_number="string", delivery_by="string",
                        total="string", refunded="string"),
        "ReturnRequest": model_schema(ReturnRequest),
    }
    paths.update(order_paths())
    return openapi_document(request, f"{site} API", "Browse products, fill a cart and check out.", paths, schemas,
                            api_key)


def create_app(seed: bool = True, clock: Clock = local_now, api_key: str | None = None, *,
               check_payment: PaymentCheck = accept_any_token, site: str = SITE,
               shipping_fee: Decimal = Decimal(0), delivery_days: int = 5,
               stock: Callable[["Shop"], None] | None = None) -> web.Application:
    """The shop; `seed` stocks it with the demo products (or `stock` with others);
    `check_payment` sees every payment first, and refunds go back through its `refund`."""
    shop = Shop(clock, check_payment, site=site, shipping_fee=shipping_fee, delivery_days=delivery_days)
    if seed:
        (stock or seed_products)(shop)
    app = site_app(api_key)
    app[SHOP] = shop

    async def document(request: web.Request) -> web.Response:
        return json_response(_document(request, api_key is not None, shop.site))

    app.add_routes([web.get("/openapi.json", document), *_api_routes(shop), *shop_page_routes(shop),
                    *order_routes(shop, getattr(check_payment, "refund", None)), *card_checkout_routes(shop),
                    *recipe_routes(shop.site)])
    add_account_pages(app, shop.site)
    return app


async def serve(host: str = "127.0.0.1", port: int = 8083, **options: Any) -> web.AppRunner:
    """Serve the site in the running event loop; clean up the returned runner to stop."""
    return await serve_app(create_app(**options), host, port)
