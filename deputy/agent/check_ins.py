"""Check-ins Deputy infers: "the plumber comes tomorrow at 10" said in passing becomes a small offer
to check in after it (or remind before it).

Detection is code, in two parts that must meet in one clause of the user's own words:
- Deputy's time resolver (`deputy.agent.time`) reads a time there that is clearly in the future
  (a day, or a day and a time); words it cannot read, or reads as a question, give no offer;
- the clause says something will happen to or with the user rather than asking Deputy to act: a
  statement frame such as "I have …", "my … is", "… comes", "we're flying …", in any language the
  resolver reads (English, German, Spanish, French, Italian, Portuguese, Dutch).

Questions and reminder requests (those have their own path) are left alone. The model is never
asked, and never supplies the date. Pure functions; `CheckInOffers` keeps the offer for the card.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time

from deputy.agent.time.local_time import moment_words, zone
from deputy.agent.time.time_words import Resolved, resolve_time, time_phrases

HORIZON_DAYS = 60
"""Further ahead than this, a check-in is not offered (the mention is more likely a plan than an event)."""
SOONEST = 30 * 60.0
"""An event less than half an hour away gets no card: there is no time to be useful."""
AFTER = 2 * 3600.0
"""A check-in after an event with a clock time comes two hours after it started."""
BEFORE = 3600.0
EVENING = time(19, 0)
MORNING = time(8, 0)

_SENTENCES = re.compile(r"(?:[^.;!?\n]|\.(?=\S))+[.;!?\n]*")
_CLAUSES = re.compile(r",\s+(?=(?:and|but|so|because|since|und|aber|weil|y|pero|porque|et|mais|parce|"
                      r"e|ma|perché|mas|porque|en|maar|omdat)\b)|\s[-–—]\s", re.IGNORECASE)
_FRAMES = re.compile("|".join((
    # English: I have / we've got / I'm flying / my X is / X comes / X is coming
    r"\b(?:i|we)(?:\s+have|'ve|\s+got|\s+have\s+got|'ve\s+got|'ll\s+have|\s+will\s+have)\b",
    r"\b(?:i|we)(?:'m|\s+am|'re|\s+are)\s+(?:\w+ing|off|due|booked|seeing|meeting)\b",
    r"\b(?:i|we)\s+(?:fly|leave|go|meet|see|start|travel|move|visit|host|drive|sign|close|pick)\b",
    r"\b(?:i|we)(?:'ll|\s+will)\s+(?:be|go|fly|meet|see|start|visit|attend|take|drive|travel)\b",
    r"\b(?:my|our|the|his|her|their)\s+(?:[\w'-]+\s+){0,4}?(?:is|are|comes?|arrives?|starts?|begins?|visits?|"
    r"lands?|opens?|leaves?|departs?|has|have|takes\s+place|will|'s)\b",
    r"\b[\w'-]+\s+(?:comes|is\s+coming|are\s+coming|arrives|visits|is\s+visiting|lands|shows\s+up|turns\s+up|"
    r"drops\s+by|is\s+due|are\s+due|is\s+on)\b",
    # German
    r"\b(?:ich|wir)\s+(?:habe|hab|haben|bin|sind|gehe|gehen|fliege|fliegen|fahre|fahren|treffe|treffen)\b",
    r"\b(?:habe|hab|haben)\s+(?:ich|wir)\b",
    r"\b(?:kommt|kommen|beginnt|beginnen|startet|landet|ist|sind)\b",
    # Spanish
    r"\b(?:tengo|tenemos|voy|vamos|viene|vienen|llega|llegan|empieza|empiezan|comienza|es|son)\b",
    # French
    r"\b(?:j'ai|nous avons|on a|je vais|nous allons|on va|vient|viennent|arrive|arrivent|commence|passe|est)\b",
    # Italian
    r"\b(?:ho|abbiamo|vado|andiamo|viene|vengono|arriva|arrivano|inizia|comincia|passa|è)(?!\w)",
    # Portuguese
    r"\b(?:tenho|temos|vou|vamos|vem|vêm|chega|chegam|começa|é)(?!\w)",
    # Dutch
    r"\b(?:ik|we|wij)\s+(?:heb|hebben|ga|gaan|vlieg|vliegen)\b",
    # ("is" only after a Dutch article or possessive: alone it is every English "X is Y" too)
    r"\b(?:komt|komen|begint|landt)\b|\b(?:de|het|mijn|onze|ons|zijn|haar)\s+(?:[\w'-]+\s+){0,3}?is\b",
)), re.IGNORECASE)
_ADDRESSES = re.compile(r"\b(?:https?://|www\.)\S+|\S+@\S+", re.IGNORECASE)
# A clause that asks Deputy to do something ("pls …", "could you …", "bitte …") or names someone to write to (an
# address) is a request: a time in it is part of what to do or of the message to send ("drop a line to
# sam@… that I'll be late to our 3pm"), not an event said in passing. A statement after it, in a sentence or
# clause of its own ("Could you find a present? His birthday is on Saturday"), still counts.
_REQUEST = re.compile(
    r"^\W*(?:pl(?:ea)?se|pls|plz|kindly|can\s+you|could\s+you|would\s+you|will\s+you|bitte|kannst\s+du|"
    r"könntest\s+du|können\s+sie|könnten\s+sie|por\s+favor|puedes|podrías|podria|pode|podes|poderia|"
    r"s'il\s+(?:te|vous)\s+pla[iî]t|stp|svp|peux-tu|pourrais-tu|pouvez-vous|pourriez-vous|per\s+favore|puoi|"
    r"potresti|può|alsjeblieft|alstublieft|aub|kun\s+je|kan\s+je|kunt\s+u|zou\s+je)\b",
    re.IGNORECASE)
_NOT_AN_EVENT = re.compile(
    r"\bremind|\berinner|\brecu[ée]rda|\brappelle|\bricorda|\blembr|\bherinner|\bsnooze\b", re.IGNORECASE)


@dataclass(frozen=True)
class Mention:
    """A dated event in the user's words: the clause it was said in, and when it is."""

    words: str
    when: Resolved
    starts: float
    """The event's start (a clock time), or the start of its day when only the day was said."""
    has_clock: bool

    def shown(self) -> str:
        return self.when.shown()

    def check_in_at(self) -> float:
        """When to ask how it went: two hours after a timed event, the evening of a day-only one."""
        if self.has_clock:
            return self.starts + AFTER
        return _on_day(self.when, EVENING)

    def remind_at(self, now: float) -> float | None:
        """When to remind before: an hour ahead of a timed event, the morning of a day-only one (None if past)."""
        at = self.starts - BEFORE if self.has_clock else _on_day(self.when, MORNING)
        return at if at > now + 60 else None


