"""Reminders: "remind me tomorrow at 9 to call the bank", "every monday at 9am ...", "on the 1st of every month".

`schedule_check` can do all of it, but a small model has to turn "every morning at 8" into `daily_at`
"08:00" and "every monday" into 10,080 minutes from the right first Monday, and it often did not (a
reminder refused, or set for "never"). `remind_me` asks only for what the user said: the text, the
time in their own words, and how it repeats. Code resolves the first time (`deputy.agent.time`), reads
a repeat the user said but the model left out, and turns it into the monitor's schedule; at each time
the reminder goes to the user word for word, with no model call (`WatchSteps`).

Pure functions; the runner hands the resulting `schedule_check` arguments to the usual path.
"""

from __future__ import annotations

import calendar
import re
from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field, ValidationError

Repeat = Literal["none", "daily", "weekly", "monthly"]

MAX_REMINDERS = 500
"""A repeating reminder runs this many times at most (more than a year of days)."""

class RemindArgs(BaseModel):
    text: str = Field(min_length=1, max_length=300)
    when: str = Field(min_length=1, max_length=120)
    repeat: Repeat | None = None


class ReminderProblem(ValueError):
    """The call cannot become a reminder; the message says what to change."""


_DAILY = re.compile(r"\b(?:every (?:day|morning|evening|night|afternoon)|each (?:day|morning|evening)|daily|"
                    r"jeden (?:tag|morgen|abend)|täglich|todos los días|cada (?:día|mañana|noche)|"
                    r"tous les (?:jours|matins|soirs)|chaque (?:jour|matin|soir))\b", re.IGNORECASE)
_WEEKDAY = (r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|week|montag|dienstag|mittwoch|"
            r"donnerstag|freitag|samstag|sonntag|woche|lunes|martes|miércoles|jueves|viernes|sábado|domingo|"
            r"semana|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|semaine)")
_WEEKLY = re.compile(rf"\b(?:every|each|jeden|jede|cada|todos los|tous les|chaque)\s+{_WEEKDAY}s?\b|\bweekly\b|"
                     rf"\bwöchentlich\b|\bsemanal\b|\bhebdomadaire\b|\bmondays\b|\btuesdays\b|\bwednesdays\b|"
                     rf"\bthursdays\b|\bfridays\b|\bsaturdays\b|\bsundays\b", re.IGNORECASE)
_MONTHLY = re.compile(r"\b(?:every|each)\s+month\b|\bof (?:every|each) month\b|\bmonthly\b|\bjeden monat\b|"
                      r"\bmonatlich\b|\bcada mes\b|\btodos los meses\b|\bmensual\b|\btous les mois\b|"
                      r"\bchaque mois\b|\bmensuel", re.IGNORECASE)
def parse_remind(arguments: dict[str, Any]) -> RemindArgs:
    """The call's arguments; a repeat the model wrote in its own way counts as none."""
    raw = dict(arguments)
    if raw.get("repeat") not in (None, "none", "daily", "weekly", "monthly"):
        raw["repeat"] = None
    try:
        return RemindArgs.model_validate(raw)
    except ValidationError as exc:
        raise ReminderProblem("give text (what to remind) and when (the user's words for the time)") from exc


def repeat_said(words: str) -> Repeat:
    """How the user's words say it repeats (none when they say no repeat)."""
    if _MONTHLY.search(words):
        return "monthly"
    if _WEEKLY.search(words):
        return "weekly"
    if _DAILY.search(words):
        return "daily"
    return "none"


def chosen_repeat(args: RemindArgs, user_words: str) -> Repeat:
    """The user's words decide where they say a repeat; else the model's choice; else none."""
    said = repeat_said(user_words)
    if said != "none":
        return said
    return args.repeat or "none"


def first_time_words(when: str) -> str:
    """The time words without their repeat ("every monday at 9am" -> "monday at 9am", "on the 1st of every
    month at 10am" -> "on the 1st at 10am"), so the resolver reads the first occurrence."""
    text = re.sub(r"\b(?:of|de|du)\s+(?:every|each|cada|chaque)\s+(?:month|mes|mois)\b", " ", when, flags=re.I)
    text = re.sub(r"\b(?:every|each|jeden|jede|cada|todos los|tous les|chaque)\s+(?=\w)", "", text, flags=re.I)
    text = re.sub(r"\b(?:daily|weekly|monthly|täglich|wöchentlich|monatlich)\b", " ", text, flags=re.I)
    text = re.sub(r"\b(mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b",
                  lambda m: m.group(1)[:-1], text, flags=re.I)
    return " ".join(text.split()) or when


def schedule_arguments(args: RemindArgs, first_iso: str, repeat: Repeat) -> dict[str, Any]:
    """The `schedule_check` arguments of the reminder, its first time already resolved (ISO, local)."""
    schedule: dict[str, Any] = {"what": args.text, "at": first_iso, "reminder": args.text}
    if repeat == "daily":
        schedule["daily_at"] = first_iso[11:16]
    elif repeat == "weekly":
        schedule["every_minutes"] = 7 * 24 * 60
    elif repeat == "monthly":
        schedule["every_months"] = 1
    schedule["max_checks"] = MAX_REMINDERS if repeat != "none" else 1
    return schedule


def next_monthly(after: float, first: float, zone_name: str) -> float:
    """The first instant after `after` on the same day of the month and local time as `first` (the 31st
    falls on a shorter month's last day)."""
    zone = ZoneInfo(zone_name)
    start = datetime.fromtimestamp(first, zone)
    moment = start
    months = 0
    while moment.timestamp() <= after:
        months += 1
        year, month = divmod(start.month - 1 + months, 12)
        last = calendar.monthrange(start.year + year, month + 1)[1]
        moment = start.replace(year=start.year + year, month=month + 1, day=min(start.day, last))
    return moment.timestamp()


def reminder_text(text: str) -> str:
    """What the user gets at the time."""
    return f"⏰ Reminder: {text.strip()}"


__all__ = ["ReminderProblem", "RemindArgs", "chosen_repeat", "first_time_words", "next_monthly",
           "parse_remind", "reminder_text", "repeat_said", "schedule_arguments"]
