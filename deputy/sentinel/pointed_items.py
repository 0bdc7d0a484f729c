"""An id the user's own words point to: the one listed record they named, by its name.

"List my drive files and share the packing list with carol@…": the file id the model passes
("13") was read from the drive's listing, not typed by the user, yet the user chose the file,
by its name. The record that holds the id as its own (its `id`, `file_id`... field) and whose
name (`name`, `filename`, `title`) the user's words name in full is what they pointed at; the
id is then theirs, as if typed, with the record named so the card and the audit can say so.

Only what an action acts on (a file, a record, a channel) is pointed at this way, never whom it
reaches: a listing may hold an account someone named "bob" so that "add bob" picks theirs. And
only one record may fit: where the user's words name two ("the budget" beside
`budget-2023.xlsx` and `budget-2024.xlsx`), or where the id sits in some other record's text,
nothing is pointed at and the id stays outside content. A record's fields are read as the
listing lays them out (`record_fields`): text inside a field (a file's content that says
"id: 12") is never a field. Pure functions.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable, Sequence

from deputy.core.records.record_listings import record_fields
from deputy.sentinel.textflow import Source

# A record's own id, and its name, by the last word of the field's name ("file_id", "fileName").
_ID_FIELDS = frozenset({"id", "uid", "uuid", "key", "slug", "ref"})
_NAME_FIELDS = frozenset({"name", "filename", "title"})
# Argument names (their words) that say the value receives something rather than being acted on.
_RECIPIENT_WORDS = frozenset({
    "to", "cc", "bcc", "recipient", "recipients", "user", "users", "member", "members", "email", "emails", "phone",
    "address", "addresses", "people", "person", "invitee", "invitees", "attendees", "participants", "payee",
    "username", "handle", "contact", "contacts", "assignee", "collaborator", "collaborators", "account", "iban",
})
# Words of a name that tell no item from another: "Untitled copy.docx" names nothing.
_VAGUE = frozenset({"file", "files", "doc", "docs", "document", "untitled", "copy", "new", "final", "the", "and",
                    "for", "of", "my"})
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")
_WORD = re.compile(r"[^\W_]+")
MAX_RECORDS = 400
"""Records looked at per action: a longer reading names nothing by its name."""


def words_of(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def acted_on(value: str, arguments: Any) -> bool:
    """Every argument that holds `value` is something acted on (a file, a record), none a recipient."""
    paths = [path for path, text in argument_scalars(arguments) if text == value]
    return bool(paths) and not any(_RECIPIENT_WORDS & set(words_of(part)) for path in paths
                                   for part in path.split("."))


def pointed_record(value: str, sources: Sequence[Source], user_words: Sequence[str]) -> Source | None:
    """The one record of `sources` whose own id is `value` and whose name the user's words name
    in full, when exactly one record's name is named; else None."""
    said = _said(tuple(user_words))
    if not said:
        return None
    # The same record read twice (a listing opened again) is still one record.
    named = list({s.text: s for s in sources[:MAX_RECORDS]
                  if (name := _record(s.text)[1]) and _names(said, name)}.values())
    if len(named) != 1:
        return None
    own_ids, _ = _record(named[0].text)
    return named[0] if value.strip().lower() in own_ids else None


@lru_cache(maxsize=4096)
def _record(text: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """(the record's own ids, lowercased; the distinctive words of its name) for one source's text."""
    if len(text) > 20_000:
        return frozenset(), ()
    fields = record_fields(text)
    ids: set[str] = set()
    name: tuple[str, ...] = ()
    for key, field in fields.items():
        last = (words_of(str(key)) or [""])[-1]
        if isinstance(field, bool) or not isinstance(field, (str, int)):
            continue
        if last in _ID_FIELDS:
            ids.add(str(field).strip().lower())
        elif last in _NAME_FIELDS and not name and isinstance(field, str):
            name = _name_words(field)
    return frozenset(ids), name


def _name_words(name: str) -> tuple[str, ...]:
    words = tuple(w.lower() for w in _WORD.findall(_EXTENSION.sub("", name.strip())))
    # A name must hold a word that tells it apart (four letters or more, not "file" or "copy").
    if not any(len(w) >= 4 and not w.isdigit() and w not in _VAGUE for w in words):
        return ()
    return tuple(w for w in words if w not in _VAGUE)


@lru_cache(maxsize=1024)
def _said(user_words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w.lower() for text in user_words for w in _WORD.findall(text))


def _names(said: frozenset[str], name: tuple[str, ...]) -> bool:
    """Every word of the name is in the user's words (a plural or a singular of it too)."""
    return all(w in said or f"{w}s" in said or f"{w}es" in said or (w.endswith("s") and w[:-1] in said)
               for w in name)


def argument_scalars(arguments: Any, path: str = "") -> Iterable[tuple[str, str]]:
    """(dotted path, text) of every string and whole number inside an action's arguments."""
    if isinstance(arguments, dict):
        for key, item in arguments.items():
            yield from argument_scalars(item, f"{path}.{key}" if path else str(key))
    elif isinstance(arguments, (list, tuple)):
        for item in arguments:
            yield from argument_scalars(item, path)
    elif isinstance(arguments, (str, int)) and not isinstance(arguments, bool) and path:
        yield path, str(arguments).strip()


__all__ = ["acted_on", "argument_scalars", "pointed_record"]
