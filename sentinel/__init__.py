"""Sentinel, the guard: reviews every external action before the executor runs it."""

from sentinel.actions import Action, ActionState
from sentinel.approvals import (
    ApprovalRequest,
    ApprovalSigner,
    ApprovalStatus,
    ApprovalStore,
    Choice,
    ForgedPress,
    PressOutcome,
    PressResult,
    new_approval_id,
)
from sentinel.audit import AuditEntry, AuditLog
from sentinel.policy import Decision, ReviewContext, Risk, Verdict, review

__all__ = [
    "Action", "ActionState", "ApprovalRequest", "ApprovalSigner", "ApprovalStatus", "ApprovalStore", "AuditEntry",
    "AuditLog", "Choice", "Decision", "ForgedPress", "PressOutcome", "PressResult", "ReviewContext", "Risk",
    "Verdict", "new_approval_id", "review",
]
