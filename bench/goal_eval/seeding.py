"""One case's world, put into the real servers and stores before its first turn.

Inbox messages go into a mailbox of the case's own by IMAP APPEND (each keeps the corpus id in
its Message-ID, the server gives it a UID); calendars and events go into Radicale (the corpus id
is the event's UID); memories, contacts and the time zone go into the user's Redis records; the
restaurant site and the shop get the case's places, products and past orders. The user's
contacts are kept as Deputy keeps what it knows about people: an address in their contacts and
a memory saying whose address it is.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, time
from decimal import Decimal
from email.message import EmailMessage
from email.utils import format_datetime
from zoneinfo import ZoneInfo

import icalendar
from redis import Redis

from deputy.agent.goal_provenance import add_contact
from bench.goal_eval.corpus import Case
from bench.goal_eval.services import EvalServices
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from deputy.memory import MemoryStore
from deputy.memory.store import MemoryItem, MemoryKind
from deputy.sandbox.restaurants import BOOK, RestaurantBook
from deputy.sandbox.restaurants import Restaurant as Place
from deputy.sandbox.shop import SHOP
from deputy.sandbox.shop_model import Order, Product


@dataclass
class Seeded:
    """What a case's world became on the servers: the ids Deputy sees for the corpus's ids."""

    user_id: int
    mailbox: str
    message_ids: dict[str, str] = field(default_factory=dict)
    """corpus message id -> the Message-ID header it carries."""
    mail_uids: dict[str, int] = field(default_factory=dict)
    """corpus message id -> its IMAP UID in INBOX (Deputy names it `INBOX/<uid>`)."""
    events: dict[str, str] = field(default_factory=dict)
    """corpus event id -> calendar name it was put in."""
    calendars: dict[str, str] = field(default_factory=dict)
    """calendar slug (collection name) -> calendar name."""
    places: dict[str, str] = field(default_factory=dict)
    """restaurant id on the site -> name."""
    memories: dict[str, str] = field(default_factory=dict)
    """memory id -> text, as seeded."""


def slug(name: str) -> str:
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-") or "x"


def message_id(case: Case, corpus_id: str) -> str:
    return f"<{corpus_id}.{case.id}@goal-eval.test>"


def seed(case: Case, services: EvalServices, redis: Redis, user_id: int) -> Seeded:
    now = case.started.timestamp()
    services.clock.now, services.clock.zone = now, case.zone
    UserSettingsStore(redis).save(user_id, UserSettings(timezone=case.zone))
    seeded = Seeded(user_id=user_id, mailbox=f"u{user_id}@goal-eval.test")
    _memories(case, redis, seeded, now)
    _inbox(case, services, seeded)
    _calendar(case, services, seeded)
    _places(case, services, seeded)
    _shop(case, services)
    services.smtp.clear()
    return seeded


def _memories(case: Case, redis: Redis, seeded: Seeded, now: float) -> None:
    store = MemoryStore(redis)
    for text in case.world.memories:
        item = store.add(seeded.user_id, MemoryItem(text=text, said=[text], created_at=now, updated_at=now))
        if item is not None:
            seeded.memories[item.id] = text
    for person in case.world.contacts:
        add_contact(redis, seeded.user_id, person.email)
        text = f"{person.name}'s email address is {person.email}"
        item = store.add(seeded.user_id, MemoryItem(text=text, kind=MemoryKind.person, said=[text],
                                                    created_at=now, updated_at=now))
        if item is not None:
            seeded.memories[item.id] = text


def _inbox(case: Case, services: EvalServices, seeded: Seeded) -> None:
    login = services.store.add_user(seeded.mailbox)
    raws = []
    for message in sorted(case.world.inbox, key=lambda m: case.local(m.date)):
        email = EmailMessage()
        email["From"], email["To"], email["Subject"] = message.sender, message.to, message.subject
        if message.cc:
            email["Cc"] = message.cc
        email["Date"] = format_datetime(case.local(message.date))
        email["Message-ID"] = seeded.message_ids[message.id] = message_id(case, message.id)
        email.set_content(message.body)
        raws.append((message, email.as_bytes()))
    for message, raw in raws:
        flags = () if message.unread else (r"\Seen",)
        uid = services.store.deliver(login, raw, flags=flags, when=case.local(message.date))
        if uid is not None:
            seeded.mail_uids[message.id] = uid


def _calendar(case: Case, services: EvalServices, seeded: Seeded) -> None:
    names = list(dict.fromkeys([*case.world.calendars, *(e.calendar for e in case.world.events if e.calendar)]))
    names = names or ["Personal"]
    with services.calendar._client() as client:
        principal = client.principal()
        for old in principal.calendars():
            old.delete()
        made = {}
        for name in names:
            seeded.calendars[slug(name)] = name
            made[name] = principal.make_calendar(name=name, cal_id=slug(name))
        for event in case.world.events:
            name = event.calendar or names[0]
            seeded.events[event.id] = name
            made[name].add_event(_ical(case, event), increase_seqno=False)


def _ical(case: Case, event) -> str:
    item = icalendar.Event()
    item.add("uid", event.id)
    item.add("summary", event.title)
    item.add("dtstart", case.local(event.start))
    item.add("dtend", case.local(event.end))
    item.add("dtstamp", case.started)
    if event.location:
        item.add("location", event.location)
    for attendee in event.attendees:
        item.add("attendee", f"mailto:{attendee}")
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//Deputy//Goal evaluation//EN")
    calendar.add("version", "2.0")
    calendar.add_component(item)
    calendar.add_missing_timezones()
    return calendar.to_ical().decode("utf-8")


class CorpusPlaces(RestaurantBook):
    """Free seats as the corpus gives them per seating; other seatings have room for 12."""

    seats: dict[str, dict[datetime, int]]

    def free_table(self, restaurant: Place, when: datetime, party_size: int) -> int | None:
        free = self.seats.get(restaurant.id, {}).get(when, 12)
        taken = sum(b.party_size for b in self.bookings.values()
                    if b.restaurant is restaurant and b.status == "confirmed" and b.when == when)
        return party_size if party_size <= free - taken else None


def _hours(spec: str) -> dict[int, list[tuple[time, time]]]:
    start, _, end = spec.partition("-")
    closes = time(23, 59) if end.strip() in ("24:00", "00:00") else time.fromisoformat(end.strip())
    return {day: [(time.fromisoformat(start.strip()), closes)] for day in range(7)}


def _places(case: Case, services: EvalServices, seeded: Seeded) -> None:
    book: RestaurantBook = services.restaurant_app[BOOK]
    book.__class__ = CorpusPlaces  # the site keeps its object: only the rule for free seats changes
    book.restaurants.clear()
    book.bookings.clear()
    book.seats = {}  # type: ignore[attr-defined]
    for place in case.world.restaurants:
        pid = slug(place.name)
        seeded.places[pid] = place.name
        book.restaurants[pid] = Place(pid, place.name, place.cuisine, place.city, f"{place.city}", "$$",
                                      f"{place.cuisine} restaurant in {place.city}.", _hours(place.open), [12])
        book.seats[pid] = {datetime.fromisoformat(k).replace(tzinfo=None): v  # type: ignore[attr-defined]
                           for k, v in place.seats_free.items()}


def _shop(case: Case, services: EvalServices) -> None:
    shop = services.shop_app[SHOP]
    shop.products.clear()
    shop.carts.clear()
    shop.orders.clear()
    for item in case.world.shop:
        shop.products[item.sku] = Product(item.sku, item.name, "General", Decimal(item.price), 10,
                                          f"{item.name} ({item.price} {item.currency})")
    for order in case.world.orders:
        day = datetime.combine(datetime.fromisoformat(order.date).date(), time(12), tzinfo=ZoneInfo(case.zone))
        lines = [{"name": name, "quantity": 1} for name in order.items]
        shop.orders[order.id] = Order(order.id, lines, Decimal(order.total), "tok_seeded", case.user.name,
                                      "", day.replace(tzinfo=None))
