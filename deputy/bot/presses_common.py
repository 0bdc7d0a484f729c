"""What the bot answers to a button press."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PressAnswer:
    toast: str
    card_suffix: str | None = None  # appended to the card, whose buttons are then removed
    alert: bool = False
    gone: bool = False  # what the button was for no longer exists: its buttons are removed
