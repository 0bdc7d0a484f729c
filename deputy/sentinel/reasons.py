"""The reasons on a card, in words a person reads: each origin named once, each value's passage quoted.

The decision core (`deputy.sentinel.policy`) decides; this module says why, in one short
card: values grouped by the item they came from (with what that item says around them),
the detector's notes by the item that spoke to the assistant, every reason once, all of them
within `MAX_REASON_CHARS`. Pure functions.
"""

from __future__ import annotations

import re
from functools import lru_cache

from deputy.sentinel.intent import Kind, describe
from deputy.sentinel.origins import item_sources
from deputy.sentinel.provenance import MAX_ITEM_CHARS, ProvenanceContext, TracedValue, Trust
from deputy.sentinel.textflow import Source

MAX_REASON_CHARS = 640
"""All reasons together; with the risk line a card's "why" stays within about 700 characters."""


_INSTRUCTION_CUES = re.compile(
    r"ignore (?:all |your |any )?(?:previous|prior|above)|instructions?\b|assistant|\bAI\b|system notice|do this now",
    re.IGNORECASE)


def warning(notes: list[str], provenance: ProvenanceContext) -> list[str]:
    """The detector's notes ("origin: reason"), each origin once, in one short sentence; an
    inbox search is named by the email(s) in it that address the assistant, not as a whole."""
    if not notes:
        return []
    by_origin: dict[str, list[str]] = {}
    narrowed: dict[str, str] = {}  # several notes about one reading: it is narrowed once
    for note in notes:
        origin, _, reason = note.rpartition(": ")
        origin = origin or "outside content"
        if origin not in narrowed:
            narrowed[origin] = _narrowed(origin, provenance)
        origin = narrowed[origin]
        by_origin.setdefault(origin, [])
        if reason not in by_origin[origin]:
            by_origin[origin].append(reason)
    parts = [f"{short(origin, 140)} ({'; '.join(reasons[:2])})" for origin, reasons in list(by_origin.items())[:2]]
    more = f" and {len(by_origin) - 2} more" if len(by_origin) > 2 else ""
    return ["Something this goal read looked like an attempt to give me instructions: " + "; ".join(parts) + more + "."]


def _narrowed(origin: str, provenance: ProvenanceContext) -> str:
    for item in provenance.untrusted:
        if item.origin != origin:
            continue
        # The item(s) of the reading that address the assistant (one email of a search, the one event read).
        cued = _cued(item_sources(item, MAX_ITEM_CHARS))
        if 0 < len(cued) <= 2:
            return " and ".join(cued)
    return origin


@lru_cache(maxsize=1024)
def _cued(sources: tuple[Source, ...]) -> tuple[str, ...]:
    """The origins of the items that address the assistant (memoised: a goal's readings are weighed at every
    action it takes, and the items of one reading are the same tuple each time, `item_sources`)."""
    return tuple(dict.fromkeys(p.origin for p in sources if _INSTRUCTION_CUES.search(p.text)))


def value_reasons(values: list[TracedValue]) -> list[str]:
    """One sentence per item: "Careful: A and B come from the email from x, 'Invoice', INBOX/7, not
    from you: “…A…”." The item is the first that held each value; what it says around them is quoted."""
    groups: dict[tuple[Trust, str], list[TracedValue]] = {}
    for value in values:
        groups.setdefault((value.trust, value.origins[0] if value.origins else ""), []).append(value)
    reasons = []
    for (trust, origin), group in groups.items():
        shown = [v.value for v in group]
        names = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
        if trust is not Trust.tainted:
            reasons.append(f"Careful: {names} did not come from you or your contacts.")
            continue
        quotes: list[str] = []
        for v in group:  # one quote for values said in the same breath
            if v.passage and not any(v.value.lower() in q.lower() for q in quotes) and len(quotes) < 2:
                quotes.append(v.passage)
        said = ": " + " … ".join(f"“{q}”" for q in quotes) if quotes else ""
        verb = "comes" if len(shown) == 1 else "come"
        reasons.append(f"Careful: {names} {verb} from {origin}, not from you{said}.")
    return reasons


_SAME = (("the email", "that same email"), ("the event", "that same event"), ("the record", "that same record"),
         ("the message", "that same message"), ("the web page", "that same page"), ("the document", "that same document"))


def named_once(reasons: list[str], origins: list[str]) -> list[str]:
    """Each origin spelled out once, where the card first names it; later mentions say "that same email"."""
    if not origins:
        return reasons
    # Longest first, and never inside a longer name ("…, INBOX/1" is not in "…, INBOX/17").
    ordered = sorted(set(origins), key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(o) + r"(?![\w/])" for o in ordered))
    named: set[str] = set()

    def once(match: re.Match[str]) -> str:
        origin = match.group(0)
        if origin not in named:
            named.add(origin)
            return origin
        return next((same for head, same in _SAME if origin.startswith(head)), "that same source")

    return [pattern.sub(once, reason) for reason in reasons]


def steering(kinds: frozenset[Kind], sources: list) -> str:
    origins = list(dict.fromkeys(s.origin for s in sources))
    shown = "; ".join(origins[:2]) + (f" and {len(origins) - 2} more" if len(origins) > 2 else "")
    return (f"You didn't ask me to {describe(kinds)} in this goal, and it has read outside content ({shown}), "
            "which may be what suggested it.")


def fit(reasons: list[str]) -> list[str]:
    """The reasons, each once, cut to fit one short card: the first ones matter most."""
    kept: list[str] = []
    used = 0
    unique = list(dict.fromkeys(reasons))
    for index, reason in enumerate(unique):
        reason = short(reason, 300)
        left = len(unique) - index
        if used + len(reason) + 1 > MAX_REASON_CHARS - (30 if left > 1 else 0) and kept:
            kept.append(f"(and {left} more reason{'s' if left > 1 else ''})")
            break
        kept.append(reason)
        used += len(reason) + 1
    return kept


def short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
