"""What happened in the world after a case, read back from the servers and stores themselves.

Mail from the SMTP server's record and the case's IMAP mailbox, events from Radicale, memories
from the store, bookings and orders from the sites, reminders and watches from the user's goals.
Nothing here asks Deputy what it did.
"""

from __future__ import annotations

import email
import imaplib
import re
from datetime import datetime, timezone
from email.policy import default as DEFAULT_POLICY

from pydantic import BaseModel, Field
from redis import Redis

from deputy.agent.goals import GoalStore, user_goal_ids
from bench.goal_eval.seeding import Seeded
from bench.goal_eval.services import EvalServices
from deputy.memory import MemoryStore
from deputy.sandbox.restaurants import BOOK
from deputy.sandbox.shop import SHOP


class Mail(BaseModel):
    recipients: list[str]
    subject: str
    body: str
    in_reply_to: str = ""
    references: str = ""


class CalendarEvent(BaseModel):
    uid: str
    calendar: str
    title: str
    start: datetime
    end: datetime | None = None
    all_day: bool = False


class Booked(BaseModel):
    restaurant: str
    start: datetime
    party: int


class Watch(BaseModel):
    what: str
    next_at: float
    every_seconds: float | None = None
    daily_at: str | None = None
    detail: str = ""


class Outcome(BaseModel):
    sent: list[Mail] = Field(default_factory=list)
    folders: dict[str, list[str]] = Field(default_factory=dict)
    """Message-ID headers per folder of the user's mailbox."""
    events: list[CalendarEvent] = Field(default_factory=list)
    memories: dict[str, str] = Field(default_factory=dict)
    bookings: list[Booked] = Field(default_factory=list)
    orders: list[str] = Field(default_factory=list)
    """Orders placed during the case (ids)."""
    watches: list[Watch] = Field(default_factory=list)


def observe(services: EvalServices, redis: Redis, seeded: Seeded, seeded_orders: set[str]) -> Outcome:
    return Outcome(
        sent=[_mail(m.rcpt_tos, m.raw) for m in services.smtp.messages()],
        folders=_folders(services, seeded),
        events=_events(services, seeded),
        memories={item.id: item.text for item in MemoryStore(redis).list(seeded.user_id)},
        bookings=[Booked(restaurant=b.restaurant.name, start=b.when, party=b.party_size)
                  for b in services.restaurant_app[BOOK].bookings.values() if b.status == "confirmed"],
        orders=[o for o in services.shop_app[SHOP].orders if o not in seeded_orders],
        watches=_watches(redis, seeded.user_id),
    )


def _mail(recipients: list[str], raw: bytes) -> Mail:
    message = email.message_from_bytes(raw, policy=DEFAULT_POLICY)
    part = message.get_body(preferencelist=("plain", "html"))
    body = part.get_content() if part is not None else ""
    return Mail(recipients=[r.lower() for r in recipients], subject=str(message.get("Subject", "")), body=body,
                in_reply_to=str(message.get("In-Reply-To", "")), references=str(message.get("References", "")))


_LIST = re.compile(r'\(.*?\) (?:"[^"]*"|NIL) (.+)$')


def _folders(services: EvalServices, seeded: Seeded) -> dict[str, list[str]]:
    client = imaplib.IMAP4(services.store.host, services.imap_port, timeout=10)
    found: dict[str, list[str]] = {}
    try:
        client.login(f'"{seeded.mailbox}"', services.mail_password)
        _, listing = client.list()
        for line in listing or []:
            found_name = _LIST.match(line.decode(errors="replace")) if isinstance(line, bytes) else None
            if found_name is None:
                continue
            name = found_name.group(1).strip('"')
            if client.select(f'"{name}"', readonly=True)[0] != "OK":
                continue
            _, data = client.search(None, "ALL")
            ids = []
            for number in (data[0] or b"").split():
                _, fetched = client.fetch(number, "(BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])")
                header = fetched[0][1].decode(errors="replace") if fetched and fetched[0] else ""
                ids.append(header.partition(":")[2].strip())
            found[name] = ids
    finally:
        try:
            client.logout()
        except (imaplib.IMAP4.error, OSError):
            pass
    return found


def _events(services: EvalServices, seeded: Seeded) -> list[CalendarEvent]:
    events = []
    with services.calendar._client() as client:
        for calendar in client.principal().calendars():
            slug = str(calendar.url.path).rstrip("/").rsplit("/", 1)[-1]
            name = seeded.calendars.get(slug) or calendar.get_display_name() or slug
            for found in calendar.events():
                for item in found.icalendar_instance.walk("VEVENT"):
                    start = item.decoded("dtstart")
                    end = item.decoded("dtend") if "dtend" in item else None
                    whole_day = not isinstance(start, datetime)
                    events.append(CalendarEvent(
                        uid=str(item.get("uid")), calendar=name, title=str(item.get("summary", "")),
                        start=_aware(start), end=_aware(end) if end is not None else None, all_day=whole_day))
    return events


def _aware(value) -> datetime:
    if not isinstance(value, datetime):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def _watches(redis: Redis, user_id: int) -> list[Watch]:
    goals = GoalStore(redis)
    watches = []
    for goal_id in user_goal_ids(redis, user_id):
        goal = goals.get(goal_id)
        if goal is None or goal.monitor is None:
            continue
        monitor = goal.monitor
        watches.append(Watch(what=monitor.what, next_at=monitor.next_at, every_seconds=monitor.every_seconds,
                             daily_at=monitor.daily_at,
                             detail=monitor.probe.model_dump_json() if monitor.probe is not None else ""))
    return watches
