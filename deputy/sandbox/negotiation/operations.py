"""The operations of the sandbox marketplace and retention desk, as the agent and the guard see them.

Reading a counterpart's messages brings outside content (labelled untrusted); sending is a
`communicate` action addressed to the counterpart (`market:<conversation>` on the
marketplace, `provider:retention` for the desk's chat, or the desk's email address).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from deputy.connectors.catalog import Catalog, Operation
from deputy.connectors.email.operations import SEND_EMAIL_OPERATION
from deputy.connectors.negotiation import MOVE_OPERATIONS
from deputy.core.records.effects import EffectClass, OperationSpec

DESK = "provider:retention"
DESK_EMAIL = "retention@fibrelink.example"


class NoArgs(BaseModel):
    pass


class ConversationRef(BaseModel):
    conversation_id: str = Field(max_length=40)


class MarketMessage(BaseModel):
    conversation_id: str = Field(max_length=40)
    text: str = Field(min_length=1, max_length=2000)


class ChatMessage(BaseModel):
    text: str = Field(min_length=1, max_length=2000)


def _spec(connector: str, operation: str, effect: EffectClass, description: str) -> OperationSpec:
    return OperationSpec(connector=connector, operation=operation, effect=effect, description=description)


LIST_CONVERSATIONS = Operation(
    _spec("market", "list_conversations", EffectClass.read, "List the buyers who wrote about the user's listing."),
    NoArgs, result_origin=lambda a: "buyers' messages on the marketplace")
READ_MESSAGES = Operation(
    _spec("market", "read_messages", EffectClass.read, "Read a buyer's new messages in one conversation."),
    ConversationRef, targets=lambda a: [f"market:{a.conversation_id}"],
    result_origin=lambda a: f"messages from the buyer in market:{a.conversation_id}")
SEND_MESSAGE = Operation(
    _spec("market", "send_message", EffectClass.communicate, "Send a message to a buyer in one conversation."),
    MarketMessage, targets=lambda a: [f"market:{a.conversation_id}"])
READ_CHAT = Operation(
    _spec("provider", "read_chat", EffectClass.read, "Read the retention desk's new chat messages."),
    NoArgs, targets=lambda a: [DESK], result_origin=lambda a: "the provider's retention desk chat")
SEND_CHAT = Operation(
    _spec("provider", "send_chat", EffectClass.communicate, "Write to the provider's retention desk in the chat."),
    ChatMessage, targets=lambda a: [DESK])
READ_DESK_EMAIL = Operation(
    _spec("provider", "read_desk_email", EffectClass.read, "Read new emails from the retention desk."),
    NoArgs, targets=lambda a: [DESK_EMAIL], result_origin=lambda a: f"an email from {DESK_EMAIL}")

NEGOTIATION_OPERATIONS = [LIST_CONVERSATIONS, READ_MESSAGES, SEND_MESSAGE, READ_CHAT, SEND_CHAT, READ_DESK_EMAIL]


def negotiation_catalog() -> Catalog:
    return Catalog([*NEGOTIATION_OPERATIONS, SEND_EMAIL_OPERATION, *MOVE_OPERATIONS])
