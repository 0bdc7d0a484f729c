"""The user's one setting for messages, applied: every message, unnamed recipients, or strangers.

A message the user asked for, with every value traced to them and nothing from outside in
it, is `eligible`. What happens next is the user's choice (`deputy.core.accounts.approval_mode`): a card
for every message; a card unless the user named each recipient themselves (the default);
or a card only for someone outside their contacts (addresses Deputy keeps as contacts, or
that the user's remembered words give). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from deputy.core.accounts.approval_mode import ApprovalMode
from deputy.sentinel.said_values import named_addresses, recipient_mismatch

SETTING_HINT = " (you can change this in /settings)"


def known_contacts(contacts: Iterable[str], trusted_texts: Sequence[str], user_words: Sequence[str]) -> set[str]:
    """The user's contacts: kept as such, or in their remembered words (not only typed for this goal)."""
    goal_words = set(user_words)
    return {c.strip().lower() for c in contacts} | named_addresses(t for t in trusted_texts if t not in goal_words)


def message_allowed(mode: ApprovalMode, *, eligible: bool, addressed: bool, targets: Sequence[str],
                    contacts: set[str], user_words: Sequence[str]) -> tuple[bool, list[str]]:
    """Whether an eligible message goes without a card under `mode`, and the reasons when it does not."""
    if not eligible:
        return False, []
    if mode is ApprovalMode.every_message:
        return False, ["You chose to be asked before every message" + SETTING_HINT + "."]
    if mode is ApprovalMode.outside_contacts:
        strangers = [t for t in targets if t.strip().lower() not in contacts]
        mismatch = recipient_mismatch(targets, user_words)
        if mismatch:
            return False, [mismatch]
        if strangers:
            return False, [f"{', '.join(strangers[:3])} {'is' if len(strangers) == 1 else 'are'} not among your "
                           "contacts, and you chose to be asked about people outside them" + SETTING_HINT + "."]
        return True, []
    if addressed:
        return True, []
    mismatch = recipient_mismatch(targets, user_words)
    return False, [mismatch] if mismatch else []


def allowed_reason(targets: Sequence[str], addressed: bool, *, read_outside: bool) -> str:
    """Why a message went without a card; "nothing came from outside" only when nothing was read."""
    who = ", ".join(targets)
    named = f"named {who} yourself" if addressed else \
        f"{who} {'is' if len(targets) == 1 else 'are'} among your contacts"
    if not read_outside:
        return f"You asked for this and {named}; nothing in it came from outside content."
    return (f"You asked for this and {named}; this goal read outside content, but no address, amount or "
            "copied passage in it comes from there.")


__all__ = ["SETTING_HINT", "allowed_reason", "known_contacts", "message_allowed"]
