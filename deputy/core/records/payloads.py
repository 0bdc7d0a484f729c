"""Typed job payloads: every queue job takes one of these, serialised as JSON."""

from typing import Literal

from pydantic import BaseModel

AGENT_QUEUE = "agent"
ACTIONS_QUEUE = "actions"


class GoalStepJob(BaseModel):
    schema_version: int = 1
    goal_id: str
    step: int


class ActionJob(BaseModel):
    schema_version: int = 1
    action_id: str
    goal_id: str
    step: int
    approval_id: str | None = None


class UndoJob(BaseModel):
    """Take back a reversible write the user pressed Undo on (the press already began it)."""

    schema_version: int = 1
    action_id: str


class ApprovalExpiryJob(BaseModel):
    schema_version: int = 1
    approval_id: str


class RuleRequestJob(BaseModel):
    """A sentence from /rules for the helper model to turn into a rule the user confirms."""

    schema_version: int = 1
    user_id: int
    chat_id: int
    sentence: str


class ForgetConnectionJob(BaseModel):
    """Disconnect a service: its credentials are erased from the vault."""

    schema_version: int = 1
    user_id: int
    chat_id: int
    service: str


class EraseUserJob(BaseModel):
    """/delete_me, confirmed: erase everything about this user."""

    schema_version: int = 1
    user_id: int
    chat_id: int


class AddConnectorJob(BaseModel):
    """/connect api <url> or /connect mcp <url>: describe the service and keep it for this user."""

    schema_version: int = 1
    user_id: int
    chat_id: int
    kind: Literal["openapi", "mcp"]
    url: str


class HandOffCodeJob(BaseModel):
    """The user replied to a page's request with a code: the executor types it in (the code is not in here)."""

    schema_version: int = 1
    user_id: int
    handoff_id: str
