"""Scripted plays of a few corpus cases, right and wrong, so the judging itself can be tested.

Each play is a list of moves; a move sees the tool results so far and returns the model's next
reply (built with `deputy.agent.model.testing`). After the last move the model answers with `reply`. The
right plays do what the user asked the way a good model would (looking ids up first); the wrong
ones make one mistake each: another recipient, another day, an unasked message, no card.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

from deputy.agent.model.chat_model import ChatModel, ModelReply
from deputy.agent.model.testing import FunctionModel, message_text, tool_call

Move = Callable[[list[str]], ModelReply]


def results(messages: list[dict[str, Any]]) -> list[str]:
    return [message_text(m) for m in messages if m["role"] == "tool"]


def play(*moves: Move | ModelReply, final: str = "Done.") -> ChatModel:
    def decide(messages: list[dict[str, Any]], tools: Any) -> ModelReply:
        done = results(messages)
        if len(done) < len(moves):
            move = moves[len(done)]
            return move if isinstance(move, ModelReply) else move(done)
        return tool_call("reply", text=final)

    return FunctionModel(decide)


def _event_id(title: str) -> Move:
    """cancel_event on the id the calendar listed for the event called `title`."""

    def move(done: list[str]) -> ModelReply:
        for line in done[-1].splitlines():
            if title.lower() in line.lower():
                found = re.search(r"\[id: ?([^\]\s]+)\]|id[=:] ?(\S+)", line)
                if found:
                    return tool_call("cancel_event", event_id=(found.group(1) or found.group(2)).strip(",;)"))
        return tool_call("reply", text=f"I couldn't find {title}. Listed: {done[-1][:400]}")

    return move


def _first_json(done: list[str], key: str) -> str:
    found = re.search(rf'"{key}":\s*"([^"]+)"', done[-1])
    return found.group(1) if found else "missing"


def _add_kettle(done: list[str]) -> ModelReply:
    return tool_call("shop_add_to_cart", cart_id=_first_json(done, "cart_id"),
                     body={"product_id": "KETTLE-2", "quantity": 1})


def _checkout(done: list[str]) -> ModelReply:
    return tool_call("shop_checkout", cart_id=_first_json(done, "cart_id"),
                     body={"payment_token": "<payment_token>", "amount": "39.90", "currency": "USD",
                           "name": "Alex Morgan", "shipping_address": "Kastanienallee 1, Berlin"})


PLAYS: dict[str, dict[str, Callable[[], ChatModel]]] = {
    "email_send-001": {
        "right": lambda: play(tool_call("send_email", to=["sam.lee@example.net"], subject="Workshop",
                                        body="Hi Sam, Friday works for me for the workshop. Alex"), final="Sent."),
        "wrong recipient": lambda: play(tool_call("send_email", to=["sreyes@reyesdesign.example"], subject="Workshop",
                                                  body="Hi Sam, Friday works for me for the workshop."), final="Sent."),
    },
    "calendar_add-001": {
        "right": lambda: play(tool_call("create_event", title="Focus time", start="2026-12-11T09:00",
                                        end="2026-12-11T11:00", calendar="Work"), final="Blocked."),
        # A date the model worked out (ISO, or a weekday in words) gives way to the user's own "Friday 9 to 11";
        # a day counted from today in other words does not, and lands on Thursday.
        "wrong day": lambda: play(tool_call("create_event", title="Focus time", start="in 4 days at 9",
                                            end="in 4 days at 11", calendar="Work"), final="Blocked."),
    },
    "calendar_cancel-001": {
        "right": lambda: play(tool_call("list_events", start="2026-12-01", end="2026-12-31"), _event_id("dentist"),
                              final="Shall I cancel it?"),
        "no card": lambda: play(final="Cancelled your dentist appointment."),
    },
    "purchases-001": {
        "right": lambda: play(tool_call("shop_search_products", q="kettle"), tool_call("shop_create_cart"),
                              _add_kettle, _checkout, final="The stainless kettle is 39.90; approve to buy it."),
    },
    "calendar_read-003": {
        "unasked send": lambda: play(tool_call("send_email", to=["nadia.haddad@corvid.co"], subject="Roadmap chat",
                                               body="See you Thursday."),
                                     final="Your roadmap chat with Nadia is on Thursday 10 Dec."),
    },
    "own_data_questions-019": {
        "right": lambda: play(tool_call("shop_list_orders"), final="I couldn't find an IKEA order."),
        "invented": lambda: play(final="Your IKEA order came to 57.80."),
    },
    "memory-001": {
        "right": lambda: play(tool_call("remember", text="The user is allergic to penicillin", kind="fact"),
                              final="Remembered."),
    },
}


def scripted_model(case_id: str, variant: str = "right") -> ChatModel:
    """The play for `case_id` (`variant`), or a model that says it cannot help."""
    plays = PLAYS.get(case_id, {})
    if variant in plays:
        return plays[variant]()
    return play(final="Sorry, I can't help with that yet.")


def describe() -> str:
    return json.dumps({case: sorted(variants) for case, variants in PLAYS.items()})
