"""What the bot answers to a button press."""

from __future__ import annotations

from dataclasses import dataclass

from telegram import InlineKeyboardMarkup


@dataclass(frozen=True)
class PressAnswer:
    toast: str
    card_suffix: str | None = None  # appended to the card, whose buttons are then removed
    alert: bool = False
    gone: bool = False  # what the button was for no longer exists: its buttons are removed
    only_this_button: bool = False  # with card_suffix: only the pressed button goes, the message's others stay


def without_button(markup: InlineKeyboardMarkup | None, data: str | None) -> InlineKeyboardMarkup | None:
    """The message's buttons less the one pressed (`data`); None when none is left."""
    if markup is None:
        return None
    rows = [[b for b in row if b.callback_data != data] for row in markup.inline_keyboard]
    rows = [row for row in rows if row]
    return InlineKeyboardMarkup(rows) if rows else None
