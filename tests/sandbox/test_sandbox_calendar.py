"""The sandbox calendar: a real Radicale that starts, checks passwords, seeds a demo and stops."""

from __future__ import annotations

import socket
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from deputy.core.records.effects import OperationResult
from deputy.connectors.calendar.client import CalDavAccount, CalDavClient
from deputy.connectors.calendar.runners import CalendarRunners
from deputy.sandbox.calendar import SandboxCalendar, demo_events, next_weekday
from deputy.core.records.actions import Action

NOW = datetime(2026, 12, 2, 15, 0, tzinfo=timezone.utc)  # a Wednesday afternoon


def propfind(url: str, auth: tuple[str, str]) -> int:
    with httpx.Client(trust_env=False, timeout=5) as http:
        return http.request("PROPFIND", url + auth[0] + "/", auth=auth, headers={"Depth": "0"}).status_code


def listing(server: SandboxCalendar, start: str, end: str, zone: str) -> str:
    account = CalDavAccount(url=server.url, username=server.username, password=SecretStr(server.password))
    runner = CalendarRunners(None, default=account, default_zone=zone).runners()["calendar.list_events"]
    action = Action(id="a", goal_id="g", user_id=1, chat_id=1, connector="calendar", operation="list_events",
                    effect="read", arguments={"start": start, "end": end}, tool_call_id="c", created_at=0)
    result = runner(action, "k")
    assert isinstance(result, OperationResult)
    return result.summary


def test_it_starts_checks_the_password_and_stops(tmp_path: Path) -> None:
    server = SandboxCalendar(tmp_path / "cal", password="s3cret-demo")
    assert server.port == 0
    with server:
        assert server.port > 0 and server.url == f"http://127.0.0.1:{server.port}/"
        assert propfind(server.url, ("demo", "s3cret-demo")) == 207
        assert propfind(server.url, ("demo", "wrong")) == 401
        assert propfind(server.url, ("someone", "s3cret-demo")) == 401
        with pytest.raises(RuntimeError, match="already running"):
            server.start()
    with socket.socket() as probe, pytest.raises(OSError):
        probe.settimeout(1)
        probe.connect(("127.0.0.1", server.port))
    server.stop()  # stopping twice is harmless


def test_seeding_fills_personal_and_work_with_a_fortnight_once(tmp_path: Path) -> None:
    with SandboxCalendar(tmp_path / "cal") as server:
        seeded = server.seed_demo_calendar(NOW, "Europe/Berlin")
        assert {e.calendar for e in seeded} == {"Personal", "Work"}
        assert len(seeded) >= 8
        assert {"Team standup", "Dentist appointment", "Dinner with Sam"} <= {e.title for e in seeded}
        assert any(e.title.startswith("Flight") for e in seeded)
        # Seeding again replaces the same events rather than adding copies.
        server.seed_demo_calendar(NOW, "Europe/Berlin")
        account = CalDavAccount(url=server.url, username="demo", password=SecretStr(server.password))
        with CalDavClient(account) as client:
            assert [c.name for c in client.calendars()] == ["Personal", "Work"]
            total = sum(len(client.objects(c, NOW - timedelta(days=60), NOW + timedelta(days=30))[0])
                        for c in client.calendars())
        assert total == len(seeded)
        text = listing(server, "2026-12-02", "2026-12-16", "Europe/Berlin")
    assert "Fri 2026-12-04 19:30–22:00 Dinner with Sam" in text
    assert "Sat 2026-12-05 21:00 – Sun 2026-12-06 00:30 Concert: Nils Frahm" in text
    assert text.count("Team standup") == 7  # Mon, Wed and Fri from Wed 2 to Wed 16 December


def test_the_calendars_survive_a_restart(tmp_path: Path) -> None:
    with SandboxCalendar(tmp_path / "cal") as server:
        server.seed_demo_calendar(NOW)
    with SandboxCalendar(tmp_path / "cal") as again:
        assert "Dinner with Sam" in listing(again, "2026-12-04", "2026-12-04", "UTC")


def test_a_busy_port_or_bad_credentials_fail_plainly(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        SandboxCalendar(tmp_path, username="de:mo")
    with pytest.raises(ValueError):
        SandboxCalendar(tmp_path, password="two\nlines")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        server = SandboxCalendar(tmp_path / "cal", port=taken.getsockname()[1])
        with pytest.raises(RuntimeError, match="Radicale did not start"):
            server.start(timeout=10)


def test_demo_events_are_placed_after_today_in_the_given_zone() -> None:
    from zoneinfo import ZoneInfo

    today = NOW.date()
    events = demo_events(today, ZoneInfo("Asia/Tokyo"), NOW)
    starts = {str(e["SUMMARY"]): e["DTSTART"].dt for _, e in events}
    assert starts["Dinner with Sam"].isoformat() == "2026-12-04T19:30:00+09:00"
    assert next_weekday(today, 2) == today + timedelta(days=7)  # "next Wednesday" from a Wednesday
    assert next_weekday(today, 2, at_least=0) == today
