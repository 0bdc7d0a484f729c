"""A secret typed twice, the second time corrected: "hunter22 oops no: hunter23", "4471, nein, 4417".

People fix a mistyped password or number in the next words of the same message, and the wrong
value is one or two characters from the real one: it gives the real one away as well. So once a
check has found a secret, any other value in the message that close to it (the same number of
words, one edit for a short value, two for a longer one) is taken out too. It reads nothing in a
message where no secret was found, so it cannot make a look-alike into a secret.
"""

from __future__ import annotations

import re

from deputy.core.secret_scan.hits import Hit

_TOKEN = re.compile(r"[^\s,;:()\"'“”‘’«»]+")
_TRAILING = ".!?"
_LONGEST = 64  # a key block or a long token is no mistyped value: nobody retypes those
_NEAR = 120  # characters either side of the value where its correction is looked for


def variant_hits(text: str, hits: list[Hit]) -> list[Hit]:
    """Values within one or two edits of a found secret's value, near it and outside every found span."""
    found: list[Hit] = []
    for hit in hits:
        value = text[hit.start: hit.end]
        width = len(value.split())
        if 3 <= len(value) <= 6 and value.isdigit():  # a short code: also two digits swapped ("4821, no, 4812")
            found.extend(_corrected_code(text, hit, (*hits, *found)))
            if len(value) == 3:
                continue
        if not 4 <= len(value) <= _LONGEST or width > 7:
            continue
        allowed, characters = (1 if len(value) < 8 else 2), set(value)
        # A correction follows the value closely (or comes just before it: "hunter23, not hunter22").
        window_start, window_end = max(0, hit.start - _NEAR), min(len(text), hit.end + _NEAR)
        tokens = [(m.start(), m.end() - (len(m.group(0)) - len(m.group(0).rstrip(_TRAILING))))
                  for m in _TOKEN.finditer(text, window_start, window_end)]
        for index in range(len(tokens) - width + 1):
            start, end = tokens[index][0], tokens[index + width - 1][1]
            candidate = text[start: end]
            if abs(len(candidate) - len(value)) > allowed or candidate == value:
                continue
            if len(characters.symmetric_difference(candidate)) > 2 * allowed:
                continue  # each edit changes at most two characters of the set: a quick test before the full one
            if not any(h.start < end and start < h.end for h in (*hits, *found)) and _within(value, candidate, allowed):
                found.append(Hit(hit.kind, start, end))
    return found


# A short code is corrected only where the message says so: "962, ne sorry, 972", "4821, no perdón, 4812".
_CORRECTED = re.compile(r"(?i)\b(?:sorry|oops|no|nein|ne|nee|non|not|wait|i mean|ich meine|je veux dire|quiero decir|"
                        r"cioè|quer dizer|ik bedoel|perd[óo]n|pardon|scusa|desculpa|correction|korrektur|corrigé|"
                        r"falsch|wrong|faux|mal|sbagliato|errado|fout)\b")
_SHORT_CODE = re.compile(r"(?<![\w.,/:-])\d{3,6}(?![\w.,/:%-]|\s?(?:€|\$|£|eur|usd|kg|km|m\b))")


def _corrected_code(text: str, hit: Hit, taken: tuple[Hit, ...]) -> list[Hit]:
    """The digits that correct a short code right after it (one digit changed, or two swapped), after a word that
    corrects."""
    value, found = text[hit.start: hit.end], []
    for match in _SHORT_CODE.finditer(text, hit.end, min(len(text), hit.end + 40)):
        between = text[hit.end: match.start()]
        other = match.group(0)
        if len(other) != len(value):
            continue
        one_apart = sum(a != b for a, b in zip(value, other)) == 1 or sorted(value) == sorted(other) != list(value)
        if (one_apart and _CORRECTED.search(between)
                and not any(h.start < match.end() and match.start() < h.end for h in taken)):
            found.append(Hit(hit.kind, *match.span()))
    return found


def _within(a: str, b: str, limit: int) -> bool:
    """Whether the edit distance between `a` and `b` is at most `limit` (one row at a time, stopping early)."""
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other)))
        if min(current) > limit:
            return False
        previous = current
    return previous[-1] <= limit
