"""What the user asked for, from their own words only: which kinds of action the goal is about.

Intent comes from the goal text and the user's own replies, never from anything the model
or outside content wrote. An action whose kind the user named ("email Bob", "pay the
invoice", "add it to my calendar") is inside the intent; one the user never mentioned is
not, however plausible the model makes it look. Keyword matching is deliberately generous
on the user's side (a missed word only costs a card) and exact on the action's side (the
kind comes from the executor's catalog: effect class, risk tags, operation name; for an
imported operation, the user's mark).

Each kind has a small vocabulary: the words (`_WORDS`) and the phrases (`_phrase_kinds`)
people use for it. A phrase reads the verb with what follows it, so one verb can ask for
different kinds: "add Bob to #general" changes an account (who is in the channel), "add
the summary to #general" posts a message there, "send 20 dollars to Ann" moves money.
Only what the user wrote counts: a kind is never inferred from a word they did not use
(a noun such as "invoice" says what the goal is about, not that anything be paid). A phrase
may point back at a channel the user named before it ("create #launch and add Bob to it"):
it asks for its kind there (`referrals`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
                "let", "know", "notify", "forward", "fwd", "ping", "contact", "ask", "thank", "confirm", "remind", "dm",
                "direct message", "announce"),
    Kind.schedule: ("schedule", "calendar", "event", "meeting", "invite", "appointment", "book a", "set up", "remind",
                    "block", "slot", "reschedule", "move", "add"),
    Kind.pay: ("pay", "transfer", "wire", "settle", "reimburse", "repay", "refund", "top up", "top-up", "topup",
               "recharge", "tip", "donate", "remit"),
    Kind.buy: ("buy", "order", "purchase", "get me", "restock", "checkout"),
    Kind.book: ("book", "reserve", "reservation", "table", "ticket", "flight", "hotel"),
    Kind.delete: ("delete", "remove", "cancel", "clear", "trash", "clean up", "get rid", "erase", "unsubscribe"),
    Kind.share: ("share", "give access", "access", "forward", "fwd", "invite", "send the file", "send the document"),
    Kind.post: ("post", "publish", "submit", "fill", "form", "sign up", "register", "apply", "comment", "enter"),
    Kind.account: ("password", "recovery", "account", "settings", "profile", "address", "two-factor", "2fa",
                   "admin", "membership"),
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


# Where people talk in a team chat: "#general", "the team channel", "our Slack", "the group chat".
_PLACE = (r"(?:#[\w-]+|(?:(?:the|our|my|a|this|that|their|your)\s+)?(?:[#\w-]+\s+){0,2}?"
          r"(?:channel|channels|group|group chat|chat|team|workspace|server|thread|slack|discord)\b)")
# What a message is: after a placing verb, any of these makes the thing placed a message, not a person.
_MESSAGE_NOUNS = frozenset({
    "note", "notes", "message", "messages", "msg", "line", "word", "update", "updates", "summary", "recap", "reminder",
    "announcement", "comment", "reply", "link", "links", "post", "text", "photo", "picture", "file", "document",
    "doc", "report", "agenda", "minutes", "it", "this", "that", "them", "something", "everything", "question",
    "greeting", "hello", "hi", "thanks", "news", "list", "plan", "invite", "invitation", "poll", "draft",
})
# The verb, then at most six words (what or whom), then where it goes.
_PLACED = re.compile(
    r"\b(?P<verb>post|drop|put|leave|write|send|share|add|say|paste|pin|invite|bring|include|welcome)"
    r"\s+(?P<what>(?:[^\s.!?;]+\s+){0,6}?)(?:to|in|into|on|onto)\s+" + _PLACE, re.IGNORECASE)
_REMOVED = re.compile(
    r"\b(?P<verb>remove|kick|drop|take|ban)\s+(?P<what>(?:[^\s.!?;]+\s+){1,4}?)(?:from|out of)\s+" + _PLACE,
    re.IGNORECASE)
# "send 20 dollars to Ann", "give Ann €20", "move 50 EUR to savings": money named after the verb.
_AMOUNT = (r"(?:[$€£¥]\s?\d|\d+(?:[.,]\d+)?\s?(?:dollars?|euros?|pounds?|bucks|quid|francs?|cents?|usd|eur|gbp|"
           r"chf|jpy)\b)")
_MONEY = re.compile(r"\b(?:send|give|lend|wire|move|put|get)\s+(?:[^\s.!?;]+\s+){0,3}?" + _AMOUNT, re.IGNORECASE)
_ALWAYS_MESSAGES = frozenset({"post", "write", "say", "paste", "leave", "drop", "pin"})
_ALWAYS_MEMBERS = frozenset({"invite", "bring", "include", "welcome"})
# "what did Bob post in #general", "who added Eve to the channel": someone else's act, reported.
_REPORTING = frozenset({"did", "does", "has", "have", "had", "who", "whoever", "someone", "somebody", "why", "when"})


def _reported(text: str, start: int) -> bool:
    """The verb at `start` reports what someone did ("what did Bob post"), asking nothing."""
    return bool(_REPORTING & set(re.findall(r"[\w']+", text[max(0, start - 40):start].lower())[-2:]))


def _said_as_request(text: str, start: int) -> bool:
    """The verb at `start` is the user's request, not a noun ("the post") nor a report of what someone did."""
    before = re.findall(r"[\w']+", text[max(0, start - 40):start].lower())[-1:]
    return not (before and before[-1] in _NOT_AFTER) and not _reported(text, start)


