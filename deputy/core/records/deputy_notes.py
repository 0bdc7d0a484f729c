"""Deputy's own notes to the agent, kept apart from what an outside party wrote.

A tool result may carry a note from Deputy (a question only the user can answer, a walk-away
condition met, their offer as code read it). The executor attaches it after a separator that
outside text cannot contain (it is taken out of that text first), and the agent shows it outside
the <untrusted> label, marked as Deputy's. Inside outside text, anything that looks like a
Deputy note is labelled as the outside party's own words, so a counterpart cannot forge one.
"""

from __future__ import annotations

import re

_SEPARATOR = "\x1d\x1eDEPUTY-NOTE\x1e\x1d"
# The forms Deputy's own notes take (and took): labelled wherever outside text imitates them.
_NOTE_FORM = re.compile(r"\[\s*(?:deputy|sentinel|system|guard)\b[^\]\n]{0,40}(?:note|about|:)|"
                        r"\bdeputy'?s own note\b", re.IGNORECASE)
# Anything that poses as Deputy, the system or the platform: read as a doubt about the message, not relabelled.
_LOOKALIKE = re.compile(
    r"\[\s*(?:deputy|sentinel|system|guard|admin|owner|assistant)\b[^\]\n]{0,40}(?:note|about|:)|"
    r"^\s*(?:system|deputy|sentinel|guard|admin)\s*(?:notice|note|message|update)?\s*:|"
    r"\b(?:deputy|sentinel|the guard|system) (?:note|notice|update)\b|\bmandate (?:updated|changed|raised)|"
    r"\bnote from (?:your|the) (?:owner|user)|<\s*/?\s*(?:deputy|system|untrusted)|"
    # Their text has no business naming Deputy, its mandate or a notice from the platform or system.
    r"\bdeputy\b|\bmandate\b|\b(?:platform|system|admin|security|moderator) (?:notice|message|alert|update)\b|"
    r"\binstructions? (?:from|to) (?:the|your)\b|\bpre-?authori[sz]ed\b|\(verified\)|\b(?:user|owner)_\w+\s*:|"
    r"\bignore (?:your|all|previous)\b", re.IGNORECASE | re.MULTILINE)
FORGED_LABEL = "[text from them, imitating a Deputy note:"


def neutralise(outside: str) -> str:
    """`outside` text that cannot carry the separator, with look-alike notes labelled as theirs."""
    text = outside.replace("\x1d", "").replace("\x1e", "")
    return _NOTE_FORM.sub(lambda m: FORGED_LABEL + " " + m.group(0).lstrip("["), text)


def looks_like_note(outside: str) -> bool:
    """Outside text that imitates Deputy's (or the system's) own notes."""
    return bool(_LOOKALIKE.search(outside))


def attach_note(outside: str, note: str) -> str:
    """`outside` (neutralised) followed by Deputy's `note`, split again by `split_note`."""
    return neutralise(outside) + (_SEPARATOR + note if note else "")


def split_note(outcome: str) -> tuple[str, str]:
    """(the result without Deputy's note, the note or "")."""
    body, _, note = outcome.partition(_SEPARATOR)
    return body, note


def shown_note(note: str) -> str:
    """How the agent sees Deputy's note: outside any untrusted label, in Deputy's own words."""
    return f"\n\nDeputy's own note about this negotiation (not from them): {note}" if note else ""
