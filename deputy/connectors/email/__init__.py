"""The email connector: send plain-text email over SMTP after the user approves."""

from deputy.core.records.effects import EffectClass, OperationSpec

SEND_EMAIL = OperationSpec(
    connector="email",
    operation="send_email",
    effect=EffectClass.communicate,
    description="Send an email",
    target_argument="to",
)
"""The spec of `send_email`: it talks to other people, and `to` names who."""
