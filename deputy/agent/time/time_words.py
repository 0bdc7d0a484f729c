"""The user's words for a time, turned by code (never by the model) into an instant in their zone.

`resolve_time("Thursday after lunch", now, "Europe/Berlin")` is either `Resolved` (an aware
instant, or a whole day) or `Unclear` (a polite question for the user). Pure: the words, the
current instant and the zone's name are all it reads. It understands ISO dates and times
too, so a model that already wrote "2026-12-03T13:30" is read the same way the calendar
reads it. The conventions for what words leave open (what "after lunch" means, which
Sunday "on Sunday" is) are in `deputy.agent.time.time_conventions`.

The grammar is small on purpose: a day part ("tomorrow", "on Sunday", "the 3rd",
"3 Dec"), a time part ("at 9", "14:00", "2pm", "after lunch") or an amount of time from now
("in two hours"). Anything else left in the words makes it ask rather than guess.

Why not dateparser (checked, version 1.5): it reads "the 3rd at 9" as 9 March and "at 9"
as 1 September, and knows no "after lunch"; fixing its readings would take a grammar of
our own anyway, and this one says exactly what it understands.
"""

from __future__ import annotations

import re
from calendar import monthrange
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from deputy.agent.time.foreign_time_words import in_english
from deputy.agent.time.local_time import moment_words, zone as zone_of
from deputy.agent.time.time_conventions import AFTERNOON_PARTS, BARE_HOUR_PM_UNTIL, PARTS_OF_DAY
from deputy.connectors.calendar.timezones import TimeProblem, localize, parse_moment

_PAST_SLACK = timedelta(minutes=1)  # "now" said a moment ago is not in the past

_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
    "forty five": 45, "forty-five": 45, "ninety": 90, "a couple of": 2, "couple of": 2, "a few": 3,
}
_UNITS = {"minute": timedelta(minutes=1), "min": timedelta(minutes=1), "hour": timedelta(hours=1),
          "hr": timedelta(hours=1), "h": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(weeks=1)}
_WEEKDAYS = {
    "monday": 0, "mon": 0, "tuesday": 1, "tues": 1, "tue": 1, "wednesday": 2, "wed": 2, "thursday": 3,
    "thurs": 3, "thur": 3, "thu": 3, "friday": 4, "fri": 4, "saturday": 5, "sat": 5, "sunday": 6, "sun": 6,
}
_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
    "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sept": 9, "sep": 9,
    "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}
_FILLER = frozenset({"on", "at", "the", "for", "around", "about", "by", "of", "in", "from", "starting", "please",
                     "this", "coming", "next", "approx", "approximately", "-", "@"})

_ORDINAL = r"(?:st|nd|rd|th)"
_WEEKDAY = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_COUNT = "|".join(sorted((re.escape(n) for n in _NUMBERS), key=len, reverse=True))
_PART = "|".join(sorted((re.escape(p) for p in PARTS_OF_DAY), key=len, reverse=True))

_RELATIVE = re.compile(
    rf"\bin (?P<half_first>half an? )?(?P<count>\d+|{_COUNT})?\s*(?P<unit>minute|min|hour|hr|h|day|week)s?"
    rf"(?P<and_half> and a half)?\b")
