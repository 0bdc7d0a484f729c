"""Paying for an approved purchase without the card ever leaving the vault.

A spend operation's arguments carry the placeholder `<payment_token>` where the service
expects payment. Only when the executor runs the approved action does it issue a
single-use token bound to exactly the approved amount, currency and merchant, and put its
id in place of the placeholder; the agent, the model and the card never meet.
"""

from __future__ import annotations

from typing import Any

from core.effects import ConnectorError, EffectClass
from core.actions import Action
from vault import CredentialKind, PaymentTokens, VaultError, list_credentials

PLACEHOLDER = "<payment_token>"
TOKEN_TTL_SECONDS = 15 * 60


def wants_payment(arguments: Any) -> bool:
    if isinstance(arguments, dict):
        return any(wants_payment(value) for value in arguments.values())
    if isinstance(arguments, list):
        return any(wants_payment(value) for value in arguments)
    return arguments == PLACEHOLDER


def _replace(arguments: Any, token: str) -> Any:
    if isinstance(arguments, dict):
        return {key: _replace(value, token) for key, value in arguments.items()}
    if isinstance(arguments, list):
        return [_replace(value, token) for value in arguments]
    return token if arguments == PLACEHOLDER else arguments


class PaymentIssuer:
    def __init__(self, tokens: PaymentTokens, redis) -> None:
        self._tokens = tokens
        self._redis = redis

    def prepare(self, action: Action, idempotency_key: str) -> Action:
        """The action to run: with a fresh token where it asks for payment."""
        if action.effect is not EffectClass.spend or not wants_payment(action.arguments):
            return action
        if action.amount is None or not action.currency:
            raise ConnectorError("This purchase doesn't say how much it costs, so I won't pay for it.")
        cards = [c for c in list_credentials(self._redis, action.user_id) if c.kind is CredentialKind.card]
        if not cards:
            raise ConnectorError("You have no payment card connected. Add one with /connect card, then ask again.")
        merchant = action.targets[0] if action.targets else action.connector
        try:
            token = self._tokens.issue(action.user_id, cards[0].handle, merchant, action.amount, action.currency,
                                       TOKEN_TTL_SECONDS, idempotency_key)
        except VaultError as exc:
            raise ConnectorError(exc.user_message) from None
        return action.model_copy(update={"arguments": _replace(action.arguments, token.id)})
