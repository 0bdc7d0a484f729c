"""The first decision of a goal, made by the model in a small constrained choice, for any wording.

A 1.5B model offered eight tools for a goal of a wording nobody foresaw often picks the wrong kind
of step: it creates an event for "what's on tomorrow?", answers "did Sam reply?" without reading
anything, or tells a joke from the inbox. Choosing among eleven kinds of help is a smaller choice
than choosing among tools and their arguments, and it does not depend on English phrasings: the
model reads the goal in whatever language it came and names its kind under a grammar
(`deputy.agent.model.call_grammar`), so it cannot name anything else. The kind then names the tools the
first step may use (`tools_for_kind`); the model writes that call in a second request, as before.

Pure functions: the request for the choice (`decision_request`), reading it (`read_kind`), and the
tools of a kind. `deputy.agent.model.text_tools` asks it once, before the goal's first call, when the
goal has no shape code already recognises (`deputy.agent.goal_shapes`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from deputy.agent.model.call_grammar import PREFILL


@dataclass(frozen=True)
class Kind:
    """One kind of first step: what it means (shown to the model) and the tools that start it."""

    name: str
    label: str
    """What the model names it: self-explaining words, which a small model picks far better than short names."""
    meaning: str
    tools: frozenset[str]
    connected: bool = False
    then: frozenset[str] = frozenset()
    """The tools its later steps usually need (besides those that started it)."""
    """The services the user connected themselves (shop, restaurants, any imported API) may start it too."""


def _kind(name: str, label: str, meaning: str, tools: str, connected: bool = False, then: str = "") -> Kind:
    return Kind(name, label, meaning, frozenset(tools.split()), connected, frozenset(then.split()))


_MAIL_LATER = "read_email read_thread reply_email forward_email move_email mark_email reply"

KINDS: tuple[Kind, ...] = (
    _kind("answer", "chat_or_answer_from_knowledge", "a message answered directly, nothing of the user's needed: "
          "small talk, greetings, thanks, good night, a joke, facts, maths, dates, translation, advice. E.g. "
          "'capital of Peru?', 'how many days has June?', 'thanks, that's all'", "reply"),
    _kind("ask", "ask_user_first", "the request cannot be done without a detail only the user can give (who, "
          "which one, when). E.g. 'book a table' with no place or time", "reply"),
    _kind("mail_write", "send_new_email", "write a new email to someone. E.g. 'email Ann that I am late'",
          "send_email draft_email", then="reply"),
    _kind("mail_read", "search_or_read_email", "find or read emails, or answer a question about them. E.g. 'did "
          "Tom write back?', 'what did the school say about the trip?'", "search_email read_email read_thread",
          then=_MAIL_LATER),
    _kind("mail_act", "reply_forward_or_delete_email", "act on an email the user already has: reply, forward, "
          "delete, archive, mark. E.g. 'forward the hotel confirmation to Sam', 'delete the spam from Acme'",
          "search_email", then=_MAIL_LATER),
    _kind("calendar_read", "read_calendar", "look at the calendar: what is on, when is something, am I free. "
          "E.g. 'what have I got on Friday?'", "list_events free_busy", then="reply"),
    _kind("calendar_add", "add_to_calendar", "put a new event or appointment on the calendar. E.g. 'dentist on "
          "Monday at 3', 'lunch with Bo tomorrow noon'", "create_event schedule_meeting",
          then="list_events free_busy reply"),
    _kind("calendar_change", "move_or_cancel_event", "move or cancel an event already on the calendar. E.g. "
          "'push my 1:1 to 4pm', 'cancel the yoga class'", "list_events", then="move_event cancel_event reply"),
    _kind("memory", "memory", "remember, forget or recall a fact about the user. E.g. 'remember I'm vegan', "
          "'what's my wife's birthday?'", "remember forget_memory recall", then="reply"),
    _kind("later", "remind_me_later_or_watch", "remind the user at a later time, or watch something and tell them "
          "when it changes. E.g. 'remind me at 6 to call mum', 'tell me when the price drops'",
          "remind_me schedule_check", then="reply"),
    _kind("files", "files_or_code", "work on files the user sent, with code: total, count, sort, convert, merge "
          "or rename them. E.g. 'sum the invoice amounts in the spreadsheet by month', 'turn this list into a CSV'",
          "list_files read_file run_python", then="write_file send_file delete_file reply"),
    _kind("service", "buy_something_or_book_a_table", "buy or order a product from a shop, book a table at a "
          "restaurant or tickets, check an order, search the web. E.g. 'order more printer ink', 'table for 2 at "
          "Roma tonight'", "search_web open_page", connected=True, then="click fill_form submit_form reply"),
)
"""The kinds, named to the model by self-explaining labels in this order: measured on the development split of
the everyday goals (`python -m bench.first_decision --split dev`), these labels and this order named a right kind
for 86 of 109 goals, the earlier ones ("answer_from_knowledge", "shop_book_or_web", "reminder_or_watch", the
write kind after the read one) for 70: a table to book was read as a calendar entry, "good night" as a reminder."""
KIND_NAMES = tuple(kind.name for kind in KINDS)
KIND_LABELS = tuple(kind.label for kind in KINDS)
_BY_NAME = {**{kind.name: kind for kind in KINDS}, **{kind.label: kind for kind in KINDS}}

DECIDE_TOOL = "choose_kind"

_INSTRUCTIONS = (
    "You sort a user's message to their personal assistant by the kind of help it needs first. The assistant "
    "can use the user's email, calendar, memory, reminders and connected services (shop, restaurants, web). "
    "Kinds:\n{kinds}\nThe message may be in any language. Call " + DECIDE_TOOL + " with the one kind that fits "
    "best."
)


def decide_tool() -> dict[str, Any]:
    """The one tool of the choice: its only argument is a kind, from the list."""
    return {"type": "function", "function": {
        "name": DECIDE_TOOL, "description": "The kind of help the user's message needs first.",
        "parameters": {"type": "object", "properties": {"kind": {"type": "string", "enum": list(KIND_LABELS)}},
                       "required": ["kind"]}}}


def decision_request(request: str, memories_note: str = "",
                     services: list[str] | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The messages and tool of the choice for the user's words `request` (their goal and later answers).

    The same short instructions for every goal (a local server reuses them computed); the answer is
    forced to start as a call (`PREFILL`), so under the grammar it can only name a kind. `services` names
    the services the user connected (a shop, restaurants): "another pack of AA batteries" is an order
    from the shop the user has, not an event.
    """
    kinds = "\n".join(f"- {kind.label}: {kind.meaning}" for kind in KINDS)
    system = _INSTRUCTIONS.format(kinds=kinds)
    notes = [note for note in (memories_note, _services_note(services or [])) if note]
    user = request if not notes else request + "\n\n" + "\n".join(f"({note})" for note in notes)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user},
                {"role": "assistant", "content": PREFILL}]
    return messages, [decide_tool()]


