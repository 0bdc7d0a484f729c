"""Walk-away conditions: read from the user's words into checks, and checked against the negotiation.

“walk away if they want a deposit, or won't meet in person; walk away if no offer above
$14,500 after 5 rounds; walk away if they ask for my bank details” becomes structured
`Condition`s. `conditions_met` says which of them the counterpart's own messages or the
state (rounds, their best offer) meet; the guard then sends no further message to that
counterpart without the user's tap, on a card saying which condition was met. Words that
fit none of the forms come back unread, so the user is asked at confirm time instead of the
condition being silently ignored. Pure: no IO.
"""

from __future__ import annotations

import re
from decimal import Decimal
from enum import Enum

from pydantic import BaseModel, Field

from deputy.sentinel.negotiation.amounts import read_amounts
from deputy.sentinel.negotiation.meaning import Embed, says


class Trigger(str, Enum):
    deposit = "deposit"
    shipping = "shipping"
    no_meeting = "no_meeting"
    bank_details = "bank_details"
    no_offer = "no_offer"
    offer_worse = "offer_worse"
    mention = "mention"
    meaning = "meaning"
    """Any other condition: matched by meaning, a doubtful match asks the user."""


class Condition(BaseModel):
    """One walk-away condition, as read from the user's `words`."""

    trigger: Trigger
    words: str = Field(max_length=200)
    amount: Decimal | None = None
    rounds: int | None = None
    phrase: str | None = Field(default=None, description="For `mention`: what they would have to mention.")


# What a counterpart writes when a condition is met, per kind (their words, not ours).
_SIGNS: dict[Trigger, re.Pattern[str]] = {
    Trigger.deposit: re.compile(
        r"\b(?:deposit|down ?payment|pay(?:ment)? (?:up ?front|in advance|first|before)|advance payment|"
        r"up ?front (?:payment|fee)|holding fee|reservation fee)\b", re.IGNORECASE),
    Trigger.shipping: re.compile(
        r"\b(?:ship(?:ped|ping|s)?|deliver(?:y|ed)?|courier|freight|post it|mail it|send it (?:over|to)|"
        r"transport(?:ed)?)\b", re.IGNORECASE),
    Trigger.no_meeting: re.compile(
        r"\b(?:can'?t|cannot|can not|won'?t|will not|unable to|not able to|don'?t (?:want|have time) to|"
        r"no time to|rather not|prefer not to)\s+(?:\w+\s+){0,2}?"
        r"(?:meet|come (?:by|over|and see|to see)|see (?:it|the)|"
        r"view|inspect|pick (?:it )?up|collect)|\bno (?:meeting|viewing|meetups?|test drive)s?\b|"
        r"\bwithout (?:meeting|seeing|viewing)\b|\bsight unseen\b|\bremote(?:ly)? (?:only|purchase|deal)\b",
        re.IGNORECASE),
    Trigger.bank_details: re.compile(
        r"\b(?:bank (?:details|account|info(?:rmation)?|login|number)|account (?:number|details|info)|"
        r"routing (?:number)?|iban|swift|bic|sort code|card (?:number|details)|cvv|pin|password|"
        r"one[- ]time code|verification code)\b", re.IGNORECASE),
}

# The user's words for each kind (what follows “walk away if”).
_READ: list[tuple[Trigger, re.Pattern[str]]] = [
    (Trigger.no_offer, re.compile(
        r"\bno (?:offer|bid)s?\s+(?:above|over|higher than|more than|of at least|below|under|lower than|less than)\s+"
        r"(?P<amount>.+?)\s+(?:after|within|in|by)\s+(?:round\s+)?(?P<rounds>\d{1,2})(?:\s+rounds?)?\b",
        re.IGNORECASE)),
    (Trigger.offer_worse, re.compile(
        r"\bthey (?:offer|bid|ask(?: for)?|want|quote|go)\s+(?:less than|under|below|more than|over|above)\s+"
        r"(?P<amount>.+)$", re.IGNORECASE)),
    (Trigger.deposit, re.compile(r"\b(?:deposit|down ?payment|pay(?:ment)? (?:up ?front|in advance|first))\b",
                                 re.IGNORECASE)),
    (Trigger.bank_details, re.compile(
        r"\b(?:bank|account (?:number|details)|iban|routing|card (?:number|details)|password|pin)\b", re.IGNORECASE)),
    (Trigger.no_meeting, re.compile(
        r"\b(?:won'?t|will not|can'?t|cannot|refuse to|don'?t|do not)\s+(?:want to\s+)?(?:meet|come|see it|view)|"
        r"\bno (?:meeting|viewing)\b|\bwithout (?:meeting|seeing)\b", re.IGNORECASE)),
    (Trigger.shipping, re.compile(r"\b(?:ship(?:ped|ping)?|deliver(?:y|ed)?|courier|freight)\b", re.IGNORECASE)),
    (Trigger.mention, re.compile(
        r"^(?:they|the (?:buyer|seller|desk|provider|other side))\s+(?:ask (?:for|about)|want|mention|insist on|"
        r"require|demand|bring up|talk about|say)\s+(?P<phrase>[\w' -]{3,60})$", re.IGNORECASE)),
]

FORMS = ("they ask for a deposit", "they want it shipped", "they won't meet in person", "they ask for my bank details",
         "no offer above $X after N rounds", "they offer less than $X", "they mention <words>")


