"""The IO edge of the calendar connector: one CalDAV account, through the `caldav` library.

`CalDavClient` only moves iCalendar text: it lists calendars, fetches the objects in a time
range, finds one object by UID, and creates, replaces or deletes one. Reading and editing
the text is the pure modules' job (`events`, `ical`). Every failure leaves as a
`ConnectorError` with a plain sentence, raised outside the library's `except` so no frame
holding the password travels along as `__context__`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, TypeVar
from urllib.parse import quote, unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from deputy.core.records.effects import ConnectorError, ConnectorRejected
from deputy.connectors.calendar.errors import translate
from deputy.connectors.calendar.events import CalendarInfo

T = TypeVar("T")
MAX_OBJECT_BYTES = 1_000_000
"""Calendar objects larger than this are skipped when reading (and reported as unreadable)."""
# Last path segments that name no calendar in particular (Google: /caldav/v2/<id>/events/).
_DEFAULT_WORDS = {"default", "primary", "main", "calendar", "my calendar", "the calendar", "my default calendar",
                  "default calendar", "primary calendar", "main calendar"}


def means_the_default(name: str) -> bool:
    """A calendar name that only means "the usual one" (models write "primary" or "default")."""
    return " ".join(name.casefold().split()) in _DEFAULT_WORDS


_GENERIC_SEGMENTS = {"events", "calendar", "calendars", "caldav", "dav", "default"}


class CalDavAccount(BaseModel):
    """Where the user's calendars live and how to log in. `email` is the address that
    organises events with attendees; `default_calendar` names the calendar new events go
    to; `timezone` (IANA) is the user's zone when nothing else says."""

    # A validation error would otherwise echo the raw input, password included.
    model_config = ConfigDict(hide_input_in_errors=True)

    url: str = Field(pattern=r"^https?://\S+$", max_length=500)
    username: str = Field(min_length=1, max_length=200)
    password: SecretStr
    email: str | None = None
    default_calendar: str | None = None
    timezone: str | None = None
    allow_plain_http: bool = False
    """Send the password over http:// to a host that is not this machine (a home LAN server)."""
    timeout: float = Field(default=20, gt=0, le=120)
    oauth: bool = False
    """`password` is an OAuth access token, sent as a bearer token."""

    @property
    def host(self) -> str:
        """The server's host (and port), as shown to the user."""
        return urlsplit(self.url).netloc.rpartition("@")[2] or self.url


def open_davclient(account: CalDavAccount, prepare_session: Callable[[Any], None] | None = None) -> Any:
    """A `caldav.DAVClient` for `account` (the default `connect` of `CalDavClient`).

    `prepare_session` gets the client's HTTP session before any request: the executor
    mounts the egress guard's adapter there (`sentinel.egress_niquests.guard_session`).
    """
    import caldav

    client = caldav.DAVClient(
        url=account.url,
        username=account.username,
        password=account.password.get_secret_value(),
        timeout=int(account.timeout),
        **({"auth_type": "bearer"} if account.oauth else {}),
        # The user gave the exact address: no DNS-based discovery that could lead elsewhere.
        enable_rfc6764=False,
    )
    # No proxy or .netrc from the environment may redirect or re-authenticate the request.
    client.session.trust_env = False
    if prepare_session is not None:
        prepare_session(client.session)
    return client


@dataclass
class StoredEvent:
    """One calendar object as found on the server, ready to be replaced or deleted."""

    calendar: CalendarInfo
    data: bytes
    resource: Any = field(repr=False)


def calendar_slugs(paths: list[str]) -> list[str]:
    """Short, stable ids for calendars at these URL paths, unique within the list.

    The readable last segment (`personal`) where it says something and is unique;
    otherwise the one before a generic name, or a hash of the whole path.
    """
    readable = [_readable_segment(path) for path in paths]
    counts = {name: readable.count(name) for name in readable}
    return [
        name if name and counts[name] == 1 else "cal-" + hashlib.sha256(path.encode()).hexdigest()[:10]
        for name, path in zip(readable, paths, strict=True)
    ]


def _readable_segment(path: str) -> str:
    segments = [unquote(s) for s in path.split("/") if s]
    while len(segments) > 1 and segments[-1].lower() in _GENERIC_SEGMENTS:
        segments.pop()
    if not segments:
        return ""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", segments[-1]).strip("-.")[:40]


