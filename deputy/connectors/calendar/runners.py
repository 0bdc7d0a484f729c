"""Running calendar operations for the executor: the user's account from the vault, then CalDAV.

Only the executor builds a `CalendarRunners` (it is the one process that opens the vault).
Each call opens one CalDAV session, does its work and closes it; the user's time zone
comes from `zone_for` (their settings), else the `timezone` field of their calendar
credential, else `default_zone`.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Callable, TypeVar
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ValidationError

from deputy.core.records.effects import ConnectorError, ConnectorRejected, OperationResult
from deputy.connectors.calendar import render
from deputy.connectors.calendar.arguments import (
    CancelEventArgs,
    CreateEventArgs,
    FreeBusyArgs,
    ListEventsArgs,
    MeetingArgs,
    MoveEventArgs,
)
from deputy.connectors.calendar.client import CalDavAccount, CalDavClient, means_the_default, open_davclient
from deputy.connectors.calendar.events import CalendarInfo, Occurrence, UnreadableEvent, expand, parse_calendar
from deputy.connectors.calendar.freebusy import WorkingHours, busy_intervals, free_slots
from deputy.connectors.calendar.ical import EditProblem, NewEvent, build_event, cancel_occurrence, move, uid_for
from deputy.connectors.calendar.ids import BadEventId, EventRef, parse_event_id
from deputy.connectors.calendar.timezones import TimeProblem, day_start, parse_moment, resolve, stored_in, zone_named
from deputy.core.records.actions import Action
from deputy.vault import CredentialNotFound, Vault, VaultError

CALDAV_HANDLE = "cred:calendar/caldav"
"""The vault entry of a user's calendar: public `url`, `username` (optional `email`,
`timezone`, `default_calendar`), secret the password."""

Runner = Callable[[Action, str], "OperationResult | str"]
M = TypeVar("M", bound=BaseModel)
_FETCH_SLACK = timedelta(days=1)  # floating and all-day times depend on the zone: ask wider, filter exactly


class CalendarRunners:
    """The calendar operations as executor runners, keyed `calendar.<operation>`."""

    def __init__(
        self,
        vault: Vault | None,
        *,
        default: CalDavAccount | None = None,
        zone_for: Callable[[int], str | None] | None = None,
        default_zone: str = "UTC",
        connect: Callable[[CalDavAccount], object] = open_davclient,
        clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc),
        signed_in: Callable[[int], CalDavAccount | None] | None = None,
    ) -> None:
        self.signed_in = signed_in
        """Finds a calendar the user connected by signing in (the executor's `OAuthTokens.caldav_account`)."""
        self._vault = vault
        self._default = default
        self._zone_for = zone_for
        self._default_zone = zone_named(default_zone)
        self._connect = connect
        self._clock = clock

    def runners(self) -> dict[str, Runner]:
        return {
            "calendar.list_events": self.list_events,
            "calendar.free_busy": self.free_busy,
            "calendar.create_event": self.create_event,
            "calendar.schedule_meeting": self.create_event,
            "calendar.move_event": self.move_event,
            "calendar.cancel_event": self.cancel_event,
        }

    @property
    def connect(self) -> Callable[[CalDavAccount], object]:
        """How a CalDAV session is opened (checked and pinned by the egress guard in production)."""
        return self._connect

    def account_for(self, user_id: int) -> CalDavAccount:
        """The user's CalDAV account: signed in, else from the vault, else the operator's default."""
        if self.signed_in is not None and (account := self.signed_in(user_id)) is not None:
            return account
        if self._vault is not None:
            failure: ConnectorError | None = None
            try:
                info = self._vault.info(user_id, CALDAV_HANDLE)
                password = self._vault.get(user_id, CALDAV_HANDLE)
                public = info.public
                return CalDavAccount(
                    url=public.get("url", ""), username=public.get("username", ""), password=password,
                    email=public.get("email") or None, default_calendar=public.get("default_calendar") or None,
                    timezone=public.get("timezone") or None,
                    allow_plain_http=public.get("allow_plain_http") == "true",
                )
            except CredentialNotFound:
                pass
            except (VaultError, ValueError):  # a locked vault or an entry with a broken url
                failure = ConnectorError("Your calendar login couldn't be read; connect your calendar again.")
            if failure is not None:
                raise failure
        if self._default is not None:
            return self._default
        raise ConnectorError("Your calendar isn't connected yet, so I can't use it. Connect it with /connect.")

    def zone(self, user_id: int, account: CalDavAccount) -> ZoneInfo:
        """The user's time zone: their setting, their calendar credential's, or the default."""
        for name in (self._zone_for(user_id) if self._zone_for else None, account.timezone):
            if name:
                try:
                    return zone_named(name)
                except TimeProblem:
                    continue
        return self._default_zone

    def list_events(self, action: Action, idempotency_key: str) -> OperationResult:
        args = _arguments(ListEventsArgs, action)
        account = self.account_for(action.user_id)
        zone = self.zone(action.user_id, account)
        start, end = _range(args.start, args.end, zone)
        with CalDavClient(account, self._connect) as client:
            occurrences, unreadable, note = _collect(client, args.calendar, start, end, zone)
        summary = note + render.event_list(occurrences, zone, start, end, unreadable)
        return OperationResult(summary=summary, untrusted_origin=render.origin(occurrences, _own(account)),
                               items=render.event_items(occurrences, zone, _own(account)))

    def busy_days(self, user_id: int, first: date, last: date) -> list[tuple[date, date]]:
        """The days (first, last, in the user's zone) taken by something busy for two hours or more
        between two days: a short standup does not rule a day out for travel, a conference does."""
        account = self.account_for(user_id)
        zone = self.zone(user_id, account)
        start, end = _range(first.isoformat(), last.isoformat(), zone)
        with CalDavClient(account, self._connect) as client:
            occurrences, _, _ = _collect(client, None, start, end, zone)
        spans = busy_intervals(occurrences, start, end, zone)
        return [(b.start.astimezone(zone).date(), (b.end - timedelta(seconds=1)).astimezone(zone).date())
                for b in spans if b.end - b.start >= timedelta(hours=2)]

    def free_busy(self, action: Action, idempotency_key: str) -> OperationResult:
        args = _arguments(FreeBusyArgs, action)
        account = self.account_for(action.user_id)
        zone = self.zone(action.user_id, account)
        start, end = _range(args.start, args.end, zone)
        with CalDavClient(account, self._connect) as client:
            occurrences, unreadable, note = _collect(client, args.calendar, start, end, zone)
        busy = busy_intervals(occurrences, start, end, zone)
        hours = args.hours()
        working = WorkingHours(hours[0], hours[1], args.include_weekends) if hours else None
        slots = free_slots(busy, start, end, zone, timedelta(minutes=args.min_minutes), working)
        summary = note + render.free_busy(busy, slots, zone, start, end, args.min_minutes, args.working_hours,
                                          unreadable)
        return OperationResult(summary=summary, untrusted_origin=render.origin(occurrences, _own(account)),
                               items=render.busy_items(busy, zone))

    def create_event(self, action: Action, idempotency_key: str) -> OperationResult:
        if not idempotency_key:
            raise ValueError("idempotency_key must not be empty")
        model = MeetingArgs if action.operation == "schedule_meeting" else CreateEventArgs
        args = _arguments(model, action)
        account = self.account_for(action.user_id)
        zone = zone_named(args.timezone) if args.timezone else self.zone(action.user_id, account)
        start, end = _new_times(args, zone)
        organizer = account.email or (account.username if "@" in account.username else None)
        if args.attendees and organizer is None:
            raise ConnectorRejected(
                "To invite people I need the email address of your calendar account; connect the calendar "
                "again with your email address."
            )
        event = NewEvent(
            uid=uid_for(idempotency_key), title=args.title, start=start, end=end, location=args.location,
            description=args.description, attendees=tuple(args.attendees), organizer=organizer,
        )
        data = build_event(event, self._clock())
        with CalDavClient(account, self._connect) as client:
            calendar = client.calendar(args.calendar)
            created = client.create(calendar, event.uid, data)
        shown = render.said(event.start, event.end, zone)
        ref = EventRef(calendar.slug, event.uid)
        invited = f" Invitations go to {', '.join(args.attendees)}." if args.attendees else ""
        undo = {"kind": "delete", "calendar": calendar.slug, "uid": event.uid, "invited": bool(args.attendees)}
        if not created:
            return OperationResult(summary=f"“{args.title}” was already created by an earlier try of this same "
                                           f"action (id {ref}).", undo=undo)
        return OperationResult(summary=f"Created “{args.title}”: {shown}, in your {calendar.name} calendar "
                                       f"(id {ref}).{invited}", undo=undo)

    def move_event(self, action: Action, idempotency_key: str) -> OperationResult:
        args = _arguments(MoveEventArgs, action)
        ref = _ref(args.event_id)
        account = self.account_for(action.user_id)
        zone = zone_named(args.timezone) if args.timezone else self.zone(action.user_id, account)
        start = _resolved(parse_moment(args.start), zone)
        end = _resolved(parse_moment(args.end), zone) if args.end else None
        if isinstance(end, date) and not isinstance(end, datetime):
            end = end + timedelta(days=1)  # the last day, given inclusive
        with CalDavClient(account, self._connect) as client:
            stored = client.find(client.calendar(ref.calendar), ref.uid)
            title, origin = about_event(stored.data, ref.uid, account)
            try:
                data, new_start, new_end = move(stored.data, ref.uid, ref.occurrence, start, end, self._clock())
            except Exception as exc:  # the stored object is someone else's data: any oddity is possible
                raise ConnectorRejected(_edit_message(exc)) from None
            client.replace(stored, data)
        which = "that occurrence of " if ref.occurrence else ""
        return OperationResult(summary=f"Moved {which}“{title}” to {render.said(new_start, new_end, zone)}.",
                               untrusted_origin=origin, undo=_restore(ref, stored.data))

    def cancel_event(self, action: Action, idempotency_key: str) -> OperationResult:
        args = _arguments(CancelEventArgs, action)
        ref = _ref(args.event_id)
        account = self.account_for(action.user_id)
        with CalDavClient(account, self._connect) as client:
            stored = client.find(client.calendar(ref.calendar), ref.uid)
            title, origin = about_event(stored.data, ref.uid, account)
            if ref.occurrence is None:
                client.delete(stored)
                summary = f"Cancelled “{title}” (removed from your {stored.calendar.name} calendar)."
                return OperationResult(summary=summary, untrusted_origin=origin, undo=_restore(ref, stored.data))
            try:
                data = cancel_occurrence(stored.data, ref.uid, ref.occurrence, self._clock())
            except Exception as exc:  # as in move_event
                raise ConnectorRejected(_edit_message(exc)) from None
            if data is None:
                client.delete(stored)
            else:
                client.replace(stored, data)
        summary = f"Cancelled one occurrence of “{title}”; the other occurrences stay."
        return OperationResult(summary=summary, untrusted_origin=origin, undo=_restore(ref, stored.data))


def _restore(ref: EventRef, before: bytes) -> dict:
    """How to put the event back: its whole stored text as it was before this change."""
    return {"kind": "restore", "calendar": ref.calendar, "uid": ref.uid, "ics": before.decode("utf-8", "replace")}


def _arguments(model: type[M], action: Action) -> M:
    """The action's arguments, checked again: a stored action may predate today's rules."""
    try:
        return model.model_validate(action.arguments)
    except ValidationError as exc:
        problems = "; ".join(str(e["msg"]) for e in exc.errors()[:3])
        raise ConnectorRejected(f"That calendar request isn't valid: {problems}.") from None


def _ref(text: str) -> EventRef:
    try:
        return parse_event_id(text)
    except BadEventId:
        raise ConnectorRejected("That is not an event id from list_events.") from None


def _collect(
    client: CalDavClient, name: str | None, start: datetime, end: datetime, zone: ZoneInfo
) -> tuple[list[Occurrence], int, str]:
    """The occurrences in [start, end), how many objects were unreadable, and a note for a name that fitted no calendar."""
    note = ""
    # "my calendar", "default", "primary" on a read mean everything the user has on: the Work calendar's
    # standup is on "my calendar" too, though new events go to another one.
    name = None if name is not None and means_the_default(name) else name
    try:
        calendars: list[CalendarInfo] = [client.calendar(name)] if name else client.calendars()
    except ConnectorRejected as unknown:
        if not name or "no calendar called" not in str(unknown):
            raise
        # Reading is harmless: a calendar name that does not exist reads them all rather than fail the step.
        calendars = client.calendars()
        note = f"{unknown} So this is from all of them.\n"
    if not calendars:
        # Often a wrong address: a web page that answers anything with 200.
        raise ConnectorRejected(
            f"I found no calendars at {client.account.url}; check the calendar address (connect it again)."
        )
    found: list[Occurrence] = []
    unreadable = 0
    for calendar in calendars:
        texts, too_large = client.objects(calendar, start - _FETCH_SLACK, end + _FETCH_SLACK)
        unreadable += too_large
        for text in texts:
            try:
                found.extend(expand(text, calendar, start, end, zone))
            except UnreadableEvent:
                unreadable += 1
    found.sort(key=lambda o: (o.span(zone)[0], o.title))
    return found, unreadable, note


def _range(start_text: str, end_text: str | None, zone: ZoneInfo) -> tuple[datetime, datetime]:
    """A query window: dates mean whole days in `zone`; times in a DST gap shift as RFC 5545 says."""
    first = parse_moment(start_text)
    start = day_start(first, zone) if not isinstance(first, datetime) else _lenient(first, zone)
    if end_text is None:
        if isinstance(first, datetime):
            return start, start + timedelta(days=1)
        return start, day_start(first + timedelta(days=1), zone)
    last = parse_moment(end_text)
    end = day_start(last + timedelta(days=1), zone) if not isinstance(last, datetime) else _lenient(last, zone)
    return start, end


def _lenient(moment: datetime, zone: ZoneInfo) -> datetime:
    return stored_in(moment, zone) if moment.tzinfo is None else moment.astimezone(zone)


def _resolved(moment: date | datetime, zone: ZoneInfo) -> date | datetime:
    if not isinstance(moment, datetime):
        return moment
    try:
        return resolve(moment, zone)
    except TimeProblem as exc:
        raise ConnectorRejected(str(exc)) from None


def _new_times(args: CreateEventArgs, zone: ZoneInfo) -> tuple[date | datetime, date | datetime]:
    start = _resolved(parse_moment(args.start), zone)
    if not isinstance(start, datetime):
        last = parse_moment(args.end) if args.end else start
        return start, last + timedelta(days=1)  # type: ignore[operator]
    if args.end:
        end = _resolved(parse_moment(args.end), zone)
        if not isinstance(end, datetime) or end <= start:
            raise ConnectorRejected("The event's end must be after its start.")
        return start, end
    # Real minutes, not wall-clock minutes: an hour from 01:30 on a fall-back night ends at 01:30 again.
    length = timedelta(minutes=args.duration_minutes or 60)
    return start, (start.astimezone(timezone.utc) + length).astimezone(zone)


def about_event(data: bytes, uid: str, account: CalDavAccount) -> tuple[str, str]:
    """The stored event's title, and whose words it is: an edit's result quotes it, and an
    invitation's title is the organiser's text, so the result is labelled like a read."""
    title, organizer = "the event", None
    try:
        for event in parse_calendar(data).walk("VEVENT"):
            if str(event.get("UID", "")) == uid and event.get("SUMMARY"):
                title = " ".join(str(event["SUMMARY"]).split())[:120]
                organizer = str(event.get("ORGANIZER", "")).removeprefix("mailto:").lower() or None
                break
    except UnreadableEvent:
        pass
    if organizer and organizer not in _own(account):
        return title, f"your calendar (an event organised by {organizer})"
    return title, "your calendar (an event's title)"


def _edit_message(exc: Exception) -> str:
    if isinstance(exc, EditProblem):
        return str(exc)
    return "That event is stored in a form I can't read, so I left it unchanged."


def _own(account: CalDavAccount) -> set[str]:
    return {a.lower() for a in (account.email, account.username) if a and "@" in a}

