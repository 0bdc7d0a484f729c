"""The send window: an outgoing message that went without a card waits a few seconds, shown in
full, so the user can Undo it, send it now, or correct it before it leaves.

Pure transitions only; `deputy.core.records.send_window_store` applies them atomically in Redis, so of two
things that happen at once (the user's Undo and the delivery that came due) exactly one wins
and the other is told why not.

    waiting ──undo──▶ undone               editing ──edited(text)──▶ sending (the new text)
    waiting ──send_now / due──▶ sending    editing ──undo / due──▶ undone (no new text came)
    waiting ──edit──▶ editing              sending ──delivered──▶ sent
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field

DEFAULT_SEND_WINDOW = 20
"""Seconds an outgoing message waits when neither the user nor the operator chose otherwise."""
EDIT_WAIT = 600
"""How long a message whose Edit was pressed waits for the corrected text before it is dropped."""


class SendState(str, Enum):
    waiting = "waiting"
    editing = "editing"
    sending = "sending"
    sent = "sent"
    undone = "undone"


class SendEvent(str, Enum):
    undo = "undo"
    send_now = "send_now"
    edit = "edit"
    edited = "edited"
    due = "due"
    delivered = "delivered"


class HeldSend(BaseModel):
    schema_version: int = 1
    action_id: str
    goal_id: str
    user_id: int
    chat_id: int
    state: SendState = SendState.waiting
    due: float = Field(description="When it goes out by itself (editing: when it is dropped).")
    edited_body: str | None = Field(default=None, description="The user's corrected text, replacing the body.")
    why: str = Field(default="", description="What decided its fate, for the goal and the audit.")


class Refused(Exception):
    """The event does not apply in this state; the message is a plain sentence for the user."""


_TOO_LATE = {
    SendState.sending: "Too late: it is already on its way.",
    SendState.sent: "Too late: it was already sent.",
    SendState.undone: "It was already undone; nothing was sent.",
}


def advance(held: HeldSend, event: SendEvent, now: float, text: str | None = None,
            edit_wait: float = EDIT_WAIT) -> HeldSend:
    """The entry after `event` at `now`; `Refused` when it does not apply (the entry is unchanged)."""
    state = held.state
    if event is SendEvent.delivered:
        if state is not SendState.sending:
            raise Refused("It is not being sent.")
        return held.model_copy(update={"state": SendState.sent})
    if state not in (SendState.waiting, SendState.editing):
        raise Refused(_TOO_LATE[state])
    if event is SendEvent.undo:
        return held.model_copy(update={"state": SendState.undone, "why": "The user pressed Undo"})
    if event is SendEvent.due:
        if now < held.due:
            raise Refused("It is not due yet.")
        if state is SendState.editing:
            return held.model_copy(update={"state": SendState.undone,
                                           "why": "The user pressed Edit but sent no corrected text in time"})
        return held.model_copy(update={"state": SendState.sending, "why": "The send window ended"})
    if event is SendEvent.send_now:
        return held.model_copy(update={"state": SendState.sending, "why": "The user pressed Send now"})
    if event is SendEvent.edit:
        if state is SendState.editing:
            raise Refused("I'm already waiting for your corrected text.")
        return held.model_copy(update={"state": SendState.editing, "due": now + edit_wait})
    # SendEvent.edited
    if state is not SendState.editing:
        raise Refused("Press Edit first.")
    if not text or not text.strip():
        raise Refused("The corrected text is empty.")
    return held.model_copy(update={"state": SendState.sending, "edited_body": text,
                                   "why": "The user sent a corrected text"})


def window_seconds(chosen: int | None, operator_default: int) -> int:
    """The user's own choice wins; else the operator's default. 0 means no window."""
    return max(0, chosen if chosen is not None else operator_default)


def send_window_said(chosen: int | None) -> str:
    """The user's choice in words, for /settings."""
    if chosen is None:
        return "Deputy's default"
    return "no, they go at once" if chosen == 0 else f"{chosen} s"