_WORDS_T_TIME = re.compile(r"([A-Za-z]|\b\d{4})T(\d{1,2}:\d{2})\b")
_HALF_HOUR = re.compile(r"\bin half an hour\b")
_NOW = re.compile(r"\b(?:right )?now\b")
_CLOCK = re.compile(r"\b(?P<h>\d{1,2}):(?P<m>\d{2})\s*(?P<ampm>[ap]\.?m\.?)?(?![\w:])")
_HOUR_AMPM = re.compile(r"\b(?P<h>\d{1,2})\s*(?P<ampm>[ap]\.?m\.?)(?!\w)")
_OCLOCK = re.compile(r"\b(?P<h>\d{1,2})\s*o'?clock\b")
_BARE_HOUR = re.compile(rf"\bat (?P<h>\d{{1,2}})\b(?!\s*{_ORDINAL})(?!\s*(?:{_MONTH})\b)(?![:.]\d)")
_CLOCK_WORDS = r"\d{1,2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?"
# "9 to 11", "from 9:30 till 11am", "between 2 and 4pm", "9-11": a start and an end on one day.
_RANGE = re.compile(
    rf"\b(?:from |between )?(?P<a>{_CLOCK_WORDS})\s*(?:to|till|until|-|–|and)\s*(?P<b>{_CLOCK_WORDS})(?![\w:/.-])"
    rf"(?!\s*(?:{_MONTH}|{_ORDINAL}|people|persons|guests|of us|pax|kids|adults|days|weeks|minutes|hours)\b)")
# "Friday 9", "tomorrow 10": an hour said straight after the day.
_DAY_HOUR = re.compile(
    rf"\b(?:{_WEEKDAY}|today|tomorrow|tmrw|tonight)\.? (?P<h>\d{{1,2}})\b(?!\s*{_ORDINAL})(?!\s*(?:{_MONTH})\b)"
    r"(?![:./-]\d)(?!\s*(?:people|persons|guests|minutes|min|hours|days)\b)")
_PART_OF_DAY = re.compile(rf"\b(?:in the |this |at |around |by )?(?P<part>{_PART})\b")

_DAY_AFTER_TOMORROW = re.compile(r"\b(?:the )?day after tomorrow\b")
_SIMPLE_DAYS = {"today": 0, "tomorrow": 1, "tmrw": 1, "yesterday": -1}
_SIMPLE_DAY = re.compile(r"\b(?P<word>today|tomorrow|tmrw|yesterday)\b")
_WEEKDAY_RE = re.compile(rf"\b(?:(?P<rel>next|this|coming|last) )?(?P<wd>{_WEEKDAY})\.?\b")
_DAY_MONTH = re.compile(
    rf"\b(?:the )?(?P<d>\d{{1,2}}){_ORDINAL}?(?: of)? (?P<mon>{_MONTH})\.?(?: (?P<y>\d{{4}}))?\b")
_MONTH_DAY = re.compile(rf"\b(?P<mon>{_MONTH})\.? (?:the )?(?P<d>\d{{1,2}}){_ORDINAL}?(?:,? (?P<y>\d{{4}}))?\b")
_DAY_OF_MONTH = re.compile(rf"\b(?:the )?(?P<d>\d{{1,2}}){_ORDINAL}\b")
_VAGUE = re.compile(r"\b(?:next week|this week|weekend|next month|later|soon|sometime|some time|asap)\b")


@dataclass(frozen=True)
class Resolved:
    """A time the words named: an aware instant `at` in the user's zone, or a whole `day`."""

    words: str
    zone: str
    at: datetime | None = None
    day: date | None = None
    until: datetime | None = None
    """The end the same words named ("Friday 9 to 11"), if they named one."""

    @property
    def iso(self) -> str:
        """`2026-12-03T13:30+01:00`, or `2026-12-06` for a whole day: what tools and the calendar take."""
        if self.at is not None:
            return self.at.isoformat(timespec="minutes")
        assert self.day is not None
        return self.day.isoformat()

    def shown(self) -> str:
        """`Thu 3 Dec 13:30 CET`, or `Sun 6 Dec (all day)`: as the user reads it on a card."""
        if self.at is not None:
            return moment_words(self.at.timestamp(), self.zone)
        assert self.day is not None
        return f"{self.day:%a} {self.day.day} {self.day:%b} (all day)"


@dataclass(frozen=True)
class Unclear:
    """Words that do not name one time; `question` asks the user, politely, which one they mean."""

    words: str
    question: str


