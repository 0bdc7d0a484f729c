"""The exfiltration check: a request to send private data to an outside address.

Evidence is a send-like verb, a word naming private data, and an address or URL that the
data goes *to* ("to x@y", "at https://...", "send me (x@y)"), within a few sentences.
Found from the rare characters ('@', '://') outwards, so ordinary text costs almost nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable

from deputy.sentinel.detectors.normalize import word_positions

WINDOW = 200
MAX_DESTINATIONS = 64
_NEGATED = re.compile(r"\b(?:never|not|don't|do not|won't|will not|no one|nobody)\b[\w ]{0,15}$")

# "by email", "the post", "an upload" are nouns, not requests.
EXFIL_VERB = re.compile(
    r"\b(?<!by )(?<!via )(?<!an )(?<!the )(?<!your )(?<!this )(?<!of )(?<!a )"
    r"(?:send|sending|forward|forwarding|email|e-mail|mail|post|posting|upload|uploading|transmit|exfiltrate|"
    r"share|copy|leak|paste|submit|export|append|attach|pass along|pass on|hand over|reply|move|transfer|sync|"
    r"drop|envoyez|envoie|envia|envie|sende|leite|inoltra|transferer)\b"
)
# Words that name private data, for the exfiltration check (whole words, after
# punctuation became spaces: "id_rsa" -> "id rsa", "2fa code" -> "2fa code").
SENSITIVE_WORDS = frozenset(
    "password passwords passcode passcodes credential credentials login token tokens secret secrets key keys rsa "
    "code codes otp otps 2fa cookie cookies card cvv statement statements ssn passport birth address addresses "
    "phone contacts conversation history emails inbox attachments files documents document folder tax calendar "
    "availability location passe passworter kalenderdaten historial senhas fichiers contrasenas".split()
)
# Only a destination the data is sent *to*: "to x@y", "at https://...", "send me (x@y)".
# Matched around each '@' / '://' on short slices (see `_destinations`).
SENT_TO = re.compile(
    r"(?:\b(?:to|at|into|via|me|cc|bcc|a|an|para|a la|an die)\W{1,4}|"
    r"\b(?:link|url|endpoint|webhook|form|server)\b[^\n:]{0,25}:\s{0,3})$"
)
LOCAL_PART_REVERSED = re.compile(r"[\w.+-]{1,64}")
DOMAIN = re.compile(r"[\w-]{1,63}(?:\.[\w-]{1,63})+")
SCHEME = re.compile(r"(?:https?|s?ftp)$")
URL_REST = re.compile(r"[^\s\"'<>)]{3,}")
EXFIL_VERB_WORDS = frozenset(
    "send sending forward forwarding email e mail post posting upload uploading transmit exfiltrate share copy leak "
    "paste submit export append attach pass hand drop reply move transfer sync envoyez envoie envia envie sende "
    "leite inoltra transferer".split()
)
EXFIL_WEIGHT = 0.65
EXFIL_REASON = "asks to send private data to an outside address"


def find_exfiltration(text: str, words: frozenset[str]) -> tuple[int, int] | None:
    """The span (in normalised `text`) of a send-private-data-to-an-address request, if any.

    `words` is the set of words in `text` (punctuation as spaces); it rules the check out
    cheaply when no send-like verb or no private-data word occurs at all.
    """
    if words.isdisjoint(EXFIL_VERB_WORDS) or words.isdisjoint(SENSITIVE_WORDS):
        return None
    destinations = _destinations(text)
    if not destinations:
        return None
    verbs = _all_positions(text, words & EXFIL_VERB_WORDS)
    objects = _all_positions(text, words & SENSITIVE_WORDS)
    for start, end in destinations:
        first = bisect_left(verbs, start - WINDOW)
        for at in verbs[first:bisect_left(verbs, start)]:
            if not EXFIL_VERB.match(text, at) or _NEGATED.search(text, max(0, at - 30), at):
                continue  # "by email" is a noun; "we will never ask you to send your password"
            i = bisect_left(objects, at)
            if i < len(objects) and objects[i] <= end + WINDOW:
                return at, max(end, objects[i])
    return None


def _all_positions(text: str, anchors: Iterable[str]) -> list[int]:
    """Sorted whole-word positions of any of `anchors`."""
    found: list[int] = []
    for anchor in anchors:
        found += word_positions(text, anchor, limit=None) or []
    return sorted(found)


def _destinations(text: str) -> list[tuple[int, int]]:
    """Spans of addresses and URLs preceded by 'to', 'at', 'send me'..., found from '@' and '://'."""
    found: list[tuple[int, int]] = []
    at = text.find("@")
    while at > 0 and len(found) < MAX_DESTINATIONS:
        # The local part, read backwards from the '@' so the regex cost stays linear.
        local = LOCAL_PART_REVERSED.match(text[at - 1:max(0, at - 65) or None:-1])
        domain = DOMAIN.match(text, at + 1)
        if local and domain:
            start = at - len(local.group())
            if SENT_TO.search(text[max(0, start - 40):start]):
                found.append((start, domain.end()))
        at = text.find("@", at + 1)
    at = text.find("://")
    while at > 0 and len(found) < 2 * MAX_DESTINATIONS:
        scheme, rest = SCHEME.search(text[max(0, at - 5):at]), URL_REST.match(text, at + 3)
        if scheme and rest:
            start = at - len(scheme.group())
            if SENT_TO.search(text[max(0, start - 40):start]):
                found.append((start, rest.end()))
        at = text.find("://", at + 3)
    return found
