"""Days and times said in German, Spanish, French, Italian, Portuguese or Dutch, put into English words.

Deputy's time reader (`deputy.agent.time.time_words`) reads English: "Thursday from 15:00 to 16:00",
"tomorrow at 9", "10 December". A user writing "Donnerstag von 15 bis 16 Uhr" or "mañana a las 9"
meant exactly that, and the reader found no time in it, so a calendar entry was refused as having
"no day or time". Rather than a second reader per language, the words that say when are put into
the English the reader knows: weekdays, months (next to a day's number), today/tomorrow and their
neighbours, parts of the day, "next", clock times ("15 Uhr", "15h30", "15 uur") and the little words
around them ("um", "a las", "à", "alle", "às", "om"; "von … bis", "de … à"). Words that are not about
time are left as they are. Pure function; English text comes back unchanged.
"""

from __future__ import annotations

import re

_WEEKDAYS = {
    "monday": "montag|lunes|lundi|luned[iì]|segunda-feira|maandag",
    "tuesday": "dienstag|martes|mardi|marted[iì]|ter[çc]a(?:-feira)?|dinsdag",
    "wednesday": "mittwoch|mi[ée]rcoles|mercredi|mercoled[iì]|quarta-feira|woensdag",
    "thursday": "donnerstag|jueves|jeudi|gioved[iì]|quinta-feira|donderdag",
    "friday": "freitag|viernes|vendredi|venerd[iì]|sexta(?:-feira)?|vrijdag",
    "saturday": "samstag|sonnabend|s[áa]bado|samedi|sabato|zaterdag",
    "sunday": "sonntag|domingo|dimanche|domenica|zondag",
}
_MONTHS = {
    "january": "januar|enero|janvier|gennaio|janeiro|januari|jänner",
    "february": "februar|febrero|f[ée]vrier|febbraio|fevereiro|februari",
    "march": "m[äa]rz|marzo|mars|mar[çc]o|maart",
    "april": "abril|avril|aprile",
    "may": "mai|mayo|maggio|maio|mei",
    "june": "juni|junio|juin|giugno|junho",
    "july": "juli|julio|juillet|luglio|julho",
    "august": "agosto|ao[ûu]t|augustus",
    "september": "septiembre|settembre|setembro",
    "october": "oktober|octubre|octobre|ottobre|outubro",
    "november": "noviembre|novembre|novembro",
    "december": "dezember|diciembre|d[ée]cembre|dicembre|dezembro",
}
_WEEKDAY = "|".join(f"(?:{words})" for words in _WEEKDAYS.values())
_CLOCK = r"\d{1,2}(?::\d{2})?"

# Order matters: longer phrases first ("pasado mañana" before "mañana", "heute morgen" before "morgen").
_RULES: list[tuple[str, str]] = [
    # the day after tomorrow, tomorrow morning, this morning
    (r"\b(?:übermorgen|uebermorgen|pasado mañana|apr[èe]s-demain|dopodomani|depois de amanh[ãa]|overmorgen)\b",
     "the day after tomorrow"),
    (r"\b(?:morgen früh|morgen frueh|mañana por la mañana|demain matin|domani mattina|amanh[ãa] de manh[ãa]|"
     r"morgenochtend)\b", "tomorrow morning"),
    (r"\b(?:heute morgen|heute früh|esta mañana|ce matin|stamattina|questa mattina|hoje de manh[ãa]|"
     r"vanochtend|vanmorgen)\b", "this morning"),
    (r"\b(?:heute abend|esta noche|ce soir|stasera|hoje à noite|vanavond)\b", "tonight"),
    (r"\b(?:heute nachmittag|esta tarde|cet apr[èe]s-midi|oggi pomeriggio|hoje à tarde|vanmiddag)\b",
     "this afternoon"),
    (r"\b(?:heute|hoy|aujourd'hui|aujourd’hui|oggi|hoje|vandaag)\b", "today"),
    (r"\b(?:gestern|ayer|hier|ieri|ontem|gisteren)\b", "yesterday"),
    (r"\b(?:am morgen|por la mañana|le matin|di mattina|de manh[ãa]|'s ochtends|’s ochtends)\b", "in the morning"),
    (r"\b(?:mañana|demain|domani|amanh[ãa]|morgen)\b", "tomorrow"),
    # parts of the day
    (r"\b(?:nachmittags?|por la tarde|l'apr[èe]s-midi|apr[èe]s-midi|(?:di |nel )?pomeriggio|à tarde|"
     r"'s middags|’s middags)\b", "in the afternoon"),
    (r"\b(?:vormittags?|morgens|matin|mattina|ochtend)\b", "morning"),
    (r"\b(?:abends?|por la noche|le soir|di sera|à noite|'s avonds|’s avonds)\b", "in the evening"),
    (r"\b(?:mittags?|mediod[ií]a|midi|mezzogiorno|meio-dia)\b", "noon"),
    # weeks and weekends
    (r"\b(?:nächste woche|naechste woche|kommende woche|la semana que viene|la pr[óo]xima semana|"
     r"la semaine prochaine|la prossima settimana|la settimana prossima|a pr[óo]xima semana|"
     r"a semana que vem|semana que vem|volgende week)\b", "next week"),
    (r"\b(?:diese woche|esta semana|cette semaine|questa settimana|deze week)\b", "this week"),
    (r"\b(?:am wochenende|wochenende|el fin de semana|fin de semana|le week-end|ce week-end|"
     r"il fine settimana|fine settimana|o fim de semana|fim de semana|het weekend|dit weekend)\b", "the weekend"),
]
# "nächsten Montag", "el próximo lunes", "lundi prochain", "lunedì prossimo", "volgende maandag", "jueves que viene"
_NEXT_BEFORE = re.compile(rf"\b(?:nächsten|naechsten|nächste|kommenden|kommende|(?:el |la )?pr[óo]xim[oa]|"
                          rf"(?:il |la )?prossim[oa]|volgende|(?:na |no )?pr[óo]xim[oa])\s+({_WEEKDAY})\b")