def find_mention(text: str, now: float, zone_name: str) -> Mention | None:
    """The first dated event the user mentions in passing in `text`, or None."""
    if not text or _NOT_AN_EVENT.search(text):
        return None
    clauses = [clause for sentence in _SENTENCES.findall(text) if not sentence.rstrip().endswith("?")
               for clause in _CLAUSES.split(sentence.rstrip(".;!\n "))]  # a question is not a mention
    for clause in clauses:
        clause = " ".join(clause.split())
        # Addresses are names, not words: "/today" in a link or "monday@" in an email says no day.
        spoken = _ADDRESSES.sub(" ", clause)
        if len(clause) < 6 or spoken != clause or _REQUEST.search(clause) or not _FRAMES.search(spoken):
            continue
        for phrase in time_phrases(spoken):
            found = _future(phrase, now, zone_name)
            if found is not None:
                return Mention(words=clause, when=found[0], starts=found[1], has_clock=found[0].at is not None)
    return None


def offer_text(mention: Mention) -> str:
    """The small card: what was heard, when code reads it, and the offer."""
    return (f"You mentioned “{mention.words}” ({mention.shown()}). "
            "Shall I check in with you after it, or remind you before?")


def check_in_text(mention_words: str) -> str:
    return f"How did it go? You mentioned “{mention_words}”. Tell me if there's anything to follow up."


def reminder_words(mention_words: str, starts: float, zone_name: str, has_clock: bool) -> str:
    when = moment_words(starts, zone_name) if has_clock else "today"
    return f"coming up {when}: “{mention_words}”"


def _future(phrase: str, now: float, zone_name: str) -> tuple[Resolved, float] | None:
    result = resolve_time(phrase, now, zone_name)
    if not isinstance(result, Resolved):
        return None  # unreadable, or a question: never a card for a time code cannot read
    if result.at is not None:
        starts = result.at.timestamp()
        if starts < now + SOONEST:
            return None
    elif result.day is not None:
        starts = datetime.combine(result.day, time(0, 0), zone(zone_name)).timestamp()
        if _on_day(result, EVENING) < now + SOONEST:
            return None
    else:
        return None
    if starts > now + HORIZON_DAYS * 86400:
        return None
    return result, starts


def _on_day(resolved: Resolved, clock: time) -> float:
    day = resolved.at.date() if resolved.at is not None else resolved.day
    assert day is not None
    return datetime.combine(day, clock, zone(resolved.zone)).timestamp()


__all__ = ["Mention", "check_in_text", "find_mention", "offer_text", "reminder_words"]