def resolve_time(
    words: str,
    now: datetime | float,
    zone_name: str | None,
    *,
    allow_past: bool = False,
    on_day: date | None = None,
) -> Resolved | Unclear:
    """The time `words` name, said at `now`, in the zone `zone_name` (UTC when None).

    `allow_past` lets a day or time before `now` stand (reading a calendar); otherwise one
    is a question. `on_day` is the day a time-only phrase falls on (an end after a start),
    instead of the next time that clock time comes.
    """
    tz = zone_of(zone_name)
    zone_key = tz.key
    moment_now = (datetime.fromtimestamp(now, tz=tz) if isinstance(now, (int, float))
                  else now.astimezone(tz))
    text = in_english(" ".join(str(words).split()))
    # "Thursday 17 December 2026T16:30": a model mixing the day in words with ISO's "T" before the time.
    text = _WORDS_T_TIME.sub(r"\1 \2", text)
    if not text:
        return Unclear(text, "Which day and time do you mean?")
    if len(text) > 120:
        return Unclear(text[:120], "That is a long way to say a time; which day and time do you mean?")
    iso = _iso(text, tz, zone_key)
    if iso is not None:
        return _not_past(iso, moment_now, allow_past)
    result = _grammar(text, moment_now, tz, zone_key, on_day)
    if isinstance(result, Unclear):
        return result
    return _not_past(result, moment_now, allow_past)


def _iso(text: str, tz: ZoneInfo, zone_key: str) -> Resolved | Unclear | None:
    try:
        value = parse_moment(text)
    except TimeProblem as exc:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", text):
            return Unclear(text, f"I couldn't read that date: {exc}")
        return None
    if not isinstance(value, datetime):
        return Resolved(text, zone_key, day=value)
    if value.tzinfo is None:
        return _wall(text, value, tz, zone_key)
    return Resolved(text, zone_key, at=value.astimezone(tz))


def _wall(text: str, wall: datetime, tz: ZoneInfo, zone_key: str) -> Resolved | Unclear:
    try:
        return Resolved(text, zone_key, at=localize(wall, tz))
    except TimeProblem as exc:
        return Unclear(text, f"{exc} Which time do you mean?")


def _not_past(result: Resolved | Unclear, now: datetime, allow_past: bool) -> Resolved | Unclear:
    if allow_past or isinstance(result, Unclear):
        return result
    if result.at is not None and result.at < now - _PAST_SLACK:
        return Unclear(result.words, f"“{result.words}” would be {result.shown()}, which has already passed. "
                                     "Which day and time do you mean?")
    if result.day is not None and result.day < now.date():
        return Unclear(result.words, f"“{result.words}” would be {result.shown()}, which has already passed. "
                                     "Which day do you mean?")
    return result