_NEXT_AFTER = re.compile(rf"\b({_WEEKDAY})\s+(?:prochain|prochaine|prossim[oa]|que viene|que vem)\b")
# Portuguese short weekdays ("na quarta"): bare "segunda", "quarta", "quinta" are also ordinals, so only after "na".
_PT_SHORT = re.compile(r"\b(na|nesta|pr[óo]xima|at[ée] a)\s+(segunda|quarta|quinta)\b(?!-)")
_PT_DAYS = {"segunda": "monday", "quarta": "wednesday", "quinta": "thursday"}
_ON_DAY = re.compile(rf"\b(?:am|el|le|il|op|no|na|o|a)\s+({_WEEKDAY})\b")
# "15 Uhr", "15.30 Uhr", "15h30", "15 h", "15 uur"
_UHR = re.compile(r"\b(\d{1,2})(?:[.:h](\d{2}))?\s*(?:uhr|uur)\b")
_H = re.compile(r"(?<!\bin )\b(\d{1,2})\s?h(?:(\d{2})\b|\b)")  # not "in 2h" (two hours from now)
_AT = re.compile(rf"\b(?:um|a las|a la|alle|all'|à|às|om|vers|gegen|sobre las|verso le)\s+({_CLOCK})\b")
_FROM_TO = re.compile(rf"\b(?:von|de|desde las?|dalle|dall'|das|van)\s+({_CLOCK})\s+(?:bis|à|a|hasta las?|alle|all'|"
                      rf"às|as|tot)\s+({_CLOCK})\b")
_BETWEEN = re.compile(rf"\b(?:zwischen|entre las?|entre|tra le|fra le|tussen)\s+({_CLOCK})\s+(?:und|y|et|e|en)\s+"
                      rf"({_CLOCK})\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:\.|º|er)?\s+(?:de\s+|di\s+)?({'|'.join(_MONTHS.values())})\b"
                        rf"(?:\s+(?:de\s+)?(\d{{4}}))?")
_MONTH_DAY = re.compile(rf"\b({'|'.join(_MONTHS.values())})\s+(\d{{1,2}})\b")

_COMPILED = [(re.compile(pattern, re.IGNORECASE), words) for pattern, words in _RULES]
_WEEKDAY_NAMES = [(re.compile(rf"\b(?:{words})\b", re.IGNORECASE), day) for day, words in _WEEKDAYS.items()]
_MONTH_NAMES = [(re.compile(rf"^(?:{words})$", re.IGNORECASE), month) for month, words in _MONTHS.items()]


def in_english(text: str) -> str:
    """`text` with the days and times said in the other languages Deputy speaks written as English words."""
    lowered = text.lower()
    if lowered.isascii() and not _maybe_foreign(lowered):
        return text  # plain English: nothing to do, and nothing to disturb
    result = _UHR.sub(lambda m: f"{m[1]}:{m[2] or '00'}", lowered)
    result = _H.sub(lambda m: f"{m[1]}:{m[2] or '00'}", result)
    result = _DAY_MONTH.sub(lambda m: f"{m[1]} {_month(m[2])}" + (f" {m[3]}" if m[3] else ""), result)
    result = _MONTH_DAY.sub(lambda m: f"{_month(m[1])} {m[2]}", result)
    for pattern, words in _COMPILED:
        result = pattern.sub(words, result)
    result = _PT_SHORT.sub(lambda m: f"{m[1]} {_PT_DAYS[m[2]]}", result)
    result = _NEXT_BEFORE.sub(lambda m: f"next {m[1]}", result)
    result = _NEXT_AFTER.sub(lambda m: f"next {m[1]}", result)
    result = _ON_DAY.sub(lambda m: f"on {m[1]}", result)
    for pattern, day in _WEEKDAY_NAMES:
        result = pattern.sub(day, result)
    result = _FROM_TO.sub(r"from \1 to \2", result)
    result = _BETWEEN.sub(r"between \1 and \2", result)
    result = _AT.sub(r"at \1", result)
    return text if result == lowered else result


def _month(word: str) -> str:
    return next((month for pattern, month in _MONTH_NAMES if pattern.match(word)), word)


_FOREIGN_HINT = re.compile(
    r"\b(?:uhr|uur|um|von|bis|heute|morgen|gestern|am|el|la|las|le|il|alle|de|da|das|om|van|tot|hoy|hier|oggi|"
    r"hoje|ontem|ieri|demain|domani|vandaag|gisteren|overmorgen|mai|mei|mars|abril|agosto|"
    + "|".join(_WEEKDAYS.values()) + r")\b|\d\s?h\b|\dh\d")


def _maybe_foreign(lowered: str) -> bool:
    return bool(_FOREIGN_HINT.search(lowered))
