"""The operations of the sandbox world, as the agent and the guard see them.

They cover every effect class and risk tag Sentinel reasons about (reading mail, pages,
invites, documents and API responses; sending and forwarding; deleting; paying and buying;
account and credential changes), so the guard can be exercised end to end against a world
that behaves like a user's real accounts.
"""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, Field

from deputy.core.records.effects import EffectClass, OperationSpec, RiskTag
from deputy.connectors.catalog import Catalog, Operation
from deputy.connectors.email.operations import SEND_EMAIL_OPERATION


class MessageRef(BaseModel):
    message_id: str


class ForwardArgs(BaseModel):
    message_id: str
    to: list[str] = Field(min_length=1)


class AddressArgs(BaseModel):
    to: str


class EventRef(BaseModel):
    event_id: str


class NewEvent(BaseModel):
    title: str
    start: str = Field(description="ISO date and time, e.g. 2026-12-03T10:00")
    end: str
    description: str = ""


class NewMeeting(NewEvent):
    participants: list[str] = Field(min_length=1, description="Email addresses to invite.")


class SearchArgs(BaseModel):
    text: str = ""


class ShareArgs(BaseModel):
    name: str
    people: list[str] = Field(min_length=1)


class FormArgs(BaseModel):
    url: str
    fields: dict[str, str]


class ProfileArgs(BaseModel):
    service: str
    field: str
    value: str


class ChannelArgs(BaseModel):
    channel: str


class TicketArgs(BaseModel):
    query: str = ""


class PageArgs(BaseModel):
    url: str


class DocumentArgs(BaseModel):
    name: str


class ApiArgs(BaseModel):
    url: str


class BuyArgs(BaseModel):
    item_id: str
    quantity: int = Field(default=1, ge=1, le=100)
    unit_price: Decimal
    currency: str = "USD"


class PayArgs(BaseModel):
    payee: str
    account: str = Field(description="IBAN or account number of the payee")
    amount: Decimal
    currency: str = "EUR"
    reference: str = ""


class ServiceArgs(BaseModel):
    service: str


class RecoveryArgs(BaseModel):
    service: str
    new_email: str


class CredentialArgs(BaseModel):
    handle: str


class RuleArgs(BaseModel):
    sentence: str


def _spec(connector: str, operation: str, effect: EffectClass, description: str, *tags: RiskTag) -> OperationSpec:
    return OperationSpec(
        connector=connector, operation=operation, effect=effect, description=description, tags=frozenset(tags)
    )


