"""The buttons of what ran without a card: a message waiting in its send window (Undo, Send now,
Edit, Show all) and the corrected text that follows an Edit; Undo on a reversible change.

Each press changes the waiting entry atomically (`deputy.core.records.send_window_store`): if the delivery
got there first, the user is told it is too late; otherwise the executor is handed the action,
finds what was decided and sends it once, or tells the goal it was cancelled.
"""

from __future__ import annotations

from deputy.bot.presses_common import PressAnswer
from deputy.bot.services import BotServices
from deputy.core.records.outbox import Outbox, OutboxMessage
from deputy.core.records.send_window import Refused, SendEvent
from deputy.core.records.send_window_store import SendWindowStore
from deputy.core.records.undo_store import UndoRefused, UndoStore
from deputy.sentinel.shown import body_field, shown_text, with_body

_EVENTS = {"su": SendEvent.undo, "sn": SendEvent.send_now, "se": SendEvent.edit}
_CHUNK = 4000  # Telegram holds 4,096 characters a message


def press_send_window(services: BotServices, kind: str, action_id: str, user_id: int) -> PressAnswer:
    record = services.actions.get(action_id)
    if record is None or record.action.user_id != user_id:
        return PressAnswer("I can't find that message any more.")
    store = SendWindowStore(services.redis)
    if kind == "sf":
        return _show_all(services, store, record.action, user_id)
    if kind == "se" and body_field(record.action) is None:
        return PressAnswer("This one has no text to correct; Undo stops it.")
    try:
        store.apply(action_id, _EVENTS[kind], services.clock())
    except Refused as refused:
        return PressAnswer(str(refused), alert=True)
    services.audit.append(user_id, f"send_window_{_EVENTS[kind].value}", services.clock(), action_id=action_id)
    if kind == "se":
        store.mark_editing(user_id, action_id)
        return PressAnswer("Send me the corrected text as your next message; it goes out as soon as I have it. "
                           "Undo still stops it.")
    _hand_on(services, record.action.goal_id, action_id)
    if kind == "su":
        return PressAnswer("Undone. Nothing was sent.", "↩️ Undone. Nothing was sent.")
    return PressAnswer("Sending it now.", "📤 Sending it now.")


def press_undo_write(services: BotServices, action_id: str, user_id: int) -> PressAnswer:
    """Undo on a change made without a card: begun here once, taken back by the executor."""
    record = services.actions.get(action_id)
    if record is None or record.action.user_id != user_id:
        return PressAnswer("I can't find that change any more.")
    try:
        UndoStore(services.redis).request(action_id, services.clock())
    except UndoRefused as refused:
        return PressAnswer(str(refused), alert=True)
    services.audit.append(user_id, "undo_requested", services.clock(), action_id=action_id)
    services.dispatch.undo(action_id)
    if record.action.arguments.get("attendees"):  # an invitation reached people: that part stays done
        return PressAnswer("Undoing it… The people invited may already have seen the invitation.",
                           "↩️ Undoing this… (the people invited may already have seen the invitation)")
    return PressAnswer("Undoing it…", "↩️ Undoing this…")


def apply_send_edit(services: BotServices, user_id: int, action_id: str | None, text: str) -> str | None:
    """The user's corrected text for the message they pressed Edit on; the sentence to answer, or None."""
    record = services.actions.get(action_id or "")
    if record is None or record.action.user_id != user_id:
        return None
    try:
        SendWindowStore(services.redis).apply(action_id or "", SendEvent.edited, services.clock(), text)
    except Refused as refused:
        return f"{refused} Your text was not used."
    services.audit.append(user_id, "send_window_edited", services.clock(), action_id=action_id)
    _hand_on(services, record.action.goal_id, record.action.id)
    return "Got it: sending it now with your text."


def _hand_on(services: BotServices, goal_id: str, action_id: str) -> None:
    goal = services.goals.get(goal_id)
    services.dispatch.action(action_id, goal_id, goal.step if goal is not None else 0)


def _show_all(services: BotServices, store: SendWindowStore, action, user_id: int) -> PressAnswer:
    held = store.get(action.id)
    text = shown_text(with_body(action, held.edited_body if held else None), whole=True)
    outbox = Outbox(services.redis)
    for start in range(0, len(text), _CHUNK):
        outbox.put(OutboxMessage(chat_id=action.chat_id, text=text[start:start + _CHUNK]))
    return PressAnswer("Here it is in full, below.")
