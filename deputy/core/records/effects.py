"""The vocabulary every connector shares: effect classes, failures and operation specs.

Sentinel (the guard) never looks inside a connector; it reasons about an action
through its `OperationSpec`, above all through the `EffectClass` it declares.
"""

from __future__ import annotations

from typing import Any

from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

from deputy.core.records.read_items import ReadItem


class EffectClass(str, Enum):
    """What an operation does to the world, coarsely, so the guard can weigh it."""

    read = "read"
    """Looks at data; changes nothing."""
    write = "write"
    """Changes the user's own data (files, notes, calendar entries)."""
    communicate = "communicate"
    """Says something to another person (email, message, post)."""
    spend = "spend"
    """Moves money or consumes a paid resource."""
    credential = "credential"
    """Reads, creates or uses a secret."""
    account = "account"
    """Creates, deletes or reconfigures an account."""


class ConnectorError(Exception):
    """Root of connector failures.

    `user_message` is a plain sentence fit for the chat and never contains a secret;
    `str(exc)` is that same sentence. `detail` is extra text for logs (server
    replies, error classes), already scrubbed of secrets by whoever raised it.
    `retryable` says whether trying the same call again later may succeed.
    """

    retryable: bool = False

    def __init__(self, user_message: str, *, detail: str | None = None) -> None:
        # Only the user message goes into args, so str() and repr() show nothing else.
        super().__init__(user_message)
        self.user_message = user_message
        self.detail = detail


class ConnectorUnavailable(ConnectorError):
    """The service could not be reached, timed out or answered nonsense; try later."""

    retryable = True


class ConnectorOutcomeUnknown(ConnectorUnavailable):
    """The service stopped answering after the request may have taken effect: it may or may
    not have happened. Never reported as a failure (nor retried blindly): the user decides."""


class ConnectorAuthError(ConnectorError):
    """The service rejected the credentials; retrying will not help until they change."""

    retryable = False


class ConnectorRejected(ConnectorError):
    """The service refused this request (e.g. an invalid recipient); do not retry it."""

    retryable = False


class RiskTag(str, Enum):
    """What else an operation does that the guard must weigh, beyond its effect class."""

    delete = "delete"
    share = "share"
    irreversible = "irreversible"
    reveal_credential = "reveal_credential"
    disable_2fa = "disable_2fa"
    change_password = "change_password"
    change_recovery = "change_recovery"
    forwarding_rule = "forwarding_rule"
    navigation = "navigation"


class OperationSpec(BaseModel):
    """Describes one operation a connector offers, for the agent and the guard."""

    model_config = ConfigDict(frozen=True)

    connector: str
    operation: str
    effect: EffectClass
    description: str
    target_argument: str | None = None
    """Which argument names the target of the effect (e.g. "to" for an email)."""
    tags: frozenset[RiskTag] = frozenset()
    """Further risks (deleting, sharing, account takeover...) the guard weighs."""


class OperationResult(BaseModel):
    """What an operation produced: a summary for the agent, and whose content it carries.

    `untrusted_origin` names where outside content in `summary` came from ("an email from
    x@y.example", "the web page https://..."); the agent sees it labelled as untrusted
    and the guard remembers it for provenance checks. None means Deputy's own words.
    """

    summary: str
    untrusted_origin: str | None = None
    items: list[ReadItem] = Field(default_factory=list)
    """The emails, events, files or records in `summary`, each with its own origin (see
    `deputy.core.records.read_items`); what none of them holds is named by `untrusted_origin`."""
    undo: dict[str, Any] | None = None
    """What the connector's own reverter needs to take it back (an event's uid, its earlier text)."""
