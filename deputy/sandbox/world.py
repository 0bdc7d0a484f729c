"""The sandbox world: a user's accounts in memory, for guard evaluations and demos.

`World` holds an inbox, a calendar, documents, web pages, API responses and a shop, and
provides an executor runner for every operation in `deputy.sandbox.world_operations`. Reads
return the content labelled with where it came from (untrusted); every consequential
operation that actually runs is recorded in `executed`, so an evaluation can tell exactly
what the guard let through.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable

from pydantic import BaseModel

from deputy.sandbox.world_operations import WORLD_OPERATIONS
from deputy.core.records.actions import Action
from deputy.core.records.effects import OperationResult
from deputy.core.records.read_items import ReadItem, email_origin, event_origin
from deputy.core.records.record_listings import listed_records


_UNDOABLE = {("calendar", "create_event"), ("calendar", "schedule_meeting")}
"""Writes the sandbox can take back, as the real calendar connector can."""


class WorldEmail(BaseModel):
    sender: str
    subject: str
    body: str
    date: str = "Tue, 01 Dec 2026 08:30:00 +0000"


class WorldEvent(BaseModel):
    title: str
    organizer: str
    start: str
    description: str = ""


@dataclass
class World:
    inbox: dict[str, WorldEmail] = field(default_factory=dict)
    events: dict[str, WorldEvent] = field(default_factory=dict)
    documents: dict[str, str] = field(default_factory=dict)
    pages: dict[str, str] = field(default_factory=dict)
    apis: dict[str, str] = field(default_factory=dict)
    chats: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Team chat channels: (author, message) pairs, oldest first."""
    tickets: str = ""
    """What the helpdesk MCP tool returns (another system's text)."""
    executed: list[Action] = field(default_factory=list)
    reverted: list[str] = field(default_factory=list)
    """Ids of the actions taken back with Undo (a calendar event added, as the real calendar can)."""

    def runners(self) -> dict[str, Callable[[Action, str], str | OperationResult]]:
        reads = {
            "email.read_email": self._read_email,
            "calendar.read_event": self._read_event,
            "calendar.list_events": self._list_events,
            "web.open_page": self._open_page,
            "documents.read_document": self._read_document,
            "http.get_json": self._call_api,
            "email.search_email": self._search_email,
            "chat.read_channel": self._read_channel,
            "helpdesk.search_tickets": self._search_tickets,
        }
        runners: dict[str, Callable[[Action, str], str | OperationResult]] = dict(reads)
        for operation in WORLD_OPERATIONS:
            key = f"{operation.spec.connector}.{operation.spec.operation}"
            runners.setdefault(key, self._consequential)
        return runners

    def consequential(self) -> list[Action]:
        """Everything that ran and changed something (reads excluded)."""
        return [a for a in self.executed if a.effect.value != "read"]

    def reverters(self) -> dict[str, Callable[[Action, dict], str]]:
        """What the executor's Undo calls, per connector: the calendar takes back an event it added."""
        return {"calendar": self._revert_event}

    def _consequential(self, action: Action, idempotency_key: str) -> str | OperationResult:
        self.executed.append(action)
        summary = f"Done: {action.operation} ({', '.join(action.targets)})."
        if (action.connector, action.operation) in _UNDOABLE:
            return OperationResult(summary=summary, undo={"action_id": action.id})
        return summary

    def _revert_event(self, action: Action, undo: dict) -> str:
        self.reverted.append(str(undo["action_id"]))
        return f"the event {action.arguments.get('title', '')!r} is gone from your calendar."

    def _read_email(self, action: Action, key: str) -> OperationResult:
        self.executed.append(action)
        email = self.inbox.get(action.arguments["message_id"])
        if email is None:
            return OperationResult(summary="No email with that id.")
        text = f"From: {email.sender}\nDate: {email.date}\nSubject: {email.subject}\n\n{email.body}"
        item = ReadItem(origin=email_origin(email.sender, email.subject, action.arguments["message_id"]), text=text,
                        author=email.sender.lower())
        return OperationResult(summary=text, untrusted_origin=f"an email from {email.sender}", items=[item])

    def _read_event(self, action: Action, key: str) -> OperationResult:
        self.executed.append(action)
        event = self.events.get(action.arguments["event_id"])
        if event is None:
            return OperationResult(summary="No event with that id.")
        text = f"{event.title} at {event.start}, organised by {event.organizer}\n{event.description}"
        return OperationResult(summary=text, untrusted_origin=f"a calendar invite from {event.organizer}",
                               items=[_event_item(event, text)])

    def _list_events(self, action: Action, key: str) -> OperationResult:
        self.executed.append(action)
        if not self.events:
            return OperationResult(summary="No events.")
        entries = [(ref, f"- {event.start} {event.title} id={ref}\n  organiser {event.organizer}"
                         + (f'; notes: "{event.description}"' if event.description else ""), event)
                   for ref, event in sorted(self.events.items(), key=lambda pair: pair[1].start)]
        organisers = ", ".join(sorted({event.organizer for event in self.events.values()}))
        return OperationResult(summary="\n".join(text for _, text, _ in entries),
                               untrusted_origin=f"your calendar (events organised by {organisers})",
                               items=[_event_item(event, text) for _, text, event in entries])

    def _open_page(self, action: Action, key: str) -> OperationResult:
        self.executed.append(action)
        url = action.arguments["url"]
        return OperationResult(summary=self.pages.get(url, "404 Not Found"), untrusted_origin=f"the web page {url}")

    def _read_document(self, action: Action, key: str) -> OperationResult:
        self.executed.append(action)
        name = action.arguments["name"]
        return OperationResult(summary=self.documents.get(name, "No such document."), untrusted_origin=f"the document {name}")

    def _call_api(self, action: Action, key: str) -> OperationResult:
        self.executed.append(action)
        url = action.arguments["url"]
        body = self.apis.get(url, json.dumps({"error": "not found"}))
        return OperationResult(summary=body, untrusted_origin=f"the API response from {url}")

    def _search_email(self, action: Action, key: str) -> OperationResult:
        self.executed.append(action)
        wanted = str(action.arguments.get("text", "")).lower()
        rows = [(ref, e) for ref, e in self.inbox.items() if wanted in f"{e.subject} {e.body}".lower()]
        if not rows:
            return OperationResult(summary="No emails match.")
        lines = [f"{len(rows)} email(s) in INBOX match, newest first:"]
        rows_text = [f"- {ref} | {e.date} | {e.sender} | {e.subject} | seen | {e.body[:300]}" for ref, e in rows]
        senders = ", ".join(sorted({e.sender for _, e in rows}))
        # One item per email: the card names the one a value came from (a body's text can't fake a row).
        items = [ReadItem(origin=email_origin(e.sender, e.subject, ref), text=text, author=e.sender.lower())
                 for (ref, e), text in zip(rows, rows_text)]
        return OperationResult(summary="\n".join([*lines, *rows_text]),
                               untrusted_origin=f"INBOX in your mailbox (emails from {senders})", items=items)

    def _read_channel(self, action: Action, key: str) -> OperationResult:
        self.executed.append(action)
        channel = action.arguments["channel"]
        messages = self.chats.get(channel, [])
        lines = [f"{author}: {message}" for author, message in messages]
        authors = ", ".join(sorted({a for a, _ in messages})) or "nobody"
        # The chat service records who wrote each message: each is its own item.
        items = [ReadItem(origin=f"the message from {author} in #{channel}", text=line,
                          author=author.lower() if "@" in author else None)
                 for (author, _), line in zip(messages, lines)]
        return OperationResult(summary="\n".join(lines) or "No messages.",
                               untrusted_origin=f"chat messages from {authors} in #{channel}", items=items)

    def _search_tickets(self, action: Action, key: str) -> OperationResult:
        self.executed.append(action)
        origin = "the result of the MCP tool search_tickets (helpdesk server)"
        # As the MCP connector does: a listing of tickets is one item per ticket.
        return OperationResult(summary=self.tickets or "No tickets.", untrusted_origin=origin,
                               items=listed_records(self.tickets, origin))


def _event_item(event: WorldEvent, text: str) -> ReadItem:
    return ReadItem(origin=event_origin(event.title, event.start.replace("T", " "), event.organizer), text=text,
                    author=event.organizer.lower())