def _grammar(text: str, now: datetime, tz: ZoneInfo, zone_key: str, on_day: date | None) -> Resolved | Unclear:
    lowered = text.lower().replace(",", " ").rstrip(".?!")
    lowered = " ".join(lowered.split())
    vague = _VAGUE.search(lowered)
    if vague:
        return Unclear(text, f"“{vague.group(0)}” could be more than one day; which day and time do you mean?")
    rest = lowered
    relative = _HALF_HOUR.search(rest) or _RELATIVE.search(rest)
    elapsed: timedelta | None = None
    day_offset: int | None = None
    if relative:
        amount = _amount(relative)
        if amount is None:
            return _unclear(text)
        if amount >= timedelta(days=1):
            if amount % timedelta(days=1):
                return _unclear(text)
            day_offset = amount // timedelta(days=1)
        else:
            elapsed = amount
        rest = _cut(rest, relative)
    elif _NOW.search(rest):
        elapsed = timedelta(0)
        rest = _cut(rest, _NOW.search(rest))  # type: ignore[arg-type]

    rest, end_words = _range_start(rest)
    if on_day is not None and re.fullmatch(r"\s*\d{1,2}\s*", rest):
        rest = f"at {rest.strip()}"  # an end said as a bare hour ("to 11") on the start's day
    clock, rest, problem = _time_part(rest)
    if problem:
        return Unclear(text, problem)
    part, rest = _part_of_day(rest)
    day, rest, question = _day_part(rest, now.date())
    if question:
        return Unclear(text, question)
    if day_offset is not None:
        if day is not None:
            return _unclear(text)
        day = now.date() + timedelta(days=day_offset)
    # The zone's own short name ("CET", as Deputy shows times) says nothing new; another zone's does.
    own_names = {(now + timedelta(days=days)).tzname() or "" for days in (0, 182)}
    leftover = [w for w in re.split(r"\s+", rest.strip())
                if w and w not in _FILLER and w.upper() not in own_names]
    if leftover:
        return _unclear(text)

    if elapsed is not None:
        if clock is not None or part is not None or day is not None:
            return _unclear(text)
        # Elapsed time whatever the clocks do: aware arithmetic in one zone would add wall-clock time.
        return Resolved(text, zone_key, at=(now.astimezone(timezone.utc) + elapsed).astimezone(tz))
    if clock is None and part is None:
        if day is None:
            return _unclear(text)
        return Resolved(text, zone_key, day=day)
    final = _clock(clock, part)
    if final is None:
        return Unclear(text, f"I couldn't read the time in “{text}”; which time do you mean?")
    if day is None and part == "tonight":
        day = now.date()
    if day is None and on_day is not None:
        day = on_day
    if day is None:
        today = _wall(text, datetime.combine(now.date(), final), tz, zone_key)
        if isinstance(today, Resolved) and today.at is not None and today.at < now - _PAST_SLACK:
            today = _wall(text, datetime.combine(now.date() + timedelta(days=1), final), tz, zone_key)
        return _with_end(today, end_words, part, tz, zone_key)
    return _with_end(_wall(text, datetime.combine(day, final), tz, zone_key), end_words, part, tz, zone_key)


def _range_start(text: str) -> tuple[str, str | None]:
    """A range's start put where a time goes ("friday at 9"), and its end's words ("11"), if there is one.

    An end's "am"/"pm" also tells the start's when the start has none ("2 to 4pm" is 14:00–16:00).
    """
    match = _RANGE.search(text)
    if match is None or (not match.group(0).startswith("between") and " and " in match.group(0)):
        return text, None
    start, end = match["a"].strip(), match["b"].strip()
    if start == end:
        return text, None  # "12-12" is a date, not a range of no length
    end_meridiem = re.search(r"[ap]\.?m\.?$", end)
    if end_meridiem and not re.search(r"[ap]\.?m\.?$", start):
        start_hour, end_hour = (int(re.match(r"\d+", words).group(0)) % 12 for words in (start, end))  # type: ignore[union-attr]
        # "2 to 4pm" is 2pm; "11 to 1pm" is 11am.
        if start_hour <= end_hour:
            start += " " + end_meridiem.group(0)
    return f"{text[:match.start()]} at {start} {text[match.end():]}", end


def _with_end(result: Resolved | Unclear, end_words: str | None, part: str | None, tz: ZoneInfo,
              zone_key: str) -> Resolved | Unclear:
    """The start, with the end a range named on the same day (or the next, past midnight)."""
    if end_words is None or not isinstance(result, Resolved) or result.at is None:
        return result
    said = end_words if re.search(r"[:ap]", end_words) else f"at {end_words}"
    clock, rest, problem = _time_part(said)
    leftover = [word for word in rest.split() if word not in _FILLER]
    final = _clock(clock, part) if clock is not None and not problem and not leftover else None
    if final is None:
        return Unclear(result.words, f"I couldn't read when “{result.words}” ends; which time do you mean?")
    start = result.at.replace(tzinfo=None)
    end = datetime.combine(start.date(), final)
    if end <= start:
        later = end + timedelta(hours=12)
        end = later if later > start and final.hour < 12 else end + timedelta(days=1)
    ended = _wall(result.words, end, tz, zone_key)
    if not isinstance(ended, Resolved) or ended.at is None:
        return result
    return Resolved(result.words, zone_key, at=result.at, until=ended.at)