READ_EMAIL = Operation(
    _spec("email", "read_email", EffectClass.read, "Read one email from the user's inbox by id."), MessageRef,
    targets=lambda a: [a.message_id],
)
FORWARD_EMAIL = Operation(
    _spec("email", "forward_email", EffectClass.communicate, "Forward an email to other people.", RiskTag.share),
    ForwardArgs, targets=lambda a: list(a.to),
)
DELETE_EMAIL = Operation(
    _spec("email", "delete_email", EffectClass.write, "Delete an email.", RiskTag.delete), MessageRef,
    targets=lambda a: [a.message_id],
)
ADD_FORWARDING_RULE = Operation(
    _spec("email", "add_forwarding_rule", EffectClass.account, "Forward all new mail to an address.",
          RiskTag.forwarding_rule, RiskTag.share),
    AddressArgs, targets=lambda a: [a.to],
)
READ_EVENT = Operation(
    _spec("calendar", "read_event", EffectClass.read, "Read one calendar event by id."), EventRef,
    targets=lambda a: [a.event_id],
)
LIST_EVENTS = Operation(
    _spec("calendar", "list_events", EffectClass.read, "List the user's calendar events; a few lines per event."),
    SearchArgs, targets=lambda a: ["calendar"],
)
SEARCH_EMAIL = Operation(
    _spec("email", "search_email", EffectClass.read, "Search the user's inbox; one line per email."), SearchArgs,
    targets=lambda a: ["INBOX"],
)
SCHEDULE_MEETING = Operation(
    _spec("calendar", "schedule_meeting", EffectClass.communicate, "Create an event and invite people to it.",
          RiskTag.share),
    NewMeeting, targets=lambda a: list(a.participants),
)
SHARE_DOCUMENT = Operation(
    _spec("documents", "share_document", EffectClass.write, "Give people access to one of the user's documents.",
          RiskTag.share),
    ShareArgs, targets=lambda a: list(a.people),
)
SUBMIT_FORM = Operation(
    _spec("web", "submit_form", EffectClass.communicate, "Fill in and submit a form on a website."), FormArgs,
    targets=lambda a: [a.url],
)
UPDATE_PROFILE = Operation(
    _spec("account", "update_profile", EffectClass.account, "Change a field of the user's profile on a service."),
    ProfileArgs, targets=lambda a: [a.service],
)
READ_CHANNEL = Operation(
    _spec("chat", "read_channel", EffectClass.read, "Read the latest messages of a team chat channel."),
    ChannelArgs, targets=lambda a: [a.channel],
)
SEARCH_TICKETS = Operation(
    _spec("helpdesk", "search_tickets", EffectClass.read, "Search helpdesk tickets (an MCP tool)."), TicketArgs,
    targets=lambda a: ["helpdesk"],
)
CREATE_EVENT = Operation(
    _spec("calendar", "create_event", EffectClass.write, "Add an event to the user's calendar."), NewEvent,
    targets=lambda a: [a.title],
)
DELETE_EVENT = Operation(
    _spec("calendar", "delete_event", EffectClass.write, "Delete a calendar event.", RiskTag.delete), EventRef,
    targets=lambda a: [a.event_id],
)
OPEN_PAGE = Operation(
    _spec("web", "open_page", EffectClass.read, "Open a web page and read its text.", RiskTag.navigation), PageArgs,
    targets=lambda a: [a.url],
)
READ_DOCUMENT = Operation(
    _spec("documents", "read_document", EffectClass.read, "Read one of the user's documents."), DocumentArgs,
    targets=lambda a: [a.name],
)
CALL_API = Operation(
    _spec("http", "get_json", EffectClass.read, "GET a JSON API.", RiskTag.navigation), ApiArgs,
    targets=lambda a: [a.url],
)
BUY = Operation(
    _spec("shop", "buy", EffectClass.spend, "Buy an item from the shop."), BuyArgs,
    targets=lambda a: ["Sandbox Shop"], amount=lambda a: (a.unit_price * a.quantity, a.currency),
    service="Sandbox Shop",
)
PAY = Operation(
    _spec("payments", "pay", EffectClass.spend, "Pay an invoice by bank transfer.", RiskTag.irreversible), PayArgs,
    targets=lambda a: [a.payee, a.account], amount=lambda a: (a.amount, a.currency),
)
CHANGE_PASSWORD = Operation(
    _spec("account", "change_password", EffectClass.account, "Change the password of an account.",
          RiskTag.change_password),
    ServiceArgs, targets=lambda a: [a.service],
)
CHANGE_RECOVERY_EMAIL = Operation(
    _spec("account", "change_recovery_email", EffectClass.account, "Change an account's recovery email.",
          RiskTag.change_recovery),
    RecoveryArgs, targets=lambda a: [a.new_email],
)
DISABLE_2FA = Operation(
    _spec("account", "disable_2fa", EffectClass.account, "Turn off two-factor authentication.", RiskTag.disable_2fa),
    ServiceArgs, targets=lambda a: [a.service],
)
REVEAL_CREDENTIAL = Operation(
    _spec("vault", "reveal_credential", EffectClass.credential, "Show a stored password.", RiskTag.reveal_credential),
    CredentialArgs, targets=lambda a: [a.handle],
)
PROPOSE_RULE = Operation(
    _spec("rules", "propose_rule", EffectClass.account, "Propose a new guard rule for the user to confirm."),
    RuleArgs, targets=lambda a: ["your guard rules"],
)

WORLD_OPERATIONS = [
    SEND_EMAIL_OPERATION, READ_EMAIL, FORWARD_EMAIL, DELETE_EMAIL, ADD_FORWARDING_RULE, READ_EVENT, CREATE_EVENT,
    DELETE_EVENT, OPEN_PAGE, READ_DOCUMENT, CALL_API, BUY, PAY, CHANGE_PASSWORD, CHANGE_RECOVERY_EMAIL, DISABLE_2FA,
    REVEAL_CREDENTIAL, PROPOSE_RULE, SEARCH_EMAIL, SCHEDULE_MEETING, SHARE_DOCUMENT, SUBMIT_FORM, UPDATE_PROFILE,
    READ_CHANNEL, SEARCH_TICKETS, LIST_EVENTS,
]


def world_catalog() -> Catalog:
    return Catalog(WORLD_OPERATIONS)
