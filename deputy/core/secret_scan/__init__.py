"""Finding secrets in a chat message: one entry point, `find_secrets(text)`.

Pure and fast (well under a millisecond for a chat message): it reads the message once,
folded by `normalise`, and runs every check on that reading. The checks are the security
field's own where one exists: gitleaks' vendor key rules, Shannon entropy for random-looking
tokens, the BIP-39 word list, Luhn and mod-97 checksums, national-ID checksums; and
phrase patterns in several languages for passwords, PINs and codes typed into a sentence.
Context decides what merely resembles a secret (an order or tracking number stays).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deputy.core.secret_scan.answers import answer_hits
from deputy.core.secret_scan.cards import card_hits, code_hits as card_code_hits, iban_hits
from deputy.core.secret_scan.country_ids import country_id_hits
from deputy.core.secret_scan.hits import KINDS, Hit
from deputy.core.secret_scan.learned import learned_spans
from deputy.core.secret_scan.keys import key_hits, private_key_hits
from deputy.core.secret_scan.normalise import normalise
from deputy.core.secret_scan.lock_codes import lock_code_hits
from deputy.core.secret_scan.logins import login_hits, strong_token_hits
from deputy.core.secret_scan.passwords import password_hits, password_shaped
from deputy.core.secret_scan.structured import structured_hits
from deputy.core.secret_scan.split import is_lead, lone_phrase, lone_value, waits_for_value
from deputy.core.secret_scan.national_ids import identity_hits
from deputy.core.secret_scan.variants import variant_hits
from deputy.core.secret_scan.words import code_hits, seed_hits

__all__ = ["KINDS", "Hit", "Scan", "find_secrets", "find_secrets_after", "is_lead", "normalise", "waits_for_value"]

_ORDER = ("private_key", "access_key", "card", "card_code", "seed_phrase", "password", "login", "bank_account",
          "national_id", "one_time_code", "learned")


@dataclass(frozen=True)
class Scan:
    """The message as read (normalised), what was found in it, and the message with each value replaced."""

    text: str
    hits: tuple[Hit, ...]

    @property
    def found(self) -> bool:
        return bool(self.hits)

    @property
    def kind(self) -> str | None:
        return self.hits[0].kind if self.hits else None

    @property
    def label(self) -> str | None:
        return self.hits[0].label if self.hits else None

    def redacted(self, handle: str = "[{label} removed]") -> str:
        """The message with every secret value replaced by a handle that names its kind."""
        out, cursor = [], 0
        for hit in sorted(self.hits, key=lambda h: h.start):
            if hit.start < cursor:
                continue  # overlapping findings: the first one already covers it
            out.append(self.text[cursor: hit.start])
            out.append(handle.format(label=hit.label, kind=hit.kind))
            cursor = hit.end
        out.append(self.text[cursor:])
        return "".join(out)


def find_secrets(text: str) -> Scan:
    original = text = normalise(text)
    private = private_key_hits(text)
    text, marks = _collapse(text, private)  # a key block is found whole: no other check reads its body
    lowered = text.lower()
    ibans = iban_hits(text)
    settings = structured_hits(text)  # a setting's value is read whole, by its key: nothing else cuts it short
    found = [*key_hits(text, lowered), *card_hits(text, ibans), *card_code_hits(text), *seed_hits(text, lowered),
             *password_hits(text), *answer_hits(text), *login_hits(text), *strong_token_hits(text), *ibans,
             *identity_hits(text), *country_id_hits(text),
             *code_hits(text), *lock_code_hits(text)]
    found = [*settings, *(h for h in found if not any(s.start < h.end and h.start < s.end for s in settings))]
    hits = [*private, *(_restore(hit, marks) for hit in found)] if marks else found
    if "\n" in original:
        hits.extend(_label_then_value(original, hits))
    hits.extend(Hit("learned", start, end) for start, end in learned_spans(original, [(h.start, h.end) for h in hits]))
    if hits:
        hits.extend(variant_hits(original, hits))  # "hunter22 oops no: hunter23": the correction is the secret too
    hits.sort(key=lambda h: (_ORDER.index(h.kind), h.start))
    return Scan(original, tuple(_merge(hits)))


def _label_then_value(text: str, hits: list[Hit]) -> list[Hit]:
    """A label on one line and its value alone on the next ("mot de passe du coffre\nancre-pluie-renard-ancre")."""
    found, start, previous = [], 0, None
    for line in text.split("\n"):
        end = start + len(line)
        speaker = _SPEAKER.match(line)  # a pasted chat: "[10:43] Yo: 8119, el candado gris"
        cut = speaker.end() if speaker else 0
        hit = lone_value(line[cut:]) if previous is not None and line[cut:].strip() else None
        if (hit is not None and len(previous) <= 120 and not any(h.start < end and start < h.end for h in hits)
                and _asks_or_leads(previous)):
            found.append(Hit(hit.kind, start + cut + hit.start, start + cut + hit.end))
        previous, start = (line[_SPEAKER.match(line).end():] if _SPEAKER.match(line) else line), end + 1
    return found


# The speaker's mark in a pasted chat: "[10:42] Sofia: ", "10:42 - Sofia: ", "Sofia: ".
_SPEAKER = re.compile(r"[ \t]*(?:\[[^\]\n]{1,25}\][ \t]*(?:-[ \t]*)?|\d{1,2}:\d{2}(?::\d{2})?[ \t]*[-–][ \t]*)"
                      r"(?:[^\W\d_][\w .'-]{0,20}?:[ \t]+)?")


def _asks_or_leads(line: str) -> bool:
    """A line that names a secret and waits for it, or asks for it ("el código del trastero?"): the next is its value."""
    if is_lead(line):
        return True
    stripped = line.rstrip()
    return stripped.endswith("?") and len(stripped) <= 80 and is_lead(stripped.rstrip("?").rstrip() + ":")


def _collapse(text: str, blocks: list[Hit]) -> tuple[str, list[tuple[int, int]]]:
    """`text` with each block replaced by one space, and where (in the new text) how much was cut before."""
    pieces, marks, cursor, removed = [], [], 0, 0
    for block in sorted(blocks, key=lambda h: h.start):
        if block.start < cursor:
            continue
        pieces += [text[cursor: block.start], " "]
        removed += block.end - block.start - 1
        marks.append((block.start - (removed - (block.end - block.start - 1)) + 1, removed))
        cursor = block.end
    return ("".join(pieces) + text[cursor:], marks) if marks else (text, [])


def _restore(hit: Hit, marks: list[tuple[int, int]]) -> Hit:
    def original(index: int) -> int:
        shift = 0
        for after, removed in marks:
            if index >= after:
                shift = removed
        return index + shift
    return Hit(hit.kind, original(hit.start), original(hit.end - 1) + 1)


def _merge(hits: list[Hit]) -> list[Hit]:
    """One finding per place: a password that is also an access key is reported once, over the span of both."""
    kept: list[Hit] = []
    for hit in hits:
        overlapping = [h for h in kept if h.start < hit.end and hit.start < h.end]
        if not overlapping:
            kept.append(hit)
            continue
        first = overlapping[0]
        for other in overlapping[1:]:
            kept.remove(other)
        kept[kept.index(first)] = Hit(first.kind, min(first.start, hit.start, *(h.start for h in overlapping)),
                                      max(first.end, hit.end, *(h.end for h in overlapping)))
    return kept


def find_secrets_after(lead: str | None, text: str) -> Scan:
    """`text` read as the message after `lead`, one that named a secret without its value (`is_lead`), if any.

    Alone first; then as the continuation of the lead ("Das Passwort ist" + "Slide_garden498!" is one
    sentence), keeping what was found in `text`; then, as a lone token, the value the lead announced.
    """
    scan = find_secrets(text)
    if lead is None or any(hit.kind != "learned" for hit in scan.hits):
        return scan
    # Found by the learned detector alone (or not at all): the lead may say what it is ("the wifi password is").
    head = normalise(lead).rstrip().removesuffix("?").rstrip()  # "CVV?" + "417": the answer to its own label
    head += " " if head.endswith((":", "=")) else ": "  # the lead is a label, the message its value
    joined = find_secrets(head + scan.text)
    inside = tuple(Hit(h.kind, h.start - len(head), h.end - len(head)) for h in joined.hits if h.end > len(head))
    if not waits_for_value(lead):  # "reset my github password" went on as a goal: only a value-shaped word is its value
        inside = tuple(h for h in inside if password_shaped(scan.text[max(0, h.start): h.end])
                       or sum(c.isdigit() for c in scan.text[max(0, h.start): h.end]) >= 4)
    if inside:
        return Scan(scan.text, tuple(Hit(h.kind, max(0, h.start), h.end) for h in inside))
    hit = lone_value(scan.text) or lone_phrase(lead, scan.text)
    return Scan(scan.text, (hit,)) if hit is not None else scan