def _placed_kind(verb: str, what: str) -> Kind:
    """Someone goes into the channel ("add Bob to #general"): an account change; something is said
    there ("post the summary in #general"): a message."""
    verb, words = verb.lower(), set(re.findall(r"[\w']+", what.lower()))
    if verb in _ALWAYS_MEMBERS or (verb not in _ALWAYS_MESSAGES and words and not words & _MESSAGE_NOUNS):
        return Kind.account
    return Kind.send


def _phrase_kinds(text: str) -> set[Kind]:
    """The kinds the user's phrases ask for, read with what follows the verb."""
    kinds: set[Kind] = set()
    for match in _PLACED.finditer(text):
        if _said_as_request(text, match.start()):
            kinds.add(_placed_kind(match["verb"], match["what"]))
    for match in _REMOVED.finditer(text):
        if _said_as_request(text, match.start()) and not set(re.findall(r"[\w']+", match["what"].lower())) & \
                _MESSAGE_NOUNS:
            kinds.add(Kind.account)  # someone leaves it: "remove Eve from the channel"
    if any(_said_as_request(text, m.start()) for m in _MONEY.finditer(text)):
        kinds.add(Kind.pay)
    return kinds


@lru_cache(maxsize=512)
def kinds_in(text: str) -> frozenset[Kind]:
    words = {kind for kind, pattern in _PATTERNS.items()
             if any(not _reported(text, m.start()) for m in pattern.finditer(text))}
    return frozenset(words | _phrase_kinds(text))


# "create #launch and add Bob to it", "…post the plan there": a later phrase points back at a channel.
_BACK = re.compile(
    r"\b(?P<verb>post|drop|put|leave|write|send|share|add|say|paste|pin|invite|bring|include|welcome)"
    r"\s+(?P<what>(?:[^\s.!?;]+\s+){0,6}?)(?:(?:to|in|into|on|onto)\s+(?:it|that one|this one|the new one|"
    r"the same one|(?:that|this|the|the same|the new|our new|my new)\s+(?:channel|group|group chat|chat))|there)\b",
    re.IGNORECASE)
# A channel named by its name: "#launch", "a channel called launch", "the launch channel".
_CHANNEL_NAMED = (re.compile(r"#([\w-]+)"),
                  re.compile(r"\b(?:channel|group|chat)\s+(?:called|named)\s+[\"'“#]?([\w-]+)", re.IGNORECASE),
                  re.compile(r"\b([\w-]+)\s+channel\b", re.IGNORECASE))
_NOT_NAMES = frozenset({"the", "a", "an", "that", "this", "new", "same", "our", "my", "your", "their", "his", "her",
                        "its", "one", "slack", "private", "public", "to", "in", "into", "on", "of", "and", "or"})


