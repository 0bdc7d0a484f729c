"""A bare hour the user moves something to ("move it to 4 instead", "make it 6"), read as a clock time.

"4" alone is no time: it may be a count, a table number, a floor. Said as where something goes
("move it to 4", "push it to 5", "make it 6", a message "4 instead") right after a request with a day and
a time, it is the new clock time on that day, and people mean the daytime hour ("at 4" is 16:00).
The words are handed to the time resolver as "at 4", which reads them so; the day comes from
whatever day the user named (the earlier request's, in a follow-up), as for any clock time said
alone. Only these phrasings count, so "make it 4 people" or "table 4 instead" stay numbers.
"""

from __future__ import annotations

import re

_NOT_A_CLOCK = r"(?![:.]\d)"
_MOVED_TO = re.compile(
    rf"\b(?P<verb>(?:move|moved|push|pushed|shift|change|changed|reschedule|make)\s+(?:it|that|this|them)"
    rf"(?:\s+(?:to|till|until))?)\s+(?P<h>\d{{1,2}})"
    rf"(?=\s*(?:instead\b(?!\s+of)|please\b|then\b|on\b|today\b|tomorrow\b|[.!?,]|$)){_NOT_A_CLOCK}",
    re.IGNORECASE)
_INSTEAD = re.compile(r"^\s*(?P<h>\d{1,2})\s+instead\b", re.IGNORECASE)  # the whole answer: "4 instead"


def with_moved_hours(text: str) -> str:
    """`text` with each bare hour said as where something moves written "at N" (else unchanged)."""
    text = _MOVED_TO.sub(lambda m: f"{m['verb']} at {m['h']}" if _hour(m["h"]) else m.group(0), text)
    return _INSTEAD.sub(lambda m: f"at {m['h']} instead" if _hour(m["h"]) else m.group(0), text)


def _hour(digits: str) -> bool:
    return 1 <= int(digits) <= 23
