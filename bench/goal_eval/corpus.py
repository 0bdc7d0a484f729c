"""The goal corpus: everyday goals with a seeded world and the outcome each one should have.

The corpus (`corpus/goals.json`, documented in `corpus/README.md`) was written by someone who had
not read Deputy's code. Its `frozen` split is never tuned on: `frozen_digest` pins it, and a
test fails if it changes. Times without an offset are wall-clock times in the case's zone.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field

CORPUS = Path(__file__).parent / "corpus" / "goals.json"
Split = Literal["frozen", "dev", "all"]


class _Loose(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class Person(_Loose):
    name: str
    email: str


class InboxMessage(_Loose):
    id: str
    sender: str = Field(alias="from")
    to: str
    cc: str | None = None
    subject: str
    body: str
    date: str
    unread: bool = True


class Event(_Loose):
    id: str
    calendar: str | None = None
    title: str
    start: str
    end: str
    location: str | None = None
    attendees: list[str] = Field(default_factory=list)


class Product(_Loose):
    sku: str
    name: str
    price: str
    currency: str


class Order(_Loose):
    id: str
    items: list[str]
    total: str
    currency: str
    date: str


class Restaurant(_Loose):
    name: str
    city: str
    cuisine: str
    open: str
    seats_free: dict[str, int] = Field(default_factory=dict)


class World(_Loose):
    contacts: list[Person] = Field(default_factory=list)
    inbox: list[InboxMessage] = Field(default_factory=list)
    calendars: list[str] = Field(default_factory=list)
    events: list[Event] = Field(default_factory=list)
    memories: list[str] = Field(default_factory=list)
    shop: list[Product] = Field(default_factory=list)
    orders: list[Order] = Field(default_factory=list)
    restaurants: list[Restaurant] = Field(default_factory=list)


class SentMail(_Loose):
    to: list[str] = Field(default_factory=list)
    cc: list[str] = Field(default_factory=list)
    subject_any: list[str] = Field(default_factory=list)
    body_all: list[str] = Field(default_factory=list)
    body_any: list[str] = Field(default_factory=list)
    in_reply_to: str | None = None


class Forwarded(_Loose):
    message: str
    to: list[str]


class CreatedEvent(_Loose):
    calendar: str | None = None
    start: str
    end: str | None = None
    title_any: list[str] = Field(default_factory=list)


class MovedEvent(_Loose):
    event: str
    start: str


class Booking(_Loose):
    restaurant: str
    start: str
    party: int


class Reminder(_Loose):
    first_at: str
    repeats: Literal["daily", "weekly", "monthly"] | None = None


class Monitor(_Loose):
    about_any: list[str]
    below: str | None = None


class Expect(_Loose):
    sent: list[SentMail] = Field(default_factory=list)
    forwarded: list[Forwarded] = Field(default_factory=list)
    deleted_messages: list[str] = Field(default_factory=list)
    events_created: list[CreatedEvent] = Field(default_factory=list)
    events_moved: list[MovedEvent] = Field(default_factory=list)
    events_deleted: list[str] = Field(default_factory=list)
    memories_added_any: list[list[str]] = Field(default_factory=list)
    memories_removed: list[str] = Field(default_factory=list)
    booking: Booking | None = None
    card_for: str | None = None
    reminder: Reminder | None = None
    monitor: Monitor | None = None
    answer_all: list[str] = Field(default_factory=list)
    answer_any: list[str] = Field(default_factory=list)
    answer_none: list[str] = Field(default_factory=list)
    asks: bool = False
    not_found: bool = False
    no_side_effects: bool = False


class Case(_Loose):
    id: str
    category: str
    split: Literal["frozen", "dev"]
    language: str
    now: str
    zone: str
    user: Person
    world: World = Field(default_factory=World)
    turns: list[str] = Field(min_length=1)
    expect: Expect
    notes: str = ""

    def local(self, text: str) -> datetime:
        """A corpus time as an aware datetime: with its own offset, or else in the case's zone."""
        moment = datetime.fromisoformat(text)
        return moment if moment.tzinfo else moment.replace(tzinfo=ZoneInfo(self.zone))

    @property
    def started(self) -> datetime:
        return self.local(self.now)


def raw_cases(path: Path = CORPUS) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))


def load(split: Split = "frozen", category: str | None = None, limit: int | None = None,
         path: Path = CORPUS, skip: int = 0) -> list[Case]:
    """The cases of `split` (and `category`: one name or several, comma-separated), at most `limit`
    per category after the first `skip` of each, in corpus order."""
    categories = None if category is None else {name.strip() for name in category.split(",")}
    chosen: list[Case] = []
    taken: dict[str, int] = {}
    for raw in raw_cases(path):
        case = Case.model_validate(raw)
        if split != "all" and case.split != split or categories is not None and case.category not in categories:
            continue
        seen = taken.get(case.category, 0)
        taken[case.category] = seen + 1
        if seen < skip or limit is not None and seen >= skip + limit:
            continue
        chosen.append(case)
    return chosen


def frozen_digest(path: Path = CORPUS) -> str:
    """sha256 over the canonical JSON of the frozen cases: changes whenever any of them changes."""
    frozen = [case for case in raw_cases(path) if case.get("split") == "frozen"]
    canonical = json.dumps(frozen, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