class CalDavClient:
    """One session with one CalDAV account. Close it (or use `with`) when done."""

    def __init__(self, account: CalDavAccount, connect: Callable[[CalDavAccount], Any] = open_davclient) -> None:
        self.account = account
        self._connect = connect
        self._client: Any = None
        self._calendars: list[tuple[CalendarInfo, Any]] | None = None

    def __enter__(self) -> CalDavClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            try:
                client.close()
            except Exception:  # closing a broken session changes nothing for the user
                pass

    def calendars(self) -> list[CalendarInfo]:
        """The account's calendars, by name."""
        return [info for info, _ in self._listing()]

    def calendar(self, name: str | None) -> CalendarInfo:
        """The calendar called `name` (display name or slug, any case); for None the account's
        `default_calendar`, else the first by name."""
        listing = self._listing()
        if not listing:
            raise ConnectorRejected(
                f"I found no calendars at {self.account.url}; check the calendar address (connect it again)."
            )
        wanted = name or self.account.default_calendar
        if wanted is None:
            return listing[0][0]
        for info, _ in listing:
            if wanted.strip().casefold() in (info.name.casefold(), info.slug.casefold()):
                return info
        if name is not None and means_the_default(name):
            return self.calendar(None)  # "primary", "default", "my calendar": the one new events go to
        bare = wanted.strip().casefold().removeprefix("my ").removesuffix(" calendar").strip()
        for info, _ in listing:
            if bare and bare in (info.name.casefold(), info.slug.casefold()):
                return info  # "my work calendar" is the calendar called Work
        names = ", ".join(info.name for info, _ in listing[:20])
        raise ConnectorRejected(f"You have no calendar called {wanted.strip()!r}. Your calendars: {names}.")

    def objects(self, calendar: CalendarInfo, start: datetime, end: datetime) -> tuple[list[bytes], int]:
        """The raw objects of `calendar` with something in [start, end), and how many were too large."""
        handle = self._handle(calendar)
        found = self._call("search", lambda: handle.search(
            start=start, end=end, event=True, expand=False, post_filter=False
        ))
        texts: list[bytes] = []
        skipped = 0
        for item in found:
            data = self._call("read", lambda item=item: _bytes(item.data))
            if len(data) > MAX_OBJECT_BYTES:
                skipped += 1
            else:
                texts.append(data)
        return texts, skipped

    def find(self, calendar: CalendarInfo, uid: str) -> StoredEvent:
        """The object holding `uid` in `calendar`, freshly loaded with its ETag."""
        from caldav.lib.error import NotFoundError

        handle = self._handle(calendar)
        failure: ConnectorError
        try:
            resource = handle.get_object_by_uid(uid)
            resource.load()
            return StoredEvent(calendar, _bytes(resource.data), resource)
        except NotFoundError:
            failure = ConnectorRejected(
                f"That event isn't in your {calendar.name} calendar (it may have been deleted)."
            )
        except Exception as exc:
            failure = translate(exc, self.account.host, "find", self._secret())
        raise failure  # outside the except: no library exception (or its frames) chained to it

    def create(self, calendar: CalendarInfo, uid: str, data: bytes) -> bool:
        """Store a new object; False (and no change) when one with this UID is already there."""
        import caldav
        from caldav.lib.error import ConsistencyError, UidConflictError

        handle = self._handle(calendar)
        failure: ConnectorError
        try:
            resource = caldav.Event(client=self._client, url=handle.url.join(quote(uid, safe="@") + ".ics"),
                                    parent=handle)
            # If-None-Match: * (or a UID search first, where the server lacks it): never two copies.
            resource.save(raw_data=data, no_overwrite=True)
            return True
        except (ConsistencyError, UidConflictError):
            return False  # a retried job: the event it made the first time is there
        except Exception as exc:
            failure = translate(exc, self.account.host, "create", self._secret())
        raise failure

    def replace(self, stored: StoredEvent, data: bytes) -> None:
        """Overwrite the object, unless it changed on the server since `find` (then retryable)."""
        self._call("update", lambda: stored.resource.save(raw_data=data, precondition="etag"))

    def delete(self, stored: StoredEvent) -> None:
        """Delete the object, unless it changed on the server since `find`."""
        # Without an ETag to compare, the delete is unconditional (a server that sends none).
        if_match = bool(stored.resource.etag)
        self._call("delete", lambda: stored.resource.delete(if_match=if_match))

    def _listing(self) -> list[tuple[CalendarInfo, Any]]:
        if self._calendars is None:
            _check_transport(self.account)
            def discover() -> list[tuple[CalendarInfo, Any]]:
                if self._client is None:
                    self._client = self._connect(self.account)
                found = self._client.principal().calendars()
                paths = [str(c.url.path) for c in found]
                names = [c.get_display_name() for c in found]
                listing = [
                    (CalendarInfo(name=" ".join(str(name or slug).split())[:80] or slug, slug=slug), c)
                    for c, name, slug in zip(found, names, calendar_slugs(paths), strict=True)
                ]
                # Servers list calendars in no particular order; by name, the default is stable.
                return sorted(listing, key=lambda item: (item[0].name.casefold(), item[0].slug))

            self._calendars = self._call("discovery", discover)
        return self._calendars

    def _handle(self, calendar: CalendarInfo) -> Any:
        for info, handle in self._listing():
            if info.slug == calendar.slug:
                return handle
        raise ConnectorRejected(f"Your calendar {calendar.name!r} is no longer there.")

    def _call(self, stage: str, work: Callable[[], T]) -> T:
        try:
            return work()
        except ConnectorError:
            raise
        except Exception as exc:
            failure = translate(exc, self.account.host, stage, self._secret())
        raise failure

    def _secret(self) -> str:
        return self.account.password.get_secret_value()


def _check_transport(account: CalDavAccount) -> None:
    parts = urlsplit(account.url)
    loopback = (parts.hostname or "") in ("localhost", "127.0.0.1", "::1") or (parts.hostname or "").startswith("127.")
    if parts.scheme == "http" and not loopback and not account.allow_plain_http:
        # Basic auth over plain HTTP hands the password to anyone on the way.
        raise ConnectorRejected(
            f"The calendar address {account.url} uses plain http://, which would send your password "
            "unencrypted, so I didn't connect. Use its https:// address."
        )


def _bytes(data: Any) -> bytes:
    if data is None:
        return b""
    return data.encode("utf-8", "replace") if isinstance(data, str) else bytes(data)
