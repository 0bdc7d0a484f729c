"""The sandbox marketplace and retention desk as a website with an API described by OpenAPI.

The same scripted counterparts as `deputy.sandbox.negotiation.world`, over HTTP: a listing, its
buyers' conversations and the provider's retention chat. Deputy can import
`/openapi.json` like any unseen API (sending a message is a POST, so a `communicate`
action the guard holds to the negotiation's mandate).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from aiohttp import web
from pydantic import BaseModel, Field

from deputy.sandbox.negotiation.counterparts import Counterpart, Temperament
from deputy.sandbox.negotiation.operations import DESK
from deputy.sandbox.negotiation.world import NegotiationWorld
from deputy.sandbox.webapp_common import (
    Clock, SiteError, array_of, esc, json_response, local_now, model_schema, obj, openapi_document, operation, page,
    path_param, read_json, serve_app, site_app,
)

SITE = "Sandbox Marketplace"
WORLD = web.AppKey("negotiation_world", NegotiationWorld)
LISTING = {"id": "L-CIVIC", "title": "2017 Honda Civic, 62,000 miles", "price": "16500", "currency": "USD"}


class MessageRequest(BaseModel):
    text: str = Field(min_length=1, max_length=2000, description="What to write.")


def seed(world: NegotiationWorld) -> None:
    """Three buyers on the listing and the retention desk, each with a hidden limit."""
    world.add("market:c1", Counterpart("Alex", Temperament.honest, Decimal(15200), Decimal(11000)))
    world.add("market:c2", Counterpart("Jordan", Temperament.lowballer, Decimal(14600), Decimal(9000)))
    world.add("market:c3", Counterpart("BuyBot 3000", Temperament.ai_agent, Decimal(15000), Decimal(12000)))
    world.add(DESK, Counterpart("Fibrelink retention", Temperament.anchorer, Decimal(52), Decimal(80), sells=False,
                                unit=Decimal(1), per="month"))


def _conversation(world: NegotiationWorld, address: str):
    found = world.conversations.get(address)
    if found is None:
        raise SiteError(404, f"There is no conversation {address.split(':', 1)[1]}.")
    return found


def _routes(world: NegotiationWorld) -> list[web.RouteDef]:
    def read(address: str) -> dict[str, Any]:
        conversation = _conversation(world, address)
        new, conversation.unread = conversation.unread, []
        return {"conversation_id": address.split(":", 1)[1], "with": conversation.counterpart.name, "messages": new}

    def send(address: str, text: str) -> dict[str, Any]:
        conversation = _conversation(world, address)
        world.delivered.append((address, text, "http"))
        reply, asked = conversation.counterpart.answer(text, conversation.our_last)
        if asked is not None:
            conversation.our_last = asked
        conversation.unread.append(reply)
        return {"conversation_id": address.split(":", 1)[1], "status": "sent"}

    async def listings(request: web.Request) -> web.Response:
        return json_response({"listings": [LISTING]})

    async def conversations(request: web.Request) -> web.Response:
        rows = [{"conversation_id": a.split(":", 1)[1], "with": c.counterpart.name, "unread": len(c.unread)}
                for a, c in world.conversations.items() if a.startswith("market:")]
        return json_response({"conversations": rows})

    async def messages(request: web.Request) -> web.Response:
        return json_response(read(f"market:{request.match_info['conversation_id']}"))

    async def post_message(request: web.Request) -> web.Response:
        body = await read_json(request, MessageRequest)
        return json_response(send(f"market:{request.match_info['conversation_id']}", body.text), status=201)

    async def chat(request: web.Request) -> web.Response:
        return json_response(read(DESK))

    async def post_chat(request: web.Request) -> web.Response:
        body = await read_json(request, MessageRequest)
        return json_response(send(DESK, body.text), status=201)

    async def home(request: web.Request) -> web.Response:
        rows = "".join(f"<li>{esc(c.counterpart.name)}: {len(c.unread)} unread</li>"
                       for a, c in world.conversations.items() if a.startswith("market:"))
        return page(LISTING["title"], f"<p>Asking ${esc(LISTING['price'])}</p><ul>{rows}</ul>", site=SITE)

    return [
        web.get("/", home), web.get("/api/listings", listings), web.get("/api/conversations", conversations),
        web.get("/api/conversations/{conversation_id}/messages", messages),
        web.post("/api/conversations/{conversation_id}/messages", post_message),
        web.get("/api/retention/chat", chat), web.post("/api/retention/chat", post_chat),
    ]


def _document(request: web.Request, api_key: bool) -> dict[str, Any]:
    conversation = path_param("conversation_id", "The conversation's id, e.g. c1.")
    paths = {
        "/listings": {"get": operation("list_listings", "The user's listings", ("Listings", "ListingList"))},
        "/conversations": {"get": operation("list_conversations", "Buyers who wrote about the listing",
                                            ("Conversations", "ConversationList"))},
        "/conversations/{conversation_id}/messages": {
            "get": operation("read_buyer_messages", "A buyer's new messages", ("Messages", "Messages"),
                             parameters=[conversation]),
            "post": operation("send_buyer_message", "Write to a buyer", ("Sent", "Sent"), parameters=[conversation],
                              body="MessageRequest", status="201")},
        "/retention/chat": {
            "get": operation("read_retention_chat", "The retention desk's new messages", ("Messages", "Messages")),
            "post": operation("send_retention_chat", "Write to the retention desk", ("Sent", "Sent"),
                              body="MessageRequest", status="201")},
    }
    schemas = {
        "Listing": obj(id="string", title="string", price="string", currency="string"),
        "ListingList": obj(listings=array_of("Listing")),
        "ConversationList": obj(conversations=array_of(obj(conversation_id="string", **{"with": "string"},
                                                           unread="integer"))),
        "Messages": obj(conversation_id="string", **{"with": "string"}, messages=array_of({"type": "string"})),
        "Sent": obj(conversation_id="string", status="string"),
        "MessageRequest": model_schema(MessageRequest),
    }
    return openapi_document(request, f"{SITE} API", "Talk to buyers of a listing and to a provider's retention desk.",
                            paths, schemas, api_key)


def create_app(seeded: bool = True, clock: Clock = local_now, api_key: str | None = None,
               world: NegotiationWorld | None = None) -> web.Application:
    world = world if world is not None else NegotiationWorld()
    if seeded and not world.conversations:
        seed(world)
    app = site_app(api_key)
    app[WORLD] = world

    async def document(request: web.Request) -> web.Response:
        return json_response(_document(request, api_key is not None))

    app.add_routes([web.get("/openapi.json", document), *_routes(world)])
    return app


async def serve(host: str = "127.0.0.1", port: int = 8086, **options: Any) -> web.AppRunner:
    return await serve_app(create_app(**options), host, port)