def split_conditions(words: str) -> list[str]:
    """“they want a deposit or won't meet in person” -> two conditions (the subject carried over)."""
    parts = [p.strip(" .") for p in re.split(r"\s*(?:;|\bor if\b|\bor\b|\band if\b)\s*", words) if p.strip(" .")]
    out = []
    for part in parts:
        if out and re.match(r"(?:won'?t|will not|can'?t|cannot|refuse|ask|want|insist|require|demand|mention|"
                            r"offer|bid|don'?t|do not)\b", part, re.IGNORECASE):
            part = "they " + part
        out.append(part)
    return out


def read_condition(words: str, scale: Decimal | None = None) -> Condition | None:
    """The condition `words` describe, or None when they fit none of the forms (`FORMS`)."""
    text = " ".join(words.split())[:200]
    for trigger, pattern in _READ:
        match = pattern.search(text)
        if match is None:
            continue
        if trigger in (Trigger.no_offer, Trigger.offer_worse):
            amount = _amount(match.group("amount"), scale)
            if amount is None:
                return None
            rounds = int(match.group("rounds")) if trigger is Trigger.no_offer else None
            return Condition(trigger=trigger, words=text, amount=amount, rounds=rounds)
        if trigger is Trigger.mention:
            phrase = re.sub(r"^(?:a|an|the|my|any|to)\s+", "", match.group("phrase").strip(), flags=re.IGNORECASE)
            return Condition(trigger=trigger, words=text, phrase=phrase) if len(phrase) >= 3 else None
        return Condition(trigger=trigger, words=text)
    # Something the other side does or asks, in any words: matched by meaning. A judgment of Deputy's own
    # ("the vibe is off") is nothing their messages could show, so it stays unread and the user is asked.
    phrase = re.sub(r"^(?:if\s+)?(?:they|the (?:buyer|seller|desk|provider|other side))\s+", "", text, flags=re.IGNORECASE)
    if phrase != text and len(phrase) >= 4 and re.search(r"[a-z]{3}", phrase, re.IGNORECASE):
        return Condition(trigger=Trigger.meaning, words=text, phrase=phrase)
    return None


def _amount(words: str, scale: Decimal | None) -> Decimal | None:
    amounts = [a.value for a in read_amounts(words, scale=scale).amounts if not a.relative]
    if amounts:
        return amounts[0]
    bare = re.match(r"\s*\$?(\d[\d,]*)(\s*k\b)?", words, re.IGNORECASE)
    if bare is None:
        return None
    value = Decimal(bare.group(1).replace(",", ""))
    return value * 1000 if bare.group(2) else value


def read_conditions(walk_away: list[str], scale: Decimal | None = None) -> tuple[list[Condition], list[str]]:
    """The conditions the user's `walk_away` words describe, and the words that could not be read."""
    read, unread = [], []
    for words in walk_away:
        for part in split_conditions(words):
            condition = read_condition(part, scale)
            if condition is None:
                unread.append(part)
            else:
                read.append(condition)
    return read, unread


def conditions_met(conditions: list[Condition], theirs: list[str], rounds: int, offers: list[Decimal],
                   sells: bool, embed: Embed | None = None) -> list[str]:
    """Each condition met, said plainly: by the counterpart's messages `theirs`, our `rounds` of offers to
    them, or their `offers` so far. Words are matched by meaning too (`meaning.says`); a doubtful match
    is listed as “maybe”, so the user decides."""
    said = "\n".join(theirs).replace("’", "'")
    met = []
    for condition in conditions:
        why = _met(condition, said, rounds, offers, sells, embed)
        if why:
            met.append(f"“{condition.words}” ({why})")
    return met


def _met(condition: Condition, said: str, rounds: int, offers: list[Decimal], sells: bool,
         embed: Embed | None = None) -> str | None:
    if condition.trigger in _SIGNS or condition.trigger in (Trigger.mention, Trigger.meaning):
        pattern = _SIGNS.get(condition.trigger)
        if pattern is None and condition.trigger is Trigger.mention:
            assert condition.phrase is not None
            pattern = re.compile(r"\b" + r"\W+".join(map(re.escape, condition.phrase.split())) + r"\b", re.IGNORECASE)
        match = pattern.search(said) if pattern is not None else None
        if match:
            return f"they wrote “{_around(said, match)}”"
        if not said.strip():
            return None
        phrase = condition.phrase or re.sub(r"^they\s+", "", condition.words, flags=re.IGNORECASE)
        for message in reversed(said.split("\n")):
            found = says(phrase, message, embed)
            if found:
                maybe = "" if found == "sure" else "maybe: "
                return f"{maybe}they wrote “{message[:100]}”"
        return None
    assert condition.amount is not None
    if condition.trigger is Trigger.no_offer:
        assert condition.rounds is not None
        if rounds < condition.rounds:
            return None
        reached = any(o > condition.amount if sells else o < condition.amount for o in offers)
        return None if reached else f"after {rounds} rounds no offer of theirs got there"
    worse = [o for o in offers if (o < condition.amount if sells else o > condition.amount)]
    return "they offered that" if worse else None


def _around(text: str, match: re.Match[str], width: int = 40) -> str:
    start, end = max(0, match.start() - width), min(len(text), match.end() + width)
    return ("…" if start else "") + text[start:end].strip() + ("…" if end < len(text) else "")