def _unclear(text: str) -> Unclear:
    return Unclear(text, f"I couldn't tell which day and time you mean by “{text}”. Could you say it like "
                         "“Thursday at 13:30” or “tomorrow at 9”?")


def _cut(text: str, match: re.Match[str]) -> str:
    return f"{text[:match.start()]} {text[match.end():]}"


def _amount(match: re.Match[str]) -> timedelta | None:
    if match.re is _HALF_HOUR:
        return timedelta(minutes=30)
    unit = _UNITS[match["unit"]]
    count_text = match["count"]
    if match["half_first"]:
        if count_text:
            return None
        return unit / 2
    if count_text is None:
        return None
    count = int(count_text) if count_text.isdigit() else _NUMBERS[count_text]
    if count > 10_000:
        return None
    amount = unit * count
    if match["and_half"]:
        amount += unit / 2
    return amount


@dataclass(frozen=True)
class _Clock:
    hour: int
    minute: int
    meridiem: str | None  # "am", "pm" or None
    padded: bool  # written with a leading zero or as 24-hour time: taken as written


def _time_part(text: str) -> tuple[_Clock | None, str, str | None]:
    for pattern in (_CLOCK, _HOUR_AMPM, _OCLOCK, _BARE_HOUR, _DAY_HOUR):
        match = pattern.search(text)
        if match is None:
            continue
        if pattern is _DAY_HOUR:
            # Only the hour is the time: the day before it stays for the day part.
            hour = int(match["h"])
            if hour > 23:
                return None, text, None
            return (_Clock(hour, 0, None, hour >= 13 or match["h"].startswith("0")),
                    f"{text[:match.start('h')]} {text[match.end('h'):]}", None)
        hour_text = match["h"]
        minute = int(match.groupdict().get("m") or 0)
        meridiem = (match.groupdict().get("ampm") or "").replace(".", "")[:2] or None
        hour = int(hour_text)
        if minute > 59 or hour > 23 or (meridiem and not 1 <= hour <= 12):
            return None, text, f"“{match.group(0).strip()}” is not a time of day; which time do you mean?"
        padded = hour_text.startswith("0") or hour >= 13 or hour == 0
        return _Clock(hour, minute, meridiem, padded), _cut(text, match), None
    return None, text, None


def part_of_day_named(words: str) -> str | None:
    """The part of the day `words` name ("afternoon" in "Friday afternoon", "mañana por la tarde"), if any,
    and no clock time beside it ("Friday 3pm in the afternoon" names a time, not a stretch)."""
    text = in_english(" ".join(str(words).split())).lower()
    part, rest = _part_of_day(text)
    if part is None or _time_part(rest)[0] is not None:
        return None
    return part


def _part_of_day(text: str) -> tuple[str | None, str]:
    match = _PART_OF_DAY.search(text)
    if match is None:
        return None, text
    return match["part"], _cut(text, match)


def _clock(clock: _Clock | None, part: str | None) -> time | None:
    if clock is None:
        return PARTS_OF_DAY[part] if part else None
    hour = clock.hour
    if clock.meridiem == "pm" and hour < 12:
        hour += 12
    elif clock.meridiem == "am" and hour == 12:
        hour = 0
    elif clock.meridiem is None and not clock.padded:
        afternoon = part in AFTERNOON_PARTS
        morning = part is not None and not afternoon
        if afternoon and hour < 12:
            hour += 12
        elif not morning and 1 <= hour <= BARE_HOUR_PM_UNTIL:
            hour += 12
    if hour > 23:
        return None
    return time(hour, clock.minute)


