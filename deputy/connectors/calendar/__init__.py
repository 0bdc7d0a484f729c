"""The calendar connector: list, find free time, create, move and cancel events over CalDAV.

Works with any CalDAV server (Google, iCloud, Fastmail, Nextcloud, Radicale). Pure cores
(`timezones`, `events`, `ical`, `freebusy`, `render`) do the thinking; `client` is the
only module that talks to the server, and `runners` wires both to the executor.
"""

from deputy.connectors.calendar.client import CalDavAccount, CalDavClient, StoredEvent, calendar_slugs, open_davclient
from deputy.connectors.calendar.events import CalendarInfo, Occurrence, UnreadableEvent, expand
from deputy.connectors.calendar.ical import NewEvent, build_event, uid_for
from deputy.connectors.calendar.ids import BadEventId, EventRef, parse_event_id
from deputy.connectors.calendar.operations import (
    CALENDAR_OPERATIONS,
    CALENDAR_SERVICE,
    CANCEL_EVENT,
    CREATE_EVENT,
    FREE_BUSY,
    LIST_EVENTS,
    MOVE_EVENT,
    SCHEDULE_MEETING,
)
from deputy.connectors.calendar.runners import CALDAV_HANDLE, CalendarRunners
from deputy.connectors.calendar.timezones import TimeProblem, zone_named

__all__ = [
    "CALDAV_HANDLE",
    "CALENDAR_OPERATIONS",
    "CALENDAR_SERVICE",
    "CANCEL_EVENT",
    "CREATE_EVENT",
    "FREE_BUSY",
    "LIST_EVENTS",
    "MOVE_EVENT",
    "SCHEDULE_MEETING",
    "BadEventId",
    "CalDavAccount",
    "CalDavClient",
    "CalendarInfo",
    "CalendarRunners",
    "EventRef",
    "NewEvent",
    "Occurrence",
    "StoredEvent",
    "TimeProblem",
    "UnreadableEvent",
    "build_event",
    "calendar_slugs",
    "expand",
    "open_davclient",
    "parse_event_id",
    "uid_for",
    "zone_named",
]
