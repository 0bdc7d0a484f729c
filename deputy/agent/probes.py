"""Probes: what a monitor reads at each check, and how code (not the model) compares it.

A probe is one read operation with its arguments (`search_email` from Sam, a ticket
API's `get_event`, a web page) and a comparison:

- `new_items`: the result lists items (email search rows `- INBOX/42 | ...`, JSON objects
  with an id, or else lines); it matters when an item appears that was never seen before;
- `threshold`: a number in a JSON answer (`price`, `sections.*.price`) crosses `below` or
  `above`; it matters on the crossing, not while it stays there;
- `changed`: the answer differs from the last one at all.

`compare` is pure: it takes the probe, the state kept from the last check and the new
result text, and says whether something happened and what the new content is. The state
holds only fingerprints (item keys, the last number, a digest), never the content.

A probe can also watch for something that does *not* happen ("remind me on Friday if Sam
hasn't replied"): `remind_if_none_by` (one reminder when the deadline passes with nothing
new) or `remind_each_check` (a reminder at every check with nothing new, "every morning").
The reminder is the model's own sentence, given at set-up; code sends it, framed, without
calling the model again (`after_check`, `reminder_message`). Once something new has been
seen, no reminder follows. `if_found` says what news does: wake the model to tell the user
(`tell`), or end the watch without a word (`end_quietly`, when only the reminder was wanted).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from deputy.agent.time.local_time import clock_words, moment_words, parse_moment

MAX_SEEN = 500
"""Item keys remembered per monitor (the newest ones): enough for any mailbox search page."""
MAX_NEWS_ITEMS = 20
_LISTING = re.compile(r"^- (\S[^|\n]{0,200}?) \| ")
_PATH = re.compile(r"^[A-Za-z0-9_\-]+(\.([A-Za-z0-9_\-]+|\*))*$")
MAX_REMINDER = 200
# Web addresses, bare domains too (chat apps turn them into links); an email address is fine.
_LINK = re.compile(r"(https?://|www\.|(?<![@.\w-])[\w-]+\.(com|org|net|io|ly|me|co|app|xyz|info|biz)\b)",
                   re.IGNORECASE)

CheckOutcome = Literal["quiet", "news", "end_quietly", "remind", "remind_and_end"]


class ProbeArgs(BaseModel):
    """The model's description of a probe, as `schedule_check` takes it."""

    tool: str = Field(min_length=1, max_length=100, description="A read tool, e.g. search_email.")
    arguments: dict[str, Any] = Field(default_factory=dict)
    compare: Literal["new_items", "threshold", "changed"] = "new_items"
    field: str | None = Field(default=None, max_length=200, description="For threshold: where the number is.")
    below: float | None = None
    above: float | None = None
    key: str = Field(default="id", max_length=60, description="For new_items in JSON: the field naming an item.")
    remind_if_none_by: str | None = Field(default=None, max_length=40,
                                          description="ISO date-time (bare: the user's local time): one reminder then "
                                                      "if nothing new came.")
    remind_each_check: bool = Field(default=False, description="A reminder at every check with nothing new.")
    reminder: str | None = Field(default=None, max_length=1000, description="The reminder, one short sentence.")
    if_found: Literal["tell", "end_quietly"] = "tell"

    @model_validator(mode="after")
    def _consistent(self) -> ProbeArgs:
        if self.compare == "threshold":
            if not self.field or not _PATH.match(self.field):
                raise ValueError("a threshold needs field: the path of the number in the answer, e.g. price "
                                 "or sections.*.price")
            if (self.below is None) == (self.above is None):
                raise ValueError("a threshold needs exactly one of below and above")
        reminds = self.remind_if_none_by is not None or self.remind_each_check
        if self.remind_if_none_by is not None and self.remind_each_check:
            raise ValueError("give remind_if_none_by (one reminder at a deadline) or remind_each_check (a reminder "
                             "at every check), not both")
        if self.remind_if_none_by is not None:
            deadline_of(self.remind_if_none_by)
        if reminds:
            if self.reminder is None:
                raise ValueError("a reminder needs reminder: the sentence to send the user, e.g. "
                                 "\"Sam hasn't replied to your email yet.\"")
            self.reminder = clean_reminder(self.reminder)
        elif self.reminder is not None:
            raise ValueError("reminder is only sent with remind_if_none_by or remind_each_check")
        elif self.if_found == "end_quietly":
            raise ValueError("if_found=end_quietly is only for a watch that reminds (remind_if_none_by or "
                             "remind_each_check); otherwise the user would never hear anything")
        return self