def _day_part(text: str, today: date) -> tuple[date | None, str, str | None]:
    """The day the words name, the words left, and a question when the day is open to doubt."""
    match = _DAY_AFTER_TOMORROW.search(text)
    if match:
        return today + timedelta(days=2), _cut(text, match), None
    match = _SIMPLE_DAY.search(text)
    if match:
        return today + timedelta(days=_SIMPLE_DAYS[match["word"]]), _cut(text, match), None
    match = _DAY_MONTH.search(text) or _MONTH_DAY.search(text)
    if match:
        day, question = _month_date(int(match["d"]), _MONTHS[match["mon"]], match["y"], today)
        return _with_weekday(day, _cut(text, match), question)
    match = _DAY_OF_MONTH.search(text)
    if match:
        day, question = _day_of_month(int(match["d"]), today)
        return _with_weekday(day, _cut(text, match), question)
    match = _WEEKDAY_RE.search(text)
    if match:
        day, question = _weekday(_WEEKDAYS[match["wd"]], match["rel"], today)
        return day, _cut(text, match), question
    return None, text, None


def _with_weekday(day: date | None, text: str, question: str | None) -> tuple[date | None, str, str | None]:
    """A date said with its weekday ("Thursday the 3rd"): the two must agree, else ask."""
    match = _WEEKDAY_RE.search(text)
    if match is None or day is None or question:
        return day, text, question
    said = _WEEKDAYS[match["wd"]]
    if said != day.weekday():
        return None, text, (f"{_day_words(day)} is a {_weekday_name(day.weekday())}, not a {_weekday_name(said)}; "
                            "which day do you mean?")
    return day, _cut(text, match), None


def _weekday(weekday: int, relation: str | None, today: date) -> tuple[date | None, str | None]:
    ahead = (weekday - today.weekday()) % 7
    name = _weekday_name(weekday)
    if relation == "last":
        return today - timedelta(days=ahead and 7 - ahead or 7), None
    if ahead:
        return today + timedelta(days=ahead), None
    if relation == "this":
        return today, None
    if relation == "next":
        return today + timedelta(days=7), None
    later = today + timedelta(days=7)
    return None, (f"Today is {name}: do you mean today ({_day_words(today)}) or next {name} "
                  f"({_day_words(later)})?")


def _day_of_month(day: int, today: date) -> tuple[date | None, str | None]:
    if not 1 <= day <= 31:
        return None, f"There is no day {day} in a month; which day do you mean?"
    if day == today.day:
        later = _next_month_with(day, today)
        return None, f"Today is the {_ordinal(day)}: do you mean today ({_day_words(today)}) or {_day_words(later)}?"
    if day > today.day and day <= monthrange(today.year, today.month)[1]:
        return today.replace(day=day), None
    return _next_month_with(day, today), None


def _next_month_with(day: int, today: date) -> date:
    year, month = today.year, today.month
    for _ in range(12):
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        if day <= monthrange(year, month)[1]:
            return date(year, month, day)
    raise AssertionError("every day of the month up to 31 comes within a year")  # pragma: no cover


def _month_date(day: int, month: int, year_text: str | None, today: date) -> tuple[date | None, str | None]:
    years = [int(year_text)] if year_text else [today.year, today.year + 1]
    for year in years:
        try:
            candidate = date(year, month, day)
        except ValueError:
            return None, f"There is no {day} {date(2000, month, 1):%B}; which day do you mean?"
        if year_text or candidate >= today:
            return candidate, None
    raise AssertionError("next year's date is never before today")  # pragma: no cover


def _weekday_name(weekday: int) -> str:
    return date(2024, 1, 1 + weekday).strftime("%A")  # 1 Jan 2024 was a Monday


def _day_words(day: date) -> str:
    return f"{day:%a} {day.day} {day:%b}"


