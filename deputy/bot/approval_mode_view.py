"""The one setting for when a message waits for a card: three buttons, in /settings and once in /start."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from deputy.bot.presses_common import PressAnswer
from deputy.bot.services import BotServices
from deputy.core.accounts.approval_mode import APPROVAL_MODE_LABELS, ApprovalMode
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.core.records.erasure import USER_NAMESPACE

QUESTION = ("When should I ask you before sending a message for you? Spending, deleting and account changes "
            "always wait for your OK, whatever you choose.")
ALWAYS_ASKED = "Spending, deleting and account changes still wait for your OK."


def first_offer(services: BotServices, user_id: int) -> bool:
    """True the first time this user is offered the choice at /start, False ever after (atomic: two
    /start at once offer it once). Kept under the user's namespace, so it goes with their data."""
    return bool(services.redis.set(USER_NAMESPACE.format(user_id) + "approval_mode_offered", "1", nx=True))


def mode_buttons(services: BotServices, user_id: int, current: ApprovalMode | None) -> InlineKeyboardMarkup:
    """One button per choice, the current one ticked."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(
        ("✓ " if mode is current else "") + label, callback_data=services.buttons.data("ap", mode.value, user_id))]
        for mode, label in APPROVAL_MODE_LABELS.items()])


def mode_line(mode: ApprovalMode) -> str:
    return f"Messages: {APPROVAL_MODE_LABELS[mode].lower()}"


def press_approval_mode(services: BotServices, ident: str, user_id: int) -> PressAnswer:
    """Save the chosen setting; the guard reads it before the next message."""
    try:
        mode = ApprovalMode(ident)
    except ValueError:
        return PressAnswer("That choice isn't one I know; send /settings to see them.")
    store = UserSettingsStore(services.redis)
    store.save(user_id, store.get(user_id).model_copy(update={"approval_mode": mode}))
    services.audit.append(user_id, "settings_changed", services.clock(), field="approval_mode", value=mode.value)
    chosen = APPROVAL_MODE_LABELS[mode]
    return PressAnswer(f"Saved: {chosen.lower()}.", f"✅ {chosen}. {ALWAYS_ASKED} Change it any time in /settings.")


__all__ = ["QUESTION", "first_offer", "mode_buttons", "mode_line", "press_approval_mode"]