class Probe(BaseModel):
    """A validated probe: the operation as the catalog names it, and the comparison."""

    connector: str
    operation: str
    arguments: dict[str, Any]
    compare: Literal["new_items", "threshold", "changed"] = "new_items"
    field: str | None = None
    below: float | None = None
    above: float | None = None
    key: str = "id"
    remind_by: float | None = Field(default=None, description="Deadline: one reminder if nothing new by then.")
    remind_each_check: bool = False
    reminder: str | None = Field(default=None, description="The model's sentence, checked by clean_reminder.")
    if_found: Literal["tell", "end_quietly"] = "tell"

    @property
    def reminds(self) -> bool:
        return self.reminder is not None and (self.remind_by is not None or self.remind_each_check)


class ProbeState(BaseModel):
    """What the monitor remembers between checks: fingerprints, and how probing goes."""

    baseline: bool = False
    seen: list[str] = Field(default_factory=list)
    shape: str | None = None
    value: float | None = None
    holds: bool | None = None
    digest: str | None = None
    failures: int = 0
    failure_told: bool = False
    found: bool = Field(default=False, description="Something new was seen since set-up: no more reminders.")
    reminders: int = Field(default=0, description="Reminders sent so far (the model hears of them with the news).")


class Comparison(BaseModel):
    """The outcome of one check: whether it matters, what is new, the state to keep."""

    changed: bool
    news: str = ""
    state: ProbeState
    problem: str | None = Field(default=None, description="The answer could not be compared (no such field...).")


def compare(probe: Probe, state: ProbeState, result: str) -> Comparison:
    """Compare a probe's new result with what was seen before. The first call sets the baseline."""
    if probe.compare == "threshold":
        compared = _threshold(probe, state, result)
    elif probe.compare == "changed":
        digest = hashlib.sha256(_normalise(result).encode()).hexdigest()[:32]
        changed = state.baseline and digest != state.digest
        compared = Comparison(changed=changed, news=result if changed else "",
                              state=state.model_copy(update={"digest": digest, "baseline": True}))
    else:
        compared = _new_items(probe, state, result)
    if compared.changed:
        compared.state.found = True
    return compared


def after_check(probe: Probe, found_before: bool, changed: bool, now: float) -> CheckOutcome:
    """What a check that compared cleanly leads to.

    `news` wakes the model; `end_quietly` ends the watch without a word (only the reminder
    was wanted); `remind` sends the reminder and keeps watching; `remind_and_end` sends it
    at the deadline and ends. A reminder is only for a watch that has seen nothing new yet.
    """
    if changed:
        return "end_quietly" if probe.reminds and probe.if_found == "end_quietly" else "news"
    if found_before or not probe.reminds:
        return "quiet"
    if probe.remind_each_check:
        return "remind"
    if probe.remind_by is not None and now + 1 >= probe.remind_by:
        return "remind_and_end"
    return "quiet"


def reminder_message(probe: Probe, now: float, *, last: bool, zone_name: str | None = None) -> str:
    """The reminder as the user reads it: the model's sentence, framed by code with when it was checked."""
    assert probe.reminder is not None
    if last:
        return f"⏰ {probe.reminder} (Nothing new by {moment_words(now, zone_name)}, so I've stopped watching.)"
    return f"⏰ {probe.reminder} (checked {clock_words(now, zone_name)})"


def clean_reminder(text: str) -> str:
    """The model's reminder as it may reach the user unchanged: one plain sentence, no links.

    It is shown as-is at every reminder, without the model looking again, so it must not
    carry what a reply could be checked for at the time: no links (nothing to tap in a message
    that repeats unattended), no control or invisible characters, no line breaks, short.
    """
    kept = "".join(" " if ch in "\r\n\t" else ch for ch in text
                   if ch in "\r\n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Co", "Cs"))
    sentence = " ".join(kept.split())
    if not sentence:
        raise ValueError("reminder is empty: give the sentence to send the user")
    if len(sentence) > MAX_REMINDER:
        raise ValueError(f"reminder is too long: at most {MAX_REMINDER} characters, one short sentence")
    if _LINK.search(sentence):
        raise ValueError("reminder must not contain a link: one plain sentence such as \"Sam hasn't replied yet.\"")
    return sentence


def deadline_of(text: str, zone_name: str | None = None) -> float:
    """An ISO date-time as a timestamp; without an offset it is wall time in the user's zone."""
    try:
        return parse_moment(text, zone_name)
    except ValueError:
        raise ValueError("remind_if_none_by must be an ISO date-time such as 2026-12-04T17:00") from None


