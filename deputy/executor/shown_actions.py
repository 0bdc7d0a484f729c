"""What runs without a card is shown in full, and an outgoing message first waits in its send window.

The executor asks `settle` before reviewing an action (is it waiting, due, undone?) and
`hold` when the guard allowed it without asking: a message to someone is then stored as
waiting (`deputy.core.records.send_window_store`), shown with Undo / Send now / Edit, and its delivery is
scheduled for when the window ends. That delivery, a Send now or an Undo each hand the action
back to the executor, which finds the entry's state decided atomically and runs it once, or
tells the goal it was cancelled. Anything else that ran without a card is shown once it ran.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from deputy.core.records.actions import Action
from deputy.core.records.outbox import Button, Outbox, OutboxMessage
from deputy.core.records.send_window import HeldSend, Refused, SendEvent, SendState, window_seconds
from deputy.core.records.send_window_store import SendWindowStore
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.sentinel.stores.action_store import ActionRecord
from deputy.sentinel.shown import (
    body_field, cannot_wait, folded, is_outgoing, is_side_effect, sent_text, shown_text, undone_text, with_body,
)

RUN, WAIT, CANCELLED = "run", "wait", "cancelled"


@dataclass(frozen=True)
class Settled:
    """What to do with an action found in its send window: run it (as `action`), wait, or cancel it."""

    verdict: str
    action: Action
    why: str = ""


def shown_ref(action_id: str) -> str:
    return f"shown:{action_id}"


class ShownActions:
    def __init__(self, redis, outbox: Outbox, dispatch, clock: Callable[[], float],
                 default_window: int = 0) -> None:
        self._store = SendWindowStore(redis)
        self._settings = UserSettingsStore(redis)
        self._outbox = outbox
        self._dispatch = dispatch
        self._clock = clock
        self._default_window = default_window

    def settle(self, action: Action, step: int) -> Settled | None:
        """None when the action never waited in a send window."""
        held = self._store.get(action.id)
        if held is None:
            return None
        if held.state in (SendState.waiting, SendState.editing):
            now = self._clock()
            try:
                held = self._store.apply(action.id, SendEvent.due, now)
            except Refused:
                # Early (an Edit moved the time on): come back when it is due; a press hands it back sooner.
                self._dispatch.action(action.id, action.goal_id, step, delay=max(math.ceil(held.due - now), 1))
                return Settled(WAIT, action)
        if held.state is SendState.undone:
            return Settled(CANCELLED, action, f"{held.why}, so it was not sent.")
        if held.state is SendState.sending:
            return Settled(RUN, action)  # `as_sent` puts in a corrected text
        return Settled(WAIT, action)  # sent: the action's own record already says so

    def as_sent(self, record: ActionRecord) -> ActionRecord:
        """The record with the text the user corrected in the send window, if they did."""
        held = self._store.get(record.action.id)
        if held is None or held.edited_body is None:
            return record
        return record.model_copy(update={"action": with_body(record.action, held.edited_body)})

    def hold(self, action: Action, step: int, delivered: Action | None = None) -> bool:
        """Keep an outgoing message in its send window; False when it goes out at once. `delivered`:
        what will actually go out when it differs from `action` (a negotiation move's composed message),
        which is what the user is shown."""
        # A watch's unattended check only reads; were one to send, nobody would be there to Undo it.
        if not is_outgoing(action) or action.unattended or cannot_wait(action) is not None:
            return False
        seconds = self._window(action)
        if seconds <= 0:
            return False
        now = self._clock()
        held = HeldSend(action_id=action.id, goal_id=action.goal_id, user_id=action.user_id, chat_id=action.chat_id,
                        due=now + seconds)
        self._store.create(held)  # a job run twice finds the first entry and shows the same message
        self._outbox.put(OutboxMessage(
            chat_id=action.chat_id, buttons=window_buttons(action),
            text=shown_text(delivered or action, waiting=seconds, editable=body_field(action) is not None),
            ref=shown_ref(action.id), dedupe_key=f"{action.goal_id}:shown:{action.id}",
            goal_id=action.goal_id,
        ))
        self._dispatch.action(action.id, action.goal_id, step, delay=max(math.ceil(held.due - now), 1))
        return True

    def _window(self, action: Action) -> int:
        return window_seconds(self._settings.get(action.user_id).send_window, self._default_window)

    def ran(self, action: Action, held: bool, undoable: bool = False, delivered: Action | None = None) -> None:
        """After it ran: a held message's text becomes what was sent; anything else is shown now.
        `undoable`: its change can still be taken back (an invitation's event), so it gets Undo;
        `delivered`: what actually went out, when it differs from `action` (see `hold`)."""
        shown = delivered or action
        undo = [[Button(text="Undo", sign=f"uw:{action.id}")]] if undoable else []
        if held:
            try:
                self._store.apply(action.id, SendEvent.delivered, self._clock())
            except Refused:
                pass
            self._outbox.put(OutboxMessage(
                chat_id=action.chat_id, text=sent_text(shown), edit_ref=shown_ref(action.id),
                buttons=undo + _show_all(action), dedupe_key=f"{action.goal_id}:sent:{action.id}",
            ))
            return
        if not is_side_effect(action):
            return
        self._outbox.put(OutboxMessage(
            chat_id=action.chat_id, text=shown_text(shown, note=self._why_not_held(action)), ref=shown_ref(action.id),
            buttons=undo + _show_all(action), dedupe_key=f"{action.goal_id}:shown:{action.id}",
            goal_id=action.goal_id,
        ))

    def _why_not_held(self, action: Action) -> str:
        """For an outgoing message that went without waiting, the sentence saying why."""
        if not is_outgoing(action):
            return ""
        if cannot_wait(action) is not None:
            return cannot_wait(action) or ""
        if action.unattended:
            return "It went at once: a watch's check runs with nobody there to press Undo."
        if self._settings.get(action.user_id).send_window == 0:
            return "It went at once: you turned the send window off in /settings."
        return "It went at once: this Deputy's send window is off."

    def cancelled(self, action: Action, why: str) -> None:
        self._outbox.put(OutboxMessage(
            chat_id=action.chat_id, text=undone_text(action, why),
            edit_ref=shown_ref(action.id), dedupe_key=f"{action.goal_id}:unsent:{action.id}",
        ))


def window_buttons(action: Action) -> list[list[Button]]:
    row = [Button(text="Undo", sign=f"su:{action.id}"), Button(text="Send now", sign=f"sn:{action.id}")]
    if body_field(action) is not None:
        row.append(Button(text="Edit", sign=f"se:{action.id}"))
    return [row, *_show_all(action)]


def _show_all(action: Action) -> list[list[Button]]:
    return [[Button(text="Show all", sign=f"sf:{action.id}")]] if folded(action) else []

