"""Selling within a mandate, end to end in the local chat.

The user texts /negotiate and taps Confirm; the agent (the scripted model) talks to a scripted
buyer on the sandbox marketplace over its OpenAPI description, through the egress guard; every
offer is held to the mandate by the executor; a round summary with buttons comes to the chat;
the acceptance arrives as a card the user taps; the deal is recorded.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Iterator

import pytest

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, message_text, tool_call
from deputy.testing.stack import DeputyStack, wait_for
from deputy.sandbox.negotiation import site as marketplace
from deputy.sandbox.negotiation.counterparts import Counterpart, Temperament
from deputy.sandbox.negotiation.world import NegotiationWorld
from deputy.sandbox.webapp_common import SiteServer
from deputy.sentinel.negotiation.leaks import reservation_leaks
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.stores.mandates import MandateStore

USER = 7


@pytest.fixture
def world() -> NegotiationWorld:
    world = NegotiationWorld()
    # A buyer who would pay up to $16,000 and opens at $15,200.
    world.add("market:c1", Counterpart("Alex", Temperament.honest, limit=Decimal(16000), worst=Decimal(12000)))
    return world


@pytest.fixture
def site(world: NegotiationWorld) -> Iterator[str]:
    server = SiteServer(marketplace.create_app(world=world))
    url = server.start()
    yield url
    server.stop()


@pytest.fixture
def stack_env(site: str) -> dict[str, str]:
    return {"DEPUTY_OPENAPI_SERVICES": f"marketplace={site}/openapi.json",
            "DEPUTY_EGRESS_ALLOW": site.removeprefix("http://")}


def _calls(request: ChatRequest) -> list[str]:
    return [call["function"]["name"] for m in request.messages if m.get("role") == "assistant"
            for call in m.get("tool_calls") or []]


def negotiator(request: ChatRequest) -> ModelReply:
    """A cooperative model: reads the buyer, counters inside the mandate, proposes the deal when they agree."""
    names = {t["function"]["name"] for t in request.tools or []}
    read = next(n for n in names if n.endswith("read_buyer_messages"))
    send = next(n for n in names if n.endswith("send_buyer_message"))
    calls = _calls(request)
    tools = [m for m in request.messages if m.get("role") == "tool"]
    last = message_text(tools[-1]) if tools else ""
    sends = calls.count(send)
    if not calls or calls[-1] == send:
        if "done at" in last.lower() or sends >= 3:
            return tool_call("reply", text="Sold: the buyer accepted $15,800.")
        return tool_call(read, conversation_id="c1")
    if "works" in last:
        return tool_call(send, conversation_id="c1", body={"text": "Deal at $15,800. Thank you!"})
    if sends == 0:
        return tool_call(send, conversation_id="c1",
                         body={"text": "Hi, I'm an AI assistant acting for the owner. I can do $16,200."})
    return tool_call(send, conversation_id="c1", body={"text": "Thanks, we're getting closer. I can do $15,800."})


def test_a_sale_within_the_mandate_from_the_chat_to_the_users_tap(
    stack: DeputyStack, model_server, world: NegotiationWorld, site: str, redis  # type: ignore[no-untyped-def]
) -> None:
    model_server.responder = negotiator
    user = stack.user(USER, "Sam")
    sent = user.send(f"/negotiate sell my 2017 Civic, listed at $16,500, target $15,500, at least $14,000, steps of "
                     f"$500, 4 rounds, walk away if they want a deposit, talk to: {site}/api/conversations/*")
    proposal = user.wait_for_bot(lambda m: "Negotiate within this mandate?" in m["text"], after=sent)
    assert "floor $14,000" in proposal["text"] and "walks away if they want a deposit" in proposal["text"]
    assert world.delivered == [], "nothing is sent before the user confirms"
    user.press(proposal["message_id"], button="Confirm")

    # The model writes its offers itself here (free text to an imported API, which has no move tools): each
    # waits on a card that shows the mandate; each round is summarised with buttons.
    card = user.wait_for_card(after=proposal["message_id"], timeout=60)
    assert "I can do $16,200" in card["text"] and "🤝 Mandate: Selling my 2017 Civic" in card["text"]
    assert world.delivered == []
    user.press(card["message_id"], button="Approve")
    summary = user.wait_for_bot(lambda m: m["text"].startswith("🤝 Round 1/4"), after=card["message_id"],
                                timeout=60)
    assert [b["text"] for b in summary["buttons"][0]] == ["Step in", "Adjust", "Pause", "Stop"]
    assert "they offered $15,200; we offered $16,200" in summary["text"]
    card = user.wait_for_card(after=summary["message_id"], timeout=60)
    assert "I can do $15,800" in card["text"]
    user.press(card["message_id"], button="Approve")

    # The acceptance waits on a card; only the user's tap sends it.
    card = user.wait_for_card(after=card["message_id"], timeout=60)
    assert "Deal at $15,800" in card["text"] and "final yes is always yours" in card["text"]
    assert not any("Deal at" in text for _, text, _ in world.delivered)
    user.press(card["message_id"], button="Approve")

    done = user.wait_for_bot(lambda m: m["text"].startswith("📨 Acceptance sent with your approval"),
                             after=card["message_id"], timeout=60)
    assert "$15,800" in done["text"]
    user.wait_for_bot(lambda m: m["text"].startswith("Sold"), after=done["message_id"], timeout=60)

    # What reached the buyer: the disclosure first, offers inside the mandate, the deal on the user's tap.
    texts = [text for _, text, _ in world.delivered]
    assert texts[0].startswith("Hi, I'm an AI assistant") and texts[-1] == "Deal at $15,800. Thank you!"
    assert world.conversations["market:c1"].counterpart.closed_at == Decimal(15800)
    store = MandateStore(redis)
    [goal_id] = store.goal_ids(USER)
    state = wait_for(lambda: (found := store.get(USER, goal_id)) and found[1].accepted is not None and found[1],
                     what="the deal to be recorded")
    assert state.accepted == Decimal(15800)

    # /activity lists the negotiation; the audit trail has the whole exchange and never the limit.
    asked = user.send("/activity")
    activity = user.wait_for_bot(lambda m: "Negotiations:" in m["text"], after=asked)
    assert "closed at $15,800" in activity["text"]
    entries = AuditLog(redis, stack.audit_key).entries(USER)
    kinds = [e.kind for e in entries]
    assert "mandate_confirmed" in kinds and kinds.count("negotiation_round") == 3
    written = json.dumps([e.detail for e in entries], ensure_ascii=False)
    assert not reservation_leaks(written, Decimal(14000))
    assert not re.search(r"14,?000", written)
