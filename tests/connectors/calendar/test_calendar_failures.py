"""Everything that can go wrong reaching a calendar ends as a plain ConnectorError, never a crash."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from calendar_testkit import NOW, ZONE, Call, make_action
from pydantic import SecretStr
from redis import Redis

from deputy.core.records.effects import (
    ConnectorAuthError,
    ConnectorError,
    ConnectorRejected,
    ConnectorUnavailable,
    OperationResult,
)
from deputy.connectors.calendar.runners import CALDAV_HANDLE, CalendarRunners
from deputy.connectors.calendar.client import CalDavAccount
from deputy.sandbox.calendar import SandboxCalendar
from deputy.vault import KdfCost, Vault

EVENT = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:{uid}\r\n"
         "DTSTAMP:20261101T000000Z\r\nSUMMARY:{title}\r\nDTSTART:20261201T090000Z\r\nDTEND:20261201T100000Z\r\n"
         "END:VEVENT\r\nEND:VCALENDAR\r\n")


def run(account: CalDavAccount, operation: str, **arguments: object) -> OperationResult | str:
    runners = CalendarRunners(None, default=account, default_zone=ZONE, clock=lambda: NOW).runners()
    return runners[f"calendar.{operation}"](make_action(operation, dict(arguments)), "key-1")


def account_at(url: str, password: str = "secret-pw-123", timeout: float = 3) -> CalDavAccount:
    return CalDavAccount(url=url, username="demo", password=SecretStr(password), timeout=timeout)


class FakeServer:
    """A tiny local HTTP server whose answers each test chooses."""

    def __init__(self, handle: Callable[[http.server.BaseHTTPRequestHandler], None]) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                handle(self)

            do_GET = do_PUT = do_PROPFIND = do_REPORT = do_OPTIONS = do_DELETE = _any

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def reply(request: http.server.BaseHTTPRequestHandler, status: int, body: bytes, kind: str = "application/xml") -> None:
    request.send_response(status)
    request.send_header("Content-Type", kind)
    request.send_header("Content-Length", str(len(body)))
    request.end_headers()
    request.wfile.write(body)


def caldav_answers(objects: list[bytes]) -> Callable[[http.server.BaseHTTPRequestHandler], None]:
    """A just-enough CalDAV server: one principal, one calendar, `objects` in every REPORT."""

    def prop_response(href: str, props: str) -> str:
        return (f"<d:response><d:href>{href}</d:href><d:propstat><d:prop>{props}</d:prop>"
                "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>")

    def handle(request: http.server.BaseHTTPRequestHandler) -> None:
        ns = 'xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"'
        if request.command == "PROPFIND":
            principal = ("<d:current-user-principal><d:href>/u/</d:href></d:current-user-principal>"
                         "<c:calendar-home-set><d:href>/u/</d:href></c:calendar-home-set>"
                         "<d:resourcetype><d:collection/></d:resourcetype>")
            body = prop_response("/u/", principal)
            if request.headers.get("Depth") == "1":
                body += prop_response("/u/odd/", "<d:resourcetype><d:collection/><c:calendar/></d:resourcetype>"
                                                 "<d:displayname>Odd</d:displayname>")
            reply(request, 207, f'<?xml version="1.0"?><d:multistatus {ns}>{body}</d:multistatus>'.encode())
            return
        if request.command == "REPORT":
            parts = [
                b"<d:response><d:href>/u/odd/" + str(i).encode() + b".ics</d:href><d:propstat><d:prop>"
                b"<d:getetag>\"" + str(i).encode() + b"\"</d:getetag><c:calendar-data>" + data
                + b"</c:calendar-data></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
                for i, data in enumerate(objects)
            ]
            body = f'<?xml version="1.0" encoding="utf-8"?><d:multistatus {ns}>'.encode() + b"".join(parts)
            reply(request, 207, body + b"</d:multistatus>")
            return
        reply(request, 405, b"")

    return handle


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_server_that_is_down_is_unavailable_and_retryable() -> None:
    port = closed_port()
    with pytest.raises(ConnectorUnavailable) as caught:
        run(account_at(f"http://127.0.0.1:{port}/"), "list_events", start="2026-12-01")
    assert caught.value.retryable
    assert caught.value.user_message == f"I couldn't reach the calendar server at 127.0.0.1:{port}."
    assert caught.value.__context__ is None  # nothing of the library's (or its frames) rides along


def test_a_wrong_password_is_an_auth_error_that_never_shows_the_password(radicale: SandboxCalendar) -> None:
    wrong = "wrong-" + radicale.password
    for operation, args in [("list_events", {"start": "2026-12-01"}),
                            ("create_event", {"title": "x", "start": "2026-12-01T10:00"})]:
        with pytest.raises(ConnectorAuthError) as caught:
            run(account_at(radicale.url, wrong), operation, **args)
        error = caught.value
        assert error.user_message == (
            f"The calendar server at 127.0.0.1:{radicale.port} rejected the username or password."
        )
        assert not error.retryable
        assert wrong not in f"{error} {error.detail} {error!r}"


def test_the_password_never_goes_over_plain_http_to_another_machine() -> None:
    with pytest.raises(ConnectorRejected, match="plain http://"):
        run(account_at("http://calendar.example.com/dav/"), "list_events", start="2026-12-01")


def test_garbage_xml_is_unavailable_with_a_plain_message() -> None:
    with FakeServer(lambda r: reply(r, 207, b"<<<this is not xml \x00\xff")) as server:
        with pytest.raises(ConnectorUnavailable) as caught:
            run(account_at(server.url), "list_events", start="2026-12-01")
    assert caught.value.user_message.endswith("answered in a way I couldn't understand; try again later.")


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors_are_unavailable(status: int) -> None:
    with FakeServer(lambda r: reply(r, status, b"<html>oops</html>", "text/html")) as server:
        with pytest.raises(ConnectorUnavailable):
            run(account_at(server.url), "free_busy", start="2026-12-01", end="2026-12-02")


def test_a_server_that_never_answers_times_out() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/"
        with pytest.raises(ConnectorUnavailable, match="stopped answering"):
            run(account_at(url, timeout=1), "list_events", start="2026-12-01")


def test_an_html_page_instead_of_a_calendar_server_is_a_plain_error() -> None:
    with FakeServer(lambda r: reply(r, 200, b"<html><body>Welcome to nginx</body></html>", "text/html")) as server:
        for operation, args in [("list_events", {"start": "2026-12-01"}),
                                ("create_event", {"title": "x", "start": "2026-12-01T10:00"})]:
            with pytest.raises(ConnectorRejected) as caught:
                run(account_at(server.url), operation, **args)
            assert caught.value.user_message == (
                f"I found no calendars at {server.url}; check the calendar address (connect it again)."
            )


def test_unreadable_and_oversized_objects_are_skipped_with_a_note() -> None:
    objects = [
        EVENT.format(uid="good", title="Good one").encode(),
        b"BEGIN:VCALENDAR\r\nthis is not icalendar\r\n",
        EVENT.format(uid="big", title="Big " + "x" * 1_100_000).encode(),
    ]
    with FakeServer(caldav_answers(objects)) as server:
        result = run(account_at(server.url), "list_events", start="2026-12-01")
    assert isinstance(result, OperationResult)
    assert "Good one [Odd]" in result.summary
    assert "1 stored event(s) could not be read and were skipped." in result.summary
    assert len(result.summary) < 1000


def test_a_reply_in_the_wrong_encoding_is_unavailable_not_a_crash() -> None:
    # Latin-1 bytes in an XML reply that declares UTF-8: the whole reply is unreadable.
    objects = [EVENT.format(uid="latin", title="Caf\xe9").encode("latin-1")]
    with FakeServer(caldav_answers(objects)) as server:
        with pytest.raises(ConnectorUnavailable, match="answered in a way I couldn't understand"):
            run(account_at(server.url), "list_events", start="2026-12-01")


def test_odd_encodings_and_huge_descriptions_come_back_bounded(
    call: Call, scratch: str, put_event: Callable[[str, str], None]
) -> None:
    title = "Abendessen 🍝 mit 山田さん — שלום"
    call("create_event", key="u1", title=title, start="2026-12-03T19:00", calendar=scratch, location="Zürich\u200b HB")
    # An invitation from elsewhere, with far more text than anyone should read.
    put_event(scratch, EVENT.format(uid="huge@elsewhere", title="Huge").replace(
        "SUMMARY:Huge", "SUMMARY:Huge\r\nDESCRIPTION:" + "Ünïcödé " * 30_000))
    text = call("list_events", start="2026-12-01", end="2026-12-03", calendar=scratch)
    assert isinstance(text, OperationResult)
    assert title in text.summary and "Zürich" in text.summary and "Huge" in text.summary
    assert len(text.summary) < 1000


def test_nonexistent_ids_are_rejected_plainly(call: Call) -> None:
    with pytest.raises(ConnectorRejected, match="isn't in your Personal calendar"):
        call("cancel_event", event_id="personal/never-was@nowhere")
    with pytest.raises(ConnectorRejected, match="isn't in the calendar"):
        call("cancel_event", event_id="work/demo-standup@sandbox.deputy/20261201T083000Z")  # a Tuesday


@pytest.fixture
def vault(tmp_path: Path, redis: Redis) -> Vault:
    return Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024,
                                                                             parallelism=1))


def test_the_account_comes_from_the_users_vault_entry(radicale: SandboxCalendar, vault: Vault) -> None:
    runners = CalendarRunners(vault, default_zone="UTC", clock=lambda: NOW).runners()
    list_events = runners["calendar.list_events"]
    with pytest.raises(ConnectorError, match="isn't connected yet"):
        list_events(make_action("list_events", {"start": "2026-12-04"}, user_id=42), "k")
    vault.put(42, CALDAV_HANDLE, SecretStr(radicale.password), "password", "Calendar",
              {"url": radicale.url, "username": radicale.username, "timezone": "America/New_York"})
    result = list_events(make_action("list_events", {"start": "2026-12-04", "calendar": "Personal"}, user_id=42), "k")
    assert isinstance(result, OperationResult)
    # The user's own zone from the credential: dinner at 19:30 in Berlin is 13:30 in New York.
    assert "times in America/New_York" in result.summary and "13:30–16:00 Dinner with Sam" in result.summary
    # Another user has no entry: their handle is simply not found.
    with pytest.raises(ConnectorError, match="isn't connected yet"):
        list_events(make_action("list_events", {"start": "2026-12-04"}, user_id=43), "k")
    vault.put(43, CALDAV_HANDLE, SecretStr("not-the-password"), "password", "Calendar",
              {"url": radicale.url, "username": radicale.username})
    with pytest.raises(ConnectorAuthError) as caught:
        list_events(make_action("list_events", {"start": "2026-12-04"}, user_id=43), "k")
    assert "not-the-password" not in f"{caught.value} {caught.value.detail}"


def test_a_vault_entry_with_a_broken_address_is_a_plain_error(vault: Vault) -> None:
    vault.put(44, CALDAV_HANDLE, SecretStr("pw-pw-pw"), "password", "Calendar", {"url": "ftp://x", "username": "u"})
    runners = CalendarRunners(vault).runners()
    with pytest.raises(ConnectorError, match="connect your calendar again"):
        runners["calendar.list_events"](make_action("list_events", {"start": "2026-12-04"}, user_id=44), "k")