def _new_items(probe: Probe, state: ProbeState, result: str) -> Comparison:
    shape, items = items_of(result, probe.key, state.shape)
    seen = set(state.seen)
    new = [(key, text) for key, text in items if key not in seen]
    kept = [k for k in state.seen if k not in {key for key, _ in new}] + [key for key, _ in new]
    updated = state.model_copy(update={"seen": kept[-MAX_SEEN:], "shape": shape, "baseline": True})
    if not state.baseline or not new:
        return Comparison(changed=False, state=updated)
    shown = new[:MAX_NEWS_ITEMS]
    more = f"\n(and {len(new) - len(shown)} more)" if len(new) > len(shown) else ""
    return Comparison(changed=True, news="\n".join(text for _, text in shown) + more, state=updated)


def items_of(result: str, key: str = "id", shape: str | None = None) -> tuple[str, list[tuple[str, str]]]:
    """The items a result lists, as (key, text), and the shape it was read as.

    A listing (`- KEY | ...` rows, as mailbox searches show them) wins; then JSON objects
    carrying `key`; then non-empty lines. A result of a shape seen before that now lists
    nothing ("No emails match") has no items, rather than one line of text.
    """
    rows = [(m.group(1).strip(), line.strip()) for line in result.splitlines() if (m := _LISTING.match(line.strip()))]
    if rows or shape == "listing":
        return "listing", rows
    document = json_of(result)
    if document is not None:
        found: list[tuple[str, str]] = []
        _objects_with(document, key, found)
        if found or shape == "json":
            return "json", found
    lines = [line.strip() for line in result.splitlines() if line.strip()]
    return "lines", [(hashlib.sha256(line.encode()).hexdigest()[:24], line) for line in lines]


def _objects_with(value: Any, key: str, found: list[tuple[str, str]]) -> None:
    if isinstance(value, dict):
        if isinstance(value.get(key), (str, int)) and not isinstance(value.get(key), bool):
            found.append((str(value[key]), json.dumps(value, ensure_ascii=False, separators=(",", ":"))[:1000]))
            return
        for inner in value.values():
            _objects_with(inner, key, found)
    elif isinstance(value, list):
        for inner in value:
            _objects_with(inner, key, found)


def _threshold(probe: Probe, state: ProbeState, result: str) -> Comparison:
    assert probe.field is not None
    document = json_of(result)
    numbers = [n for n in (_number(v) for v in _at(document, probe.field.split("."))) if n is not None] \
        if document is not None else []
    if not numbers:
        return Comparison(changed=False, state=state, problem=_no_number(probe.field, document))
    value = min(numbers) if probe.below is not None else max(numbers)
    holds = value < probe.below if probe.below is not None else value > probe.above  # type: ignore[operator]
    crossed = state.baseline and holds and state.holds is False
    updated = state.model_copy(update={"value": value, "holds": holds, "baseline": True})
    if not crossed:
        return Comparison(changed=False, state=updated)
    limit = f"below {_plain(probe.below)}" if probe.below is not None else f"above {_plain(probe.above)}"
    was = f" (it was {_plain(state.value)})" if state.value is not None else ""
    news = f"{probe.field} is now {_plain(value)}{was}; the user asked to hear when it is {limit}.\n{result}"
    return Comparison(changed=True, news=news, state=updated)


def threshold_holds(probe: Probe, state: ProbeState) -> bool:
    return probe.compare == "threshold" and bool(state.holds)


def json_of(result: str) -> Any | None:
    """The JSON document in a result: the whole text, or what follows a status line (`200 OK`)."""
    for text in (result, result.partition("\n")[2]):
        try:
            return json.loads(text)
        except ValueError:
            continue
    return None


def _at(value: Any, path: list[str]) -> list[Any]:
    if not path:
        return [value]
    head, rest = path[0], path[1:]
    if head == "*":
        inner = value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else []
        return [found for item in inner for found in _at(item, rest)]
    if isinstance(value, dict) and head in value:
        return _at(value[head], rest)
    if isinstance(value, list):
        if head.isdigit() and int(head) < len(value):
            return _at(value[int(head)], rest)
        # A list where an object was expected: look into each element (`events.price`).
        return [found for item in value for found in _at(item, path)]
    return []


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(Decimal(value.strip().lstrip("$€£").replace(",", "")))
        except (InvalidOperation, ValueError):
            return None
    return None


def _no_number(field: str, document: Any) -> str:
    if document is None:
        return f"the answer is not JSON, so there is no {field} to compare"
    names: list[str] = []
    sample = document[0] if isinstance(document, list) and document else document
    if isinstance(sample, dict):
        names = [k for k in sample if isinstance(k, str) and re.fullmatch(r"[A-Za-z0-9_\-]{1,40}", k)][:20]
    fields = f" (its fields are: {', '.join(names)})" if names else ""
    return f"the answer has no number at {field}{fields}"


def _normalise(text: str) -> str:
    return " ".join(text.split())


def _plain(number: float | None) -> str:
    if number is None:
        return "?"
    return f"{number:g}" if number == int(number) else f"{number:.2f}"
