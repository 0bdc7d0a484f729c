"""Search filters the user never asked for are left out before a search runs.

A small model fills every parameter a tool has: "find the emails from dave@example.com" comes
back as a search of today's unread mail only (`since` today, `unseen` true), which finds
nothing and tells the user so. A filter narrows what the user sees, so it must come from their
words: a date filter when they named a time, "unread" when they said unread or new. An upper bound of
zero ("max_price": 0 for "buy the book Piranesi") is filler too: it is left out of any read. A search of a
service the user connected (an imported API) keeps a text filter only when its words are the user's own:
"category": "Electronics" for "another pack of AA batteries" found nothing. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from deputy.agent.time.time_words import names_a_time
from deputy.connectors.catalog import Operation
from deputy.core.records.effects import EffectClass

_UNREAD = re.compile(r"\b(?:unread|unseen|new|not (?:yet )?(?:read|opened|seen)|haven'?t (?:read|opened|seen))\b",
                     re.IGNORECASE)

FILTERS: dict[str, Callable[[str], bool]] = {
    "since": names_a_time,
    "unseen": lambda words: bool(_UNREAD.search(words)),
}
"""A search argument, and whether the user's words ask for it."""


def unasked_filters_dropped(operation: Operation, raw: dict[str, Any], user_words: list[str]) -> dict[str, Any]:
    """`raw` without the search filters the user's words do not ask for (reads only; writes are untouched)."""
    if operation.spec.effect is not EffectClass.read:
        return raw
    said = " ".join(user_words)
    accepted = operation.argument_keys()
    required = set((operation.schema or {}).get("required") or []) - operation.argument_keys(optional_only=True)
    imported = operation.spec.connector in _IMPORTED
    return {name: value for name, value in raw.items()
            if (name not in FILTERS or name not in accepted or FILTERS[name](said))
            and not (name not in required and _zero_bound(name, value))
            and not (imported and name not in required and name not in operation.time_arguments
                     and _unsaid_words(value, said))}


_IMPORTED = frozenset({"openapi", "mcp"})
_WORD = re.compile(r"[^\W\d_]{3,}")


def _unsaid_words(value: Any, said: str) -> bool:
    """A text filter with a word the user never said ("category": "Electronics" for "another pack of AA
    batteries", "q": "thai" for an Indian restaurant): the model's filler, which makes a search find nothing."""
    if not isinstance(value, str):
        return False
    theirs = {_stem(word) for word in _WORD.findall(said.casefold())}
    return any(_stem(word) not in theirs for word in _WORD.findall(value.casefold()))


def _stem(word: str) -> str:
    return word[:-2] if word.endswith("es") and len(word) > 4 else word[:-1] if word.endswith("s") and len(word) > 3 else word


_BOUND = re.compile(r"max|limit|budget|upper|below|under|most", re.IGNORECASE)


def _zero_bound(name: str, value: Any) -> bool:
    """An upper bound of nothing ("max_price": 0, "limit": 0): a small model's filler, which would find nothing."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0 and bool(_BOUND.search(name))
