"""Provenance (taint) tracking: where did each value in an action come from?

Values that matter for safety (email addresses and their domains, URLs and domains,
account numbers, phone numbers, amounts) are pulled out of an action's targets and
payload and traced against what the goal has seen:

- **trusted**: the user typed it (their messages for this goal) or it is in their
  contacts or settings;
- **tainted**: it appeared only in untrusted content (an email, a web page, an API body),
  and the origin is named so the card can say so;
- **unverified**: it appears nowhere the user or the outside world put it, so the model
  made it up (or rebuilt it from pieces). Neither kind may be auto-approved.

In an action that deletes, shares or changes an account, what it acts on matters as much
as whom it reaches: there every identifier (an id, a name, a number, a channel; the
targets that are not addresses, and the arguments whose names say they hold one) is traced
as an `id`, as a whole token, so "13" is found in "file 13" but not in "2013". An id first
seen in outside content, or seen nowhere, makes the action outside-sourced whatever the
rules say: an injected `delete_file("13")` is never let through by an allow rule. The one
exception is an id the user pointed at by name: acted on (never a recipient), it is the own
id of the one record of a listing whose name the user's words name ("share the packing list"
and the drive's `id: 13, name: packing.txt`; `deputy.sentinel.pointed_items`).

Pure functions; the executor assembles the inputs from Redis.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from decimal import Decimal, InvalidOperation
from enum import Enum
from functools import lru_cache
from typing import Any, Iterable

from pydantic import BaseModel, Field

from deputy.core.records.read_items import ItemSpan
from deputy.sentinel.origins import item_sources
from deputy.sentinel.passages import passage_at
from deputy.sentinel.pointed_items import acted_on, argument_scalars, pointed_record
from deputy.sentinel.textflow import CONFUSABLES, Source, string_fields

MAX_ITEM_CHARS = 20_000

_EMAIL = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>\"')\]]+", re.IGNORECASE)
_DOMAIN = re.compile(r"\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}\b", re.IGNORECASE)
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]){11,30}\b")
_ACCOUNT = re.compile(r"\b\d{6,20}\b")
_PHONE = re.compile(r"\+\d[\d\s().-]{7,18}\d")
_SEPARATORS = re.compile(r"[\s-]")
_HAS_DIGIT = re.compile(r"\d")
_CEILING = re.compile(
    r"(?:under|below|at most|up to|max(?:imum)?|less than|no more than|not more than|budget(?: of)?)\s*"
    r"(?:[$€£]|usd|eur|gbp)?\s*(\d[\d,]*(?:\.\d+)?)",
    re.IGNORECASE,
)
# Thousands are grouped with a comma or a space on the same line ("1,200", "1 200"), never across
# a line break: "$75" at the end of one text and "127.0.0.1" on the next are not 75,127.
_AMOUNT = re.compile(r"(?<![\w.])\d{1,3}(?:[, \u00a0\u202f]\d{3})*(?:\.\d+)?(?![\w])|(?<![\w.])\d+(?:\.\d+)?(?![\w])")


class Trust(str, Enum):
    trusted = "trusted"
    tainted = "tainted"
    unverified = "unverified"


class UntrustedItem(BaseModel):
    origin: str = Field(description='Where it came from, e.g. "an email from x@y.example".')
    text: str
    at: float
    parts: list[ItemSpan] = Field(
        default_factory=list,
        description="The emails, events or records in `text`, each with its own origin (none: split by its shape).")


class ProvenanceContext(BaseModel):
    trusted_texts: list[str] = Field(default_factory=list, description="The user's own words and settings.")
    user_words: list[str] = Field(
        default_factory=list,
        description="Only what the user wrote for this goal (goal text and replies): the source of their intent.",
    )
    contacts: list[str] = Field(default_factory=list)
    untrusted: list[UntrustedItem] = Field(default_factory=list)


class TracedValue(BaseModel):
    kind: str
    value: str
    argument: str
    trust: Trust
    origins: list[str] = Field(default_factory=list, description="Where it was found, first where it appeared first.")
    passage: str | None = Field(default=None, description="What the first origin says around it, as written there.")
    pointed: str | None = Field(
        default=None, description="The record of what was read that the user named and whose own id this is "
                                  "(`deputy.sentinel.pointed_items`): the value is theirs, chosen by that name.")

    def explain(self) -> str:
        if self.trust is Trust.tainted:
            quote = f": “{self.passage}”" if self.passage else ""
            return f"{self.value} comes from {self.origins[0] if self.origins else 'outside content'}, not from you{quote}"
        return f"{self.value} did not come from you or your contacts"


_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_DISGUISED_AT = re.compile(r"\s*[\[(]\s*at\s*[\])]\s*", re.IGNORECASE)
_DISGUISED_DOT = re.compile(r"\s*[\[(]\s*(?:dot|\.)\s*[\])]\s*", re.IGNORECASE)
_TLDS = frozenset(
    "com org net io co uk de fr nl eu us ca au ch es it se no be at info biz app dev example test".split())


def deobfuscate(text: str) -> str:
    """Undo the disguises used to slip an address past a filter ("x (at) evil [.] example", look-alikes)."""
    text = unicodedata.normalize("NFKC", text).translate(_ZERO_WIDTH).translate(CONFUSABLES)
    return _DISGUISED_DOT.sub(".", _DISGUISED_AT.sub("@", text))


def _domains(text: str) -> set[str]:
    """Domains written in `text`, without swallowing the next sentence ("example.org.Next")."""
    found: set[str] = set()
    for match in _DOMAIN.finditer(text):
        raw = match.group(0)
        # A full stop then a capital letter ends a sentence; it does not start a label.
        head = re.split(r"\.(?=[A-Z])", raw, maxsplit=1)[0]
        labels = head.lower().rstrip(".").split(".")
        if len(labels) < 2:
            continue
        found.add(".".join(labels))
        if len(labels) > 2 and labels[-1] not in _TLDS and labels[-2] in _TLDS:
            found.add(".".join(labels[:-1]))  # "example.org.then": a missing space after the full stop
    return found


def _norm(value: str) -> str:
    return value.strip().strip(".,;:").lower()


def domain_of(value: str) -> str | None:
    # The host of a URL first: an "@" in its query ("?who=me@home.example") names no host.
    match = re.match(r"^[a-z][a-z0-9+.-]*://(?:[^@/?#]*@)?([^/:?#]+)", value.strip(), re.IGNORECASE)
    if match:
        return match.group(1).lower().rstrip(".")
    if "@" in value:
        return value.rsplit("@", 1)[1].lower()
    return None


def _amount(value: str) -> Decimal | None:
    try:
        return Decimal(re.sub(r"[, \u00a0\u202f]", "", value))
    except InvalidOperation:
        return None


def values_in(text: str) -> list[tuple[str, str]]:
    """The safety-relevant values in free text, as (kind, value) pairs."""
    found: list[tuple[str, str]] = []
    # Each kind has a character it cannot be written without ("://", "@", a digit, "+"): text without
    # it is not scanned for that kind.
    spans = []
    if "://" in text:
        for match in _URL.finditer(text):
            found.append(("url", match.group(0).rstrip(".,;:")))
            spans.append(match.span())
    if "@" in text:
        for match in _EMAIL.finditer(text):
            inside = [(a, b) for a, b in spans if a <= match.start() < b]
            # An address inside a URL's query is data the URL carries: traced on its own.
            value = match.group(0)
            if inside:
                value = re.split(r"[/?=&#]", value)[-1]
                if not _EMAIL.fullmatch(value):
                    continue
            found.append(("email", value))
    if _HAS_DIGIT.search(text) is None:
        return found
    for match in _IBAN.finditer(text):
        found.append(("account", match.group(0).replace(" ", "")))
    if "+" in text:
        for match in _PHONE.finditer(text):
            found.append(("phone", re.sub(r"[^\d+]", "", match.group(0))))
    return found


class _Corpus:
    """A searchable view of one body of text (lowercased, with digits-only forms)."""

    def __init__(self, texts: Iterable[str]) -> None:
        original = deobfuscate("\n".join(t[:MAX_ITEM_CHARS] for t in texts))
        self.text = original.lower()
        self.compact = re.sub(r"[\s-]", "", self.text)
        self.digits = re.sub(r"[^\d+]", "", self.text)
        self.amounts = {a for m in _AMOUNT.finditer(self.text) if (a := _amount(m.group(0))) is not None}
        ceilings = [a for m in _CEILING.finditer(self.text) if (a := _amount(m.group(1))) is not None]
        self.ceiling = max(ceilings) if ceilings else None
        self.domains = _domains(original)
        self.domains |= {e.rsplit("@", 1)[1].lower() for e in _EMAIL.findall(self.text)}

    def contains(self, kind: str, value: str) -> bool:
        needle = _norm(value)
        if kind == "amount":
            amount = _amount(value)
            if amount is None:
                return False
            # "buy it for at most $20": any amount within the ceiling the user set is theirs.
            return amount in self.amounts or (self.ceiling is not None and amount <= self.ceiling)
        if kind == "domain":
            # Hosts given as addresses (a service on this machine) have no domain shape.
            if re.fullmatch(r"[0-9.:\[\]a-f]+", needle):
                return re.search(rf"(?<![0-9.]){re.escape(needle)}(?![0-9])", self.text) is not None
            return needle in self.domains
        if kind == "phone":
            return len(needle) > 6 and re.sub(r"[^\d+]", "", needle) in self.digits
        if kind == "account":
            return re.sub(r"[\s-]", "", needle) in self.compact
        if kind == "id":
            return bool(needle) and _whole_token(needle).search(self.text) is not None
        return needle in self.text


@lru_cache(maxsize=4096)
def _whole_token(needle: str) -> re.Pattern[str]:
    # Not inside a longer word or number: "13" is not in "2013", "e2" not in "e25" or "1e2.5".
    return re.compile(rf"(?<![\w.]){re.escape(needle)}(?![\w]|\.\d)")


@lru_cache(maxsize=4096)
def _corpus(texts: tuple[str, ...]) -> _Corpus:
    return _Corpus(texts)


_last_sources: tuple[ProvenanceContext, list[UntrustedItem], int, object, list[Source]] | None = None


def untrusted_sources(context: ProvenanceContext) -> list[Source]:
    """The goal's outside content in the order it was read, one source per email, event or
    record where a reading holds several. Read only: one decision asks for them several times
    (every traced value, the copies, the card's origins), so the last context's are kept while
    it holds the same readings."""
    global _last_sources
    last, items = _last_sources, context.untrusted
    newest = items[-1] if items else None
    if last is not None and last[0] is context and last[1] is items and last[2] == len(items) and last[3] is newest:
        return last[4]
    found = [source for item in items for source in item_sources(item, MAX_ITEM_CHARS)]
    _last_sources = (context, items, len(items), newest, found)
    return found


def trace_value(kind: str, value: str, argument: str, context: ProvenanceContext) -> TracedValue:
    return _traced(kind, value, argument, _trusted_corpus(context), untrusted_sources(context))


def _trusted_corpus(context: ProvenanceContext) -> _Corpus:
    return _corpus((*context.trusted_texts, *context.contacts))


def _traced(kind: str, value: str, argument: str, trusted: _Corpus, sources: list[Source]) -> TracedValue:
    if trusted.contains(kind, value):
        return _value(kind, value, argument, Trust.trusted)
    holding = [s for s in sources if _corpus((s.text,)).contains(kind, value)]
    if not holding:
        return _value(kind, value, argument, Trust.unverified)
    if kind == "domain":
        # A site is named where it is written as a site ("https://evil.example/…"), not by a sender's
        # address at that domain: the item that gave the address comes first, in reading order.
        site = _site(value)
        holding = sorted(holding, key=lambda s: site.search(s.text) is None)
    return _value(kind, value, argument, Trust.tainted, list(dict.fromkeys(s.origin for s in holding)),
                  value_passage(kind, value, holding[0].text))


def _value(kind: str, value: str, argument: str, trust: Trust, origins: list[str] | None = None,
           passage: str | None = None) -> TracedValue:
    return TracedValue(kind=kind, value=value, argument=argument, trust=trust, origins=origins or [], passage=passage)


@lru_cache(maxsize=4096)
def value_passage(kind: str, value: str, text: str) -> str | None:
    """The passage of `text` that holds `value` (its line or sentence, as written), if it can be found
    as written; a disguised spelling ("x (at) evil [.] example") is found in the text undisguised.
    Memoised: the executor and the agent review the same values against the same content."""
    pattern = _written(kind, value)
    if pattern is None:
        return None
    for candidate in (text, None):
        candidate = text if candidate is not None else deobfuscate(text)
        found = [passage_at(candidate, m.start(), m.end()) for m in itertools.islice(pattern.finditer(candidate), 8)]
        if found:
            # Where it is said in words ("delete file 14, it is obsolete") tells more than a bare field ("id: 14").
            return next((p for p in found if len(p) > len(value) + 20), max(found, key=len))
    return None


@lru_cache(maxsize=1024)
def _site(domain: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![@\w.-])(?:[\w-]+\.)*{re.escape(domain)}(?![\w-]|\.\w)", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _written(kind: str, value: str) -> re.Pattern[str] | None:
    needle = _norm(value)
    if not needle:
        return None
    if kind in ("phone", "account"):
        # Written with spaces, dots or dashes between the digits ("+44 7700 900123").
        return re.compile(r"[\s().-]*".join(map(re.escape, re.sub(r"[\s().-]", "", needle))), re.IGNORECASE)
    if kind == "amount":
        return re.compile(rf"(?<![\w.]){re.escape(needle)}(?![\w])", re.IGNORECASE)
    if kind == "id":
        return re.compile(rf"(?<![\w.]){re.escape(needle)}(?![\w]|\.\d)", re.IGNORECASE)
    return re.compile(re.escape(needle), re.IGNORECASE)


# Argument names whose value identifies something ("file_id", "channelName", "record", "to").
_IDENTIFIER_WORDS = frozenset({
    "id", "ids", "uid", "uuid", "key", "ref", "slug", "handle", "name", "names", "username", "user", "users",
    "channel", "channels", "file", "files", "filename", "path", "number", "account", "iban", "record", "records",
    "recipient", "recipients", "member", "members", "folder", "document", "item", "items", "to", "target",
})
MAX_ID_CHARS = 120


def identifier_fields(arguments: Any) -> Iterable[tuple[str, str]]:
    """(dotted path, value) of every argument whose name says it identifies something, numbers included."""
    for path, value in argument_scalars(arguments):
        words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", path.rsplit(".", 1)[-1])
        last = re.split(r"[^A-Za-z0-9]+", words.lower().strip(" _-"))[-1]
        if value and len(value) <= MAX_ID_CHARS and "\n" not in value and last in _IDENTIFIER_WORDS:
            yield path, value


def trace_action(
    targets: list[str], arguments: dict[str, Any], amount: Decimal | None, context: ProvenanceContext,
    *, identifiers: bool = False,
) -> list[TracedValue]:
    """Trace the action's targets, amount and the sensitive values inside its payload; with
    `identifiers` (a delete, share or account change), every identifier in it too."""
    traced: list[TracedValue] = []
    seen: set[str] = set()
    trusted, sources = _trusted_corpus(context), untrusted_sources(context)

    def add(kind: str, value: str, argument: str) -> None:
        # One value is listed once, whether it is a target and also in the payload (an IBAN).
        key = _SEPARATORS.sub("", _norm(value))
        if key not in seen:
            seen.add(key)
            traced.append(_traced(kind, value, argument, trusted, sources))

    # A target the arguments hold is one the model picked (a file id); one they don't is the
    # operation's own (an imported tool's server and name), which no injection can choose.
    chosen = {v.lower() for _, v in argument_scalars(arguments)} if identifiers else set()
    for target in targets:
        kind = "email" if _EMAIL.fullmatch(target.strip()) else ("url" if "://" in target else "name")
        if kind == "url":
            # For a web target, what must be traceable is the site, not every path on it.
            domain = domain_of(target)
            add("domain", domain or target, "target")
        elif kind == "email":
            add("email", target, "target")
        else:
            add("id" if target.strip().lower() in chosen else "name", target, "target")
    if amount is not None:
        add("amount", str(amount), "amount")
    for name, value in string_fields(arguments):
        for kind, found in values_in(value):
            if kind == "url":
                add("domain", domain_of(found) or found, name)
            else:
                add(kind, found, name)
    if identifiers:
        for name, value in identifier_fields(arguments):
            if _EMAIL.fullmatch(value) or "://" in value:
                continue  # addresses are traced as addresses above
            add("id", value, name)
        traced = [_pointed(v, arguments, context) for v in traced]
    return traced


def _pointed(value: TracedValue, arguments: dict[str, Any], context: ProvenanceContext) -> TracedValue:
    """An id read from a listing that acts on the one record the user named by its name is theirs."""
    if value.kind != "id" or value.trust is not Trust.tainted or not acted_on(value.value, arguments):
        return value
    record = pointed_record(value.value, untrusted_sources(context), context.user_words)
    if record is None:
        return value
    return value.model_copy(update={"trust": Trust.trusted, "origins": [record.origin], "passage": None,
                                    "pointed": record.origin})
