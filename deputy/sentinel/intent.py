"""What the user asked for, from their own words only: which kinds of action the goal is about.

Intent comes from the goal text and the user's own replies, never from anything the model
or outside content wrote. An action whose kind the user named ("email Bob", "pay the
invoice", "add it to my calendar") is inside the intent; one the user never mentioned is
not, however plausible the model makes it look. Keyword matching is deliberately generous
on the user's side (a missed word only costs a card) and exact on the action's side (the
kind comes from the executor's catalog: effect class, risk tags, operation name).
"""

from __future__ import annotations

import re
from enum import Enum
from functools import lru_cache

from deputy.core.records.effects import EffectClass, RiskTag


class Kind(str, Enum):
    send = "send"
    schedule = "schedule"
    pay = "pay"
    buy = "buy"
    book = "book"
    delete = "delete"
    share = "share"
    post = "post"
    account = "account"
    write = "write"


# What a person types when they want each kind of action.
_WORDS: dict[Kind, tuple[str, ...]] = {
    Kind.send: ("send", "email", "e-mail", "mail", "reply", "respond", "answer", "tell", "message", "text", "write to",
                "let", "know", "notify", "forward", "ping", "contact", "ask", "thank", "confirm", "remind"),
    Kind.schedule: ("schedule", "calendar", "event", "meeting", "invite", "appointment", "book a", "set up", "remind",
                    "block", "slot", "reschedule", "move", "add"),
    Kind.pay: ("pay", "transfer", "wire", "settle", "reimburse", "payment", "invoice", "bill"),
    Kind.buy: ("buy", "order", "purchase", "get me", "restock", "checkout"),
    Kind.book: ("book", "reserve", "reservation", "table", "ticket", "flight", "hotel"),
    Kind.delete: ("delete", "remove", "cancel", "clear", "trash", "clean up", "get rid", "erase", "unsubscribe"),
    Kind.share: ("share", "give access", "access", "forward", "invite", "send the file", "send the document"),
    Kind.post: ("post", "publish", "submit", "fill", "form", "sign up", "register", "apply", "comment", "enter"),
    Kind.account: ("password", "recovery", "account", "settings", "profile", "address", "two-factor", "2fa"),
    Kind.write: ("add", "note", "save", "create", "update", "write", "edit", "rename", "mark", "label", "draft",
                 "put", "change", "file", "record", "log", "calendar", "archive", "move", "organise", "organize"),
}
# After these words a verb like "email" or "message" is a noun ("read my email m1"): no intent.
_NOT_AFTER = ("my", "the", "this", "that", "an", "a", "your", "his", "her", "their", "our", "its", "these", "those",
              "latest", "last", "new", "next", "first", "each", "every", "any", "some", "no", "read", "check", "open",
              "find", "search", "see", "about", "from", "in", "on", "of", "whose", "which", "what")
_NOUN_GUARD = "".join(rf"(?<!\b{re.escape(w)} )" for w in _NOT_AFTER)
_GUARDED = {Kind.send, Kind.pay, Kind.post}
_PATTERNS = {
    kind: re.compile((_NOUN_GUARD if kind in _GUARDED else "") + r"\b(?:" + "|".join(map(re.escape, words)) + r")",
                     re.IGNORECASE)
    for kind, words in _WORDS.items()
}
_KIND_NAMES = {
    Kind.send: "send a message", Kind.schedule: "schedule or invite", Kind.pay: "pay anyone", Kind.buy: "buy anything",
    Kind.book: "book anything", Kind.delete: "delete anything", Kind.share: "share anything",
    Kind.post: "post or submit anything to a website", Kind.account: "change an account",
    Kind.write: "change your data",
}


@lru_cache(maxsize=512)
def kinds_in(text: str) -> frozenset[Kind]:
    return frozenset(kind for kind, pattern in _PATTERNS.items() if pattern.search(text))


def intended_kinds(user_words: list[str]) -> frozenset[Kind]:
    """Every kind of action the user's own words mention."""
    kinds: frozenset[Kind] = frozenset()
    for text in user_words:
        kinds |= kinds_in(text)
    return kinds


def action_kinds(effect: EffectClass, tags: frozenset[RiskTag], connector: str, operation: str) -> frozenset[Kind]:
    """The kinds an action belongs to; the user must have named at least one of them."""
    name = f"{connector}.{operation}".lower()
    kinds: set[Kind] = set()
    if RiskTag.delete in tags:
        return frozenset({Kind.delete})  # "add it to my calendar" never covers deleting from it
    if RiskTag.share in tags:
        kinds.add(Kind.share)
    posts = re.search(r"post|submit|form|publish|comment|webhook|http_request", name)
    events = re.search(r"invite|event|meeting|calendar", name)
    if effect is EffectClass.spend:
        kinds.add(Kind.book if re.search(r"book|reserv|ticket|flight|hotel|table", name)
                  else Kind.pay if re.search(r"pay|transfer|invoice|bill", name) else Kind.buy)
    elif effect is EffectClass.account:
        kinds.add(Kind.account)
    elif effect in (EffectClass.communicate, EffectClass.write):
        if posts:
            kinds.add(Kind.post)
        elif events:
            kinds.add(Kind.schedule)
        elif effect is EffectClass.communicate:
            kinds.add(Kind.send)
        elif not kinds:
            kinds.add(Kind.write)
        if "forward" in name or "email" in name and effect is EffectClass.communicate:
            kinds.add(Kind.send)
    return frozenset(kinds)


def describe(kinds: frozenset[Kind]) -> str:
    names = [_KIND_NAMES[k] for k in sorted(kinds, key=lambda k: k.value)]
    return " or ".join(names) if names else "do this"
