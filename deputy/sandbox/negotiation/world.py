"""The sandbox negotiation world: a marketplace listing with buyers, and a provider's retention desk.

`NegotiationWorld` gives the executor a runner for every operation in
`deputy.sandbox.negotiation.operations`. A message Deputy sends reaches the scripted counterpart,
who answers at once (the answer waits to be read); everything a counterpart actually
received is kept in `delivered`, so a test can check what left Deputy, whatever the guard
or the model said.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from deputy.core.records.actions import Action
from deputy.core.records.effects import ConnectorRejected, OperationResult
from deputy.sandbox.negotiation.counterparts import Counterpart
from deputy.sandbox.negotiation.operations import DESK, DESK_EMAIL


@dataclass
class Conversation:
    counterpart: Counterpart
    unread: list[str] = field(default_factory=list)
    our_last: Decimal | None = None


@dataclass
class NegotiationWorld:
    conversations: dict[str, Conversation] = field(default_factory=dict)
    """Keyed by counterpart address: market:c1, provider:retention, retention@fibrelink.example."""
    delivered: list[tuple[str, str, str]] = field(default_factory=list)
    """(counterpart, text, action id) of every message Deputy actually sent, in order."""

    def add(self, address: str, counterpart: Counterpart) -> None:
        self.conversations[address] = Conversation(counterpart, unread=[counterpart.opening()])

    def runners(self):
        return {
            "market.list_conversations": self._list,
            "market.read_messages": self._read,
            "market.send_message": self._send,
            "provider.read_chat": self._read,
            "provider.send_chat": self._send,
            "provider.read_desk_email": self._read,
            "email.send_email": self._send,
        }

    def _address(self, action: Action) -> str:
        if action.connector == "market":
            return f"market:{action.arguments.get('conversation_id', '')}"
        if action.operation == "send_email":
            return ",".join(action.arguments.get("to", []))
        if action.operation == "read_desk_email":
            return DESK_EMAIL
        return DESK

    def _list(self, action: Action, key: str) -> OperationResult:
        lines = [f"{address}: {c.counterpart.name} ({len(c.unread)} unread)" for address, c in self.conversations.items()
                 if address.startswith("market:")]
        return OperationResult(summary="\n".join(lines) or "No conversations.",
                               untrusted_origin="buyers' messages on the marketplace")

    def _read(self, action: Action, key: str) -> OperationResult:
        address = self._address(action)
        conversation = self.conversations.get(address)
        if conversation is None:
            raise ConnectorRejected(f"There is no conversation {address}.")
        new, conversation.unread = conversation.unread, []
        return OperationResult(summary="\n".join(new), untrusted_origin=f"messages from {address}")

    def _send(self, action: Action, key: str) -> OperationResult:
        address = self._address(action)
        conversation = self.conversations.get(address)
        if conversation is None:
            raise ConnectorRejected(f"There is no conversation {address}.")
        text = str(action.arguments.get("text") or action.arguments.get("body") or "")
        self.delivered.append((address, text, action.id))
        reply, asked = conversation.counterpart.answer(text, conversation.our_last)
        if asked is not None:
            conversation.our_last = asked
        conversation.unread.append(reply)
        return OperationResult(summary=f"Sent to {address}.")

    def sent_to(self, address: str) -> list[str]:
        return [text for to, text, _ in self.delivered if to == address]
