"""An answer that says the calendar holds nothing, when the read in front of the model shows something.

"Do I have anything on the 24th?" read the 24th, found "Busy: 1 — 19:00–22:00: Dinner at Anna's", and a
small model answered "I don't have anything on the 24th." Grounding finds specifics nothing backs; a claim
of *nothing* has no specifics, so it needs its own check: the goal's latest calendar read listed events or
busy times, and the answer names none of them but says there is nothing. Pure functions; `answer_check`
decides what happens (sent back once, then replaced by what the read showed).
"""

from __future__ import annotations

import re

from deputy.agent.goals import Goal

_NOTHING = re.compile(
    r"\b(?:nothing|not anything|don'?t have anything|do not have anything|no (?:events?|meetings?|appointments?|plans?)"
    r"|you(?:'re| are) (?:completely |totally )?free|free all day|(?:calendar|day) is (?:empty|clear)|"
    r"nichts|keine (?:termine|ereignisse|besprechungen)|nada|ningún|ninguna|no tienes|rien|aucun|aucune|niente|"
    r"nessun|nessuna|nenhum|nenhuma|niets|geen afspraken)\b", re.IGNORECASE)
# What the calendar tools answer when they found something (`deputy.connectors.calendar.render`).
_FOUND = re.compile(r"^(?:Events from .*: [1-9]\d*|Busy: [1-9]\d*)$", re.MULTILINE)
_CALENDAR_READS = frozenset({"list_events", "free_busy"})
_ENTRY = re.compile(r"^- (.+)$", re.MULTILINE)
_NOT_TITLE = re.compile(r"\[[^\]]*\]|\bid=\S+|\d")
_WORD = re.compile(r"[^\W\d_]{4,}")
_CALENDAR_WORDS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april june july august september "
    "october november december".split())


def contradicted(goal: Goal, text: str) -> list[str]:
    """The entries of the goal's latest calendar read, when `text` says there is nothing and names none of them."""
    if not _NOTHING.search(text):
        return []
    found = _latest_calendar_read(goal)
    if found is None or not _FOUND.search(found):
        return []
    entries = [entry.strip() for entry in _ENTRY.findall(found)]
    named = {word for entry in entries for word in _WORD.findall(_NOT_TITLE.sub(" ", entry).casefold())}
    if (named - _CALENDAR_WORDS) & set(_WORD.findall(text.casefold())):
        return []  # it names what is on, so its "nothing" is about something else
    return entries


def _latest_calendar_read(goal: Goal) -> str | None:
    """The result of the goal's latest list_events or free_busy call, or None."""
    names: dict[str, str] = {}
    for message in goal.messages:
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict):
                names[call.get("id", "")] = call.get("function", {}).get("name", "")
    for message in reversed(goal.messages):
        content = message.get("content")
        if message.get("role") == "tool" and isinstance(content, str) \
                and names.get(message.get("tool_call_id", "")) in _CALENDAR_READS and not content.startswith("(Deputy)"):
            return content
    return None


def what_the_read_showed(entries: list[str]) -> str:
    """Deputy's own answer in place of a "nothing" the read contradicts: what the calendar showed."""
    shown = "\n".join(f"- {entry}" for entry in entries[:10])
    return f"Here is what your calendar shows then:\n{shown}"
