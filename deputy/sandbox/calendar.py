"""A real, local CalDAV server (Radicale) for the demo and the tests.

`SandboxCalendar` runs `python -m radicale` as a subprocess on loopback, with one user
whose password is checked (htpasswd, plain), so the calendar connector's login path is as
real as against Google or Fastmail. `seed_demo_calendar` fills a "Personal" and a "Work"
calendar with a fortnight of realistic events around a given `now`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import icalendar

DEFAULT_PASSWORD = "demo-calendar"
_START_ATTEMPTS = 3


@dataclass(frozen=True)
class SeededEvent:
    """One event `seed_demo_calendar` put in place."""

    calendar: str
    uid: str
    title: str


class SandboxCalendar:
    """Radicale on `host`, storing everything under `root`. `port=0` picks a free port."""

    def __init__(
        self,
        root: Path,
        host: str = "127.0.0.1",
        port: int = 0,
        username: str = "demo",
        password: str = DEFAULT_PASSWORD,
        python: str = sys.executable,
    ) -> None:
        # The htpasswd file is one "user:password" line.
        if not username or not password or ":" in username or any(c in username + password for c in "\r\n"):
            raise ValueError("the username and password must be non-empty single lines; no ':' in the username")
        self.root = Path(root)
        self.host = host
        self.username = username
        self.password = password
        self._requested_port = port
        self._port = port
        self._python = python
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def port(self) -> int:
        """The port listened on once started (the requested one before)."""
        return self._port

    @property
    def url(self) -> str:
        """The server's root URL: what a user would paste into "Connect your calendar"."""
        return f"http://{self.host}:{self._port}/"

    @property
    def log_path(self) -> Path:
        return self.root / "radicale.log"

    def start(self, timeout: float = 20.0) -> SandboxCalendar:
        """Start Radicale and return once it answers HTTP; RuntimeError if it doesn't."""
        if self._process is not None:
            raise RuntimeError("the sandbox calendar is already running")
        self.root.mkdir(parents=True, exist_ok=True)
        users = self.root / "users"
        users.write_text(f"{self.username}:{self.password}\n", encoding="utf-8")
        users.chmod(0o600)
        for _ in range(_START_ATTEMPTS):
            # Radicale can't listen on port 0, so a free port is chosen here; another
            # process may take it in between, hence the retries.
            self._port = self._requested_port or _free_port(self.host)
            self._process = self._spawn(users)
            if self._wait_until_up(timeout):
                return self
            self.stop()
            if self._requested_port:
                break
        raise RuntimeError(f"Radicale did not start; see {self.log_path}: {self._log_tail()}")

    def stop(self) -> None:
        """Stop the server; does nothing when it isn't running. The stored calendars stay."""
        process, self._process = self._process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def __enter__(self) -> SandboxCalendar:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def seed_demo_calendar(self, now: datetime, zone: str = "UTC") -> list[SeededEvent]:
        """Create "Personal" and "Work" (if missing) and put the demo events in them.

        Events are placed relative to `now` in `zone` (over the coming two weeks). Seeding
        again overwrites the same events instead of adding copies.
        """
        tz = ZoneInfo(zone)
        today = now.astimezone(tz).date()
        with self._client() as client:
            principal = client.principal()
            existing = {str(c.url.path).rstrip("/").rsplit("/", 1)[-1]: c for c in principal.calendars()}
            calendars: dict[str, Any] = {}
            for name in ("Personal", "Work"):
                slug = name.lower()
                calendars[name] = existing.get(slug) or principal.make_calendar(name=name, cal_id=slug)
            seeded: list[SeededEvent] = []
            for name, event in demo_events(today, tz, now):
                calendar = icalendar.Calendar()
                calendar.add("prodid", "-//Deputy//Sandbox calendar//EN")
                calendar.add("version", "2.0")
                calendar.add_component(event)
                calendar.add_missing_timezones()
                uid = str(event["UID"])
                calendars[name].add_event(calendar.to_ical().decode("utf-8"), increase_seqno=False)
                seeded.append(SeededEvent(calendar=name, uid=uid, title=str(event["SUMMARY"])))
        return seeded

    def _client(self) -> Any:
        import caldav

        client = caldav.DAVClient(
            url=self.url, username=self.username, password=self.password, enable_rfc6764=False, timeout=10
        )
        client.session.trust_env = False
        return client

    def _spawn(self, users: Path) -> subprocess.Popen[bytes]:
        command = [
            self._python, "-m", "radicale",
            "--config", "",  # no /etc/radicale/config or ~/.config/radicale/config
            f"--storage-filesystem-folder={self.root / 'collections'}",
            "--auth-type=htpasswd",
            f"--auth-htpasswd-filename={users}",
            "--auth-htpasswd-encryption=plain",
            "--auth-delay=0",  # loopback only; the default one-second delay would slow every failed login test
            f"--server-hosts={self.host}:{self._port}",
            "--logging-level=warning",
        ]
        log = self.log_path.open("ab")
        try:
            return subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        finally:
            log.close()  # the child has its own copy

    def _wait_until_up(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with httpx.Client(timeout=1.0, trust_env=False) as http:
            while time.monotonic() < deadline:
                if self._process is None or self._process.poll() is not None:
                    return False
                try:
                    http.request("OPTIONS", self.url)
                    return True
                except httpx.HTTPError:
                    time.sleep(0.05)  # polling a condition: the server gives no other signal
        return False

    def _log_tail(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")[-500:].strip()
        except OSError:
            return "(no log)"


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def next_weekday(day: date, weekday: int, *, at_least: int = 1) -> date:
    """The first date at least `at_least` days after `day` that falls on `weekday` (Monday is 0)."""
    candidate = day + timedelta(days=at_least)
    return candidate + timedelta(days=(weekday - candidate.weekday()) % 7)


def demo_events(today: date, tz: ZoneInfo, now: datetime) -> list[tuple[str, icalendar.Event]]:
    """The demo fortnight: (calendar name, event) pairs placed after `today` in `tz`."""
    stamp = now.astimezone(ZoneInfo("UTC"))

    def at(day: date, hour: int, minute: int = 0, zone: ZoneInfo = tz) -> datetime:
        return datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone)

    def event(uid: str, title: str, start: date | datetime, end: date | datetime, **extra: Any) -> icalendar.Event:
        item = icalendar.Event()
        item.add("uid", f"demo-{uid}@sandbox.deputy")
        item.add("dtstamp", stamp)
        item.add("summary", title)
        item.add("dtstart", start)
        item.add("dtend", end)
        for name, value in extra.items():
            values = value if isinstance(value, list) else [value]
            for one in values:
                item.add(name.replace("_", "-"), one)
        return item

    # The standup series began a month ago, as a real one would have.
    monday = today - timedelta(days=today.weekday() + 28)
    tuesday = next_weekday(today, 1)
    friday = next_weekday(today, 4, at_least=0)
    saturday = next_weekday(today, 5)
    lisbon = ZoneInfo("Europe/Lisbon")
    flight_day = today + timedelta(days=9)
    return [
        ("Work", event("standup", "Team standup", at(monday, 9, 30), at(monday, 9, 45),
                       rrule={"FREQ": "WEEKLY", "BYDAY": ["MO", "WE", "FR"]}, location="Video call",
                       organizer="mailto:lena@work.example", attendee=["mailto:demo@sandbox.deputy"])),
        ("Work", event("planning", "Quarterly planning", at(tuesday, 14), at(tuesday, 16), location="Room 4.12",
                       description="Bring the Q1 numbers. Agenda in the shared doc.",
                       organizer="mailto:lena@work.example")),
        ("Work", event("one-on-one", "1:1 with Priya", at(next_weekday(today, 3), 11),
                       at(next_weekday(today, 3), 11, 30))),
        ("Personal", event("dentist", "Dentist appointment", at(today + timedelta(days=3), 8, 30),
                           at(today + timedelta(days=3), 9, 15), location="Dr. Weber, Hauptstrasse 5")),
        ("Personal", event("dinner-sam", "Dinner with Sam", at(friday, 19, 30), at(friday, 22),
                           location="Trattoria Da Mario", description="Table for two, booked under Sam.")),
        ("Personal", event("concert", "Concert: Nils Frahm", at(saturday, 21), at(saturday + timedelta(days=1), 0, 30),
                           location="Funkhaus")),
        ("Personal", event("birthday-mum", "Mum's birthday", today + timedelta(days=6), today + timedelta(days=7),
                           transp="TRANSPARENT")),
        ("Personal", event("gym", "Gym", at(tuesday, 18), at(tuesday, 19),
                           rrule={"FREQ": "WEEKLY", "BYDAY": ["TU", "TH"], "COUNT": 4})),
        # Departure and arrival in their own zones, as airlines' calendar files do.
        ("Personal", event("flight", "Flight LH 1166 to Lisbon", at(flight_day, 7, 5),
                           at(flight_day, 9, 40, lisbon), location="BER Terminal 1")),
    ]