def _ordinal(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"





_SPAN = re.compile(r"(?:(?:for|during|over|in) )?(?:the )?(?P<which>this|next|coming)?\s*(?P<unit>week|weekend|month)")


def resolve_span(words: str, now: datetime | float, zone_name: str | None) -> tuple[date, date] | None:
    """The first and last day of "this week", "next week", "the weekend", "next month"; None for other words.

    For reading a calendar, where a span is a fine answer: a week is Monday to Sunday, the
    weekend the coming (or current) Saturday and Sunday ("next weekend" too, unless it is the
    weekend now), a month from its first to its last day.
    """
    match = _SPAN.fullmatch(" ".join(in_english(str(words)).lower().split()))
    if match is None:
        return None
    tz = zone_of(zone_name)
    today = (datetime.fromtimestamp(now, tz=tz) if isinstance(now, (int, float)) else now.astimezone(tz)).date()
    later = match["which"] in ("next", "coming")
    if match["unit"] == "week":
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=1 if later else 0)
        return monday, monday + timedelta(days=6)
    if match["unit"] == "weekend":
        saturday = today + timedelta(days=(5 - today.weekday()) % 7) if today.weekday() < 5 else \
            today - timedelta(days=today.weekday() - 5)
        saturday += timedelta(weeks=1 if later and today.weekday() >= 5 else 0)  # like "next Friday"
        return saturday, saturday + timedelta(days=1)
    year, month = (today.year + (today.month == 12), today.month % 12 + 1) if later else (today.year, today.month)
    return date(year, month, 1), date(year, month, monthrange(year, month)[1])


_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_ANY_TIME = (_ISO_DATE, _NOW, _RELATIVE, _HALF_HOUR, _CLOCK, _HOUR_AMPM, _OCLOCK, _BARE_HOUR, _PART_OF_DAY,
             _DAY_AFTER_TOMORROW, _SIMPLE_DAY, _WEEKDAY_RE, _DAY_MONTH, _MONTH_DAY, _DAY_OF_MONTH, _VAGUE)


_PHRASE_PARTS = (_DAY_AFTER_TOMORROW, _SIMPLE_DAY, _WEEKDAY_RE, _DAY_MONTH, _MONTH_DAY, _DAY_OF_MONTH, _RANGE,
                 _DAY_HOUR, _CLOCK, _HOUR_AMPM, _OCLOCK, _BARE_HOUR, _PART_OF_DAY, _RELATIVE, _HALF_HOUR)
_PHRASE_GAP = 9  # " on the ", " at ": what may separate the parts of one time


def time_phrase(text: str) -> str | None:
    """The words in `text` that say when, as one phrase ("next Tuesday at 7:30 in the morning"): the
    longest run of day and time words standing together; None when it names no day or time."""
    phrases = time_phrases(text)
    return max(phrases, key=len) if phrases else None


def time_phrases(text: str) -> list[str]:
    """Every run of day and time words standing together in `text`, in order (in English words)."""
    lowered = " ".join(in_english(text).lower().replace(",", " ").split())
    spans = sorted(m.span() for pattern in _PHRASE_PARTS for m in pattern.finditer(lowered))
    runs: list[list[int]] = []
    for start, end in spans:
        if runs and start - runs[-1][1] <= _PHRASE_GAP:
            runs[-1][1] = max(runs[-1][1], end)
        else:
            runs.append([start, end])
    return [lowered[start:end] for start, end in runs]


def names_a_time(text: str) -> bool:
    """Whether `text` says anything about when ("on Sunday", "at 9", "next week", "2026-12-03").

    A write whose time appears in none of the user's words nor anything the goal read was
    made up by the model: Deputy asks instead.
    """
    lowered = " ".join(in_english(text).lower().replace(",", " ").split())
    return any(pattern.search(lowered) for pattern in _ANY_TIME)


__all__ = ["Resolved", "Unclear", "names_a_time", "resolve_span", "resolve_time", "time_phrase", "time_phrases"]
