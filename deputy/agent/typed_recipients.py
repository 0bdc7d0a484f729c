"""A message Deputy sends reaches an address the user typed, when the user typed any.

"Drop a line to sam@example.com that I'll be 10 minutes late": a small model that began by
searching the inbox may answer the newest email from some other Sam instead. The guard would
put a card in front of the user, but a card for the wrong email is still a wrong answer, and a
careless tap sends it. So when the user's own words name email addresses and a message the
model wants to send reaches none of them, the call goes back to the model once, saying whom the
user named and how to write to them (a new email). A model that insists gets its card: the
user may have meant it ("reply to Tom's email, it was sam@example.com's idea"), and the user
decides. Pure functions.
"""

from __future__ import annotations

import re
from typing import Any

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_SENT_BACK = "not run: the user asked to write to "
NEW_EMAIL_TOOL = "send_email"


def typed_addresses(words: list[str]) -> list[str]:
    """The email addresses in what the user typed, lower-cased, in order, once each."""
    return list(dict.fromkeys(match.group(0).rstrip(".").lower() for text in words for match in _EMAIL.finditer(text)))


def missed_recipients(action: Action, words: list[str]) -> list[str]:
    """The addresses the user typed, when `action` sends a message to email addresses and none of them
    is among its recipients; empty when it reaches one, sends nothing, or the user typed none."""
    if action.effect is not EffectClass.communicate:
        return []
    recipients = {target.lower() for target in action.targets if "@" in target}
    typed = typed_addresses(words)
    if not recipients or not typed or recipients & set(typed):
        return []
    return typed


def correction(action: Action, typed: list[str]) -> str:
    """What the model is told instead of running the call (the same words for the same call)."""
    named = ", ".join(typed)
    going = ", ".join(sorted(target for target in action.targets if "@" in target))
    return (f"{_SENT_BACK}{named}, but this {action.operation} would go to {going}. "
            f"To write to {named}, call {NEW_EMAIL_TOOL} with to=[{', '.join(repr(a) for a in typed)}] and the user's "
            f"message as the body; to send this one anyway, make the same call again.")


def sent_back(messages: list[dict[str, Any]]) -> bool:
    """Whether the model was sent back in this transcript for missing the addresses the user typed
    (its next offer must hold the tool the correction names, whatever the goal's kind offers)."""
    return any(message.get("role") == "tool" and _SENT_BACK in str(message.get("content", "")) for message in messages)
