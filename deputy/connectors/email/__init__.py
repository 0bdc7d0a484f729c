"""The email connector: send plain-text email over SMTP after the user approves."""

from deputy.core.effects import EffectClass, OperationSpec
from deputy.connectors.addresses import normalize_address
from deputy.connectors.email.smtp import (
    MAX_BODY_BYTES,
    MAX_RECIPIENTS,
    OutgoingEmail,
    SentEmail,
    SmtpAccount,
    build_message,
    message_id_for,
    send_email,
)

SEND_EMAIL = OperationSpec(
    connector="email",
    operation="send_email",
    effect=EffectClass.communicate,
    description="Send an email",
    target_argument="to",
)
"""The spec of `send_email`: it talks to other people, and `to` names who."""

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_RECIPIENTS",
    "SEND_EMAIL",
    "OutgoingEmail",
    "SentEmail",
    "SmtpAccount",
    "build_message",
    "message_id_for",
    "normalize_address",
    "send_email",
]
