"""Undo for reversible writes that ran without a card (a calendar event created, moved, removed;
an email moved or marked).

When such a write succeeds and its connector can revert it, `offer` keeps what the connector
returned for that (`deputy.core.records.undo_store`) and the shown message gets an Undo button. The bot's
press begins the undo atomically and hands it here (`revert`), where the connector takes the
change back with the user's credentials; the user is told what was reverted, or why not all.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Mapping

from deputy.core.records.actions import Action
from deputy.core.records.effects import ConnectorError, ConnectorRejected
from deputy.core.records.outbox import Outbox, OutboxMessage
from deputy.core.records.undo_store import UNDO_PERIOD, UndoEntry, UndoState, UndoStore
from deputy.sentinel.stores.action_store import ActionStore
from deputy.sentinel.stores.audit import AuditLog
from deputy.vault import Scrubber

log = logging.getLogger(__name__)

Reverter = Callable[[Action, dict[str, Any]], str]
"""Takes back one change (with what its operation returned to do so); returns a sentence."""


class UndoWrites:
    def __init__(self, redis, actions: ActionStore, outbox: Outbox, audit: AuditLog,
                 reverters: Mapping[str, Reverter], clock: Callable[[], float], scrubber: Scrubber) -> None:
        self._store = UndoStore(redis)
        self._actions = actions
        self._outbox = outbox
        self._audit = audit
        self._reverters = reverters
        self._clock = clock
        self._scrubber = scrubber

    def offer(self, action: Action, undo: dict[str, Any] | None) -> bool:
        """Keep how to revert `action`; False when its connector cannot take it back."""
        if undo is None or action.connector not in self._reverters:
            return False
        self._store.create(UndoEntry(action_id=action.id, user_id=action.user_id, chat_id=action.chat_id,
                                     goal_id=action.goal_id, until=self._clock() + UNDO_PERIOD, revert=undo))
        return True

    def revert(self, action_id: str) -> None:
        entry = self._store.get(action_id)
        record = self._actions.get(action_id)
        if entry is None or record is None or entry.state is not UndoState.undoing:
            return  # not asked for (or already done by a job that ran twice)
        action = record.action
        try:
            said = self._reverters[action.connector](action, entry.revert)
        except ConnectorError as exc:
            message = self._scrubber.scrub(exc.user_message)
            log.warning("undo of %s failed: %s", action_id, message)
            self._store.finished(action_id, ok=False)
            self._audit.append(action.user_id, "undo_failed", self._clock(), action_id=action_id, outcome=message)
            # Refused (e.g. the email was moved again since): pressing again would not help.
            again = "" if isinstance(exc, ConnectorRejected) else " You can press Undo again."
            self._outbox.put(OutboxMessage(chat_id=action.chat_id, text=f"⚠️ I couldn't undo it: {message}{again}"))
            return
        self._store.finished(action_id, ok=True)
        self._audit.append(action.user_id, "action_undone", self._clock(), action_id=action_id,
                           operation=f"{action.connector}.{action.operation}", content=said)
        self._outbox.put(OutboxMessage(chat_id=action.chat_id, text=f"↩️ Undone: {said}",
                                       dedupe_key=f"{action.goal_id}:undone:{action_id}:{entry.requested_at}"))
