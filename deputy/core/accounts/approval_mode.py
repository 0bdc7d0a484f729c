"""How much the user wants to be asked before a message goes out: one setting, no model needed.

Spending, deleting and account changes are asked about whatever this says; it only moves
the line for messages, invitations, shares and forms the user asked for.
"""

from __future__ import annotations

from enum import Enum


class ApprovalMode(str, Enum):
    every_message = "every"
    unnamed = "unnamed"
    outside_contacts = "outside"


APPROVAL_MODE_LABELS = {
    ApprovalMode.every_message: "Ask before every message",
    ApprovalMode.unnamed: "Ask only when I didn't name the recipient",
    ApprovalMode.outside_contacts: "Ask only for people outside my contacts",
}

DEFAULT_APPROVAL_MODE = ApprovalMode.unnamed