def connected_services(tool_names: list[str], own: frozenset[str]) -> list[str]:
    """The services the user connected, by the prefix of their tools' names (`shop_search_products`: shop)."""
    return sorted({name.replace(".", "_").split("_", 1)[0] for name in tool_names if name not in own} - {""})


def _services_note(services: list[str]) -> str:
    if not services:
        return ""
    return f"Services the user connected ({_kind_label('service')}): " + ", ".join(services[:8])


def _kind_label(name: str) -> str:
    return next(kind.label for kind in KINDS if kind.name == name)


def kind_named(name: object) -> Kind | None:
    return _BY_NAME.get(name) if isinstance(name, str) else None


def kind_of(messages: list[dict[str, Any]]) -> Kind | None:
    """The kind the goal's first decision chose, as its transcript keeps it (None without one)."""
    for message in messages:
        if message.get("role") == "assistant" and message.get("kind"):
            return kind_named(message["kind"])
    return None


def later_tools(kind: Kind, tools: list[dict[str, Any]], usual: list[dict[str, Any]], own: frozenset[str],
                connected_fit: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """A later step's offer: the kind's tools first, then the usual selection, up to `limit` (at least the kind's)."""
    wanted = kind.tools | kind.then
    first = [tool for tool in tools if _name(tool) in wanted]
    if kind.connected:
        theirs = _theirs(kind, tools, own, connected_fit)
        first = theirs + [tool for tool in first if tool not in theirs]
    rest = [tool for tool in usual if tool not in first]
    return first + rest[:max(limit - len(first), 0)]


def read_kind(name: str, arguments: str) -> Kind | None:
    """The kind a call of the choice names, or None when it is anything else."""
    if name != DECIDE_TOOL:
        return None
    try:
        value = json.loads(arguments or "{}").get("kind")
    except (ValueError, AttributeError):
        return None
    return _BY_NAME.get(value) if isinstance(value, str) else None


def tools_for_kind(kind: Kind, tools: list[dict[str, Any]], own: frozenset[str],
                   connected_fit: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The offered `tools` a first step of `kind` may use, in their order.

    `own` names Deputy's own tools; `connected_fit` are the services the user connected that the goal's
    words fit (kept for a `connected` kind). Empty when none of the kind's tools is on offer: then the
    caller falls back to its usual selection rather than offer nothing.
    """
    chosen = [tool for tool in tools if _name(tool) in kind.tools]
    if not kind.connected:
        return chosen
    theirs = _theirs(kind, tools, own, connected_fit)
    return theirs + [tool for tool in chosen if tool not in theirs]


def _theirs(kind: Kind, tools: list[dict[str, Any]], own: frozenset[str],
            connected_fit: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The services the user connected, offered before the open web for a `connected` kind: "get me the sony
    headphones" with a shop connected is that shop's product, not a web search. When the goal's words fit
    none of them by name, all of them are offered: the kind already says the goal is for one of them."""
    fitting = [tool for tool in connected_fit if _name(tool) not in own]
    return (fitting or [tool for tool in tools if _name(tool) not in own and _name(tool) not in kind.tools])[
        :_CONNECTED_ROOM]


_CONNECTED_ROOM = 8
"""At most this many of the user's own services' tools in a first offer: more is too wide a choice for a small model."""


def _name(tool: dict[str, Any]) -> str:
    return tool.get("function", {}).get("name", "")
