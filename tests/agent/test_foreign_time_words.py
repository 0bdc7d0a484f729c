"""Days and times said in Deputy's other languages are read as the same instants as their English.

Asked on Monday 7 December 2026, 10:00 in Berlin.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from deputy.agent.time.foreign_time_words import in_english
from deputy.agent.time.time_words import Resolved, names_a_time, resolve_time, time_phrase

BERLIN = ZoneInfo("Europe/Berlin")
MONDAY = datetime(2026, 12, 7, 10, 0, tzinfo=BERLIN)


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 12, day, hour, minute, tzinfo=BERLIN)


@pytest.mark.parametrize("words, expected, until", [
    ("Trag mir für Donnerstag von 15 bis 16 Uhr 'Zahnarzt' in den privaten Kalender ein", at(10, 15), at(10, 16)),
    ("am 10. Dezember um 14 Uhr", at(10, 14), None),
    ("morgen früh um 8", at(8, 8), None),
    ("mañana a las 9", at(8, 9), None),
    ("Reserva una mesa para 4 el viernes a las 21", at(11, 21), None),
    ("el próximo lunes a las 10:30", at(14, 10, 30), None),
    ("demain à 15h", at(8, 15), None),
    ("jeudi de 15h à 16h30", at(10, 15), at(10, 16, 30)),
    ("lundi prochain à 9h30", at(14, 9, 30), None),
    ("domani alle 18", at(8, 18), None),
    ("giovedì alle 17:30", at(10, 17, 30), None),
    ("amanhã às 14h", at(8, 14), None),
    ("sexta-feira às 19h", at(11, 19), None),
    ("morgen om 10 uur", at(8, 10), None),
    ("volgende maandag om 9 uur", at(14, 9), None),
])
def test_a_time_said_in_another_language_is_the_instant_it_names(words: str, expected: datetime,
                                                                  until: datetime | None) -> None:
    phrase = time_phrase(words)
    assert phrase is not None and names_a_time(words), words
    result = resolve_time(phrase, MONDAY, "Europe/Berlin")
    assert isinstance(result, Resolved) and result.at == expected, (words, phrase, result)
    if until is not None:
        assert result.until == until


@pytest.mark.parametrize("words", [
    "I am free friday afternoon?", "remind me in 2h to stretch", "email Ann that the demo is at 3pm",
    "move the meeting to 9 am", "Wie viele Tage hat der Februar 2028?", "Was hat meine letzte Bestellung gekostet?",
])
def test_english_and_words_with_no_time_are_left_as_they_are(words: str) -> None:
    assert in_english(words) == words
