"""The emails closest to a search that matched nothing as written.

A small model searches for what it thinks the email says ("John Doe", "dinner invitation") and an
exact IMAP search of that phrase finds nothing, although the email is there in other words. Then
each word of the search is looked up on its own (sender, subject and text) and the emails sharing
the most of them come back, newest first among equals, marked as the closest rather than a match.
Pure functions; the IMAP calls stay in `deputy.connectors.email.mail_runners`.
"""

from __future__ import annotations

import re
from deputy.connectors.email.imap_format import format_search, search_criteria

CLOSEST = 5
"""At most this many near matches: enough to find the one meant, few enough for a small model to read."""

_WORD = re.compile(r"[^\W_]{3,}")
_COMMON = frozenset("""
    the and for from with about that this your you are was were has have had not but all any can will
    email emails mail message messages subject re fwd fw der die das und von mit el la los las del por para que
    les des une est pour avec
""".split())


_ENDINGS = ("ers", "ing", "er", "ed", "es", "s")


def stem(word: str) -> str:
    """The word's stem for a substring search, so "plumber" finds "plumbing" and "invoices" finds "invoice"."""
    for ending in _ENDINGS:
        if word.lower().endswith(ending) and len(word) - len(ending) >= 4:
            return word[: -len(ending)]
    return word


_ADDRESS = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def guessed_sender(sender: str | None) -> str | None:
    """The sender as a guess worth splitting into words: a name ("John Doe") is, a whole address is not.
    No email from sam@example.org means none came from him; words like "example" would find Bob."""
    return None if sender and _ADDRESS.match(sender.strip()) else sender


def search_words(*terms: str | None) -> list[str]:
    """The distinct stems worth looking up alone, in the order written."""
    seen: list[str] = []
    for term in terms:
        for word in _WORD.findall(term or ""):
            if word.lower() in _COMMON:
                continue
            root = stem(word)
            if root.lower() not in (w.lower() for w in seen):
                seen.append(root)
    return seen[:8]


def word_criteria(word: str) -> tuple[list[str], bytes | None]:
    """IMAP SEARCH for one word anywhere in an email (headers included, so a sender's name counts). No date or
    unread filter: those were part of the guess that matched nothing."""
    return search_criteria(None, None, word, None, False)


def rank_by_words(found: dict[str, list[int]]) -> list[int]:
    """Message uids by how many of the words each contains, then newest (highest uid) first."""
    counts: dict[int, int] = {}
    for uids in found.values():
        for uid in set(uids):
            counts[uid] = counts.get(uid, 0) + 1
    return sorted(counts, key=lambda uid: (-counts[uid], -uid))


def format_closest(folder: str, rows: list, what: str) -> str:
    """The near matches, said as such (never as matches), first: a small model reading "No emails match"
    at the top told the user there were none, though the email it was after was listed below."""
    listed = format_search(folder, len(rows), rows, "some of its words").split("\n", 1)[1]
    return (f"The closest emails in {folder} (sharing some of its words), best first:\n{listed}\n"
            f"(None matched the whole of {what}; if one of these is the email, use its id.)")