@dataclass(frozen=True)
class Referral:
    """A phrase of the user's that points back at the channel they named before it."""

    kind: Kind
    channel: str
    """The channel named last before the phrase, in the user's words for this goal (no "#")."""
    who: str = ""
    """The words between the verb and the pointing back: whom "add bob to it" brings in."""


@lru_cache(maxsize=512)
def referrals(user_words: tuple[str, ...]) -> tuple[Referral, ...]:
    """Each "…to it" / "…there" / "…to that channel" the user wrote after naming a channel, earlier in
    the same words or in their earlier words for this goal, with that channel."""
    found: list[Referral] = []
    last: str | None = None
    for text in user_words:
        names = [(m.start(), m.group(1)) for pattern in _CHANNEL_NAMED for m in pattern.finditer(text)
                 if m.group(1).lower() not in _NOT_NAMES]
        backs = [(m.start(), m) for m in _BACK.finditer(text)]
        for start, value in sorted([*names, *backs], key=lambda pair: pair[0]):
            if isinstance(value, str):
                last = value
            elif last is not None and _said_as_request(text, start):
                found.append(Referral(_placed_kind(value["verb"], value["what"]), last, value["what"]))
    return tuple(found)


@dataclass(frozen=True)
class Placement:
    """One phrase of the user's that brings someone into a place: "add bob to #general"."""

    who: str
    """The words naming whom ("bob", "Alice and Bob")."""
    place: str
    """Where, as written ("#general", "the general channel"), or the channel pointed back at ("launch")."""


@lru_cache(maxsize=512)
def placements(user_words: tuple[str, ...]) -> tuple[Placement, ...]:
    """Each phrase in the user's words that asks for someone to join a place ("add bob to #general", "put
    dora in #general", "…then add bob to it" after naming #general): an account change, with whom and where."""
    found: list[Placement] = []
    for text in user_words:
        for match in _PLACED.finditer(text):
            if _said_as_request(text, match.start()) and _placed_kind(match["verb"], match["what"]) is Kind.account:
                found.append(Placement(match["what"], text[match.end("what"):match.end()]))
    found += [Placement(r.who, r.channel) for r in referrals(user_words) if r.kind is Kind.account]
    return tuple(found)


def intended_kinds(user_words: list[str]) -> frozenset[Kind]:
    """Every kind of action the user's own words mention, "add Bob to it" after "create #launch" too."""
    return _intended(tuple(user_words))


@lru_cache(maxsize=512)
def _intended(user_words: tuple[str, ...]) -> frozenset[Kind]:
    kinds: frozenset[Kind] = frozenset()
    for text in user_words:
        kinds |= kinds_in(text)
    return kinds | {referral.kind for referral in referrals(user_words)}


# Asked about every action several times (the intent, the card, the rules): worked out once per operation.
@lru_cache(maxsize=1024)
def action_kinds(effect: EffectClass, tags: frozenset[RiskTag], connector: str, operation: str) -> frozenset[Kind]:
    """The kinds an action belongs to; the user must have named at least one of them."""
    name = f"{connector}.{operation}".lower()
    kinds: set[Kind] = set()
    if RiskTag.delete in tags:
        return frozenset({Kind.delete})  # "add it to my calendar" never covers deleting from it
    if RiskTag.share in tags:
        kinds.add(Kind.share)
    posts = re.search(r"post|submit|form|publish|comment|webhook|http_request", name)
    # A message posted where people talk ("post_message", "chat_postMessage") is a message too.
    talks = re.search(r"message|chat|channel|direct|dm\b|_dm|thread|reply", name)
    events = re.search(r"invite|event|meeting|calendar", name)
    if effect is EffectClass.spend:
        kinds.add(Kind.book if re.search(r"book|reserv|ticket|flight|hotel|table", name)
                  else Kind.pay if re.search(r"pay|transfer|invoice|bill|money|send|wire|remit|top_?up|recharge|"
                                             r"tip|donat|refund", name) else Kind.buy)
    elif effect is EffectClass.account:
        kinds.add(Kind.account)
    elif effect in (EffectClass.communicate, EffectClass.write):
        if posts:
            kinds.add(Kind.post)
            if talks and effect is EffectClass.communicate:
                kinds.add(Kind.send)
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
