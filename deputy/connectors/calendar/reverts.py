"""Taking back a calendar change that ran without a card: delete what was created, put back what
was moved or removed (the event's stored text from before the change).

The executor calls `revert` with what the operation returned in `OperationResult.undo`; the
answer is a sentence for the user, honest about what could not be taken back.
"""

from __future__ import annotations

from typing import Any

from deputy.core.records.actions import Action
from deputy.core.records.effects import ConnectorRejected
from deputy.connectors.calendar.client import CalDavClient
from deputy.connectors.calendar.runners import CalendarRunners, about_event


class CalendarReverts:
    def __init__(self, runners: CalendarRunners) -> None:
        self._runners = runners

    def revert(self, action: Action, undo: dict[str, Any]) -> str:
        account = self._runners.account_for(action.user_id)
        with CalDavClient(account, self._runners.connect) as client:
            calendar = client.calendar(undo["calendar"])
            if undo["kind"] == "delete":
                try:
                    stored = client.find(calendar, undo["uid"])
                except ConnectorRejected:
                    return f"It was already gone from your {calendar.name} calendar."
                title, _ = about_event(stored.data, undo["uid"], account)
                client.delete(stored)
                note = " People you invited may already have seen the invitation." if undo.get("invited") else ""
                return f"Removed “{title}” from your {calendar.name} calendar.{note}"
            before = str(undo["ics"]).encode()
            title, _ = about_event(before, undo["uid"], account)
            try:
                stored = client.find(calendar, undo["uid"])
            except ConnectorRejected:
                client.create(calendar, undo["uid"], before)
                return f"Put “{title}” back in your {calendar.name} calendar as it was."
            client.replace(stored, before)
            return f"Put “{title}” back as it was in your {calendar.name} calendar."
