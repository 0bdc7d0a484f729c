"""The email operations the agent may request."""

from __future__ import annotations

from deputy.connectors.catalog import Operation
from deputy.connectors.email import SEND_EMAIL
from deputy.connectors.email.outgoing import OutgoingEmail

SEND_EMAIL_SCHEMA = {
    "type": "object",
    "properties": {
        "to": {"type": "array", "items": {"type": "string"}, "description": "Recipient addresses."},
        "subject": {"type": "string"},
        "body": {"type": "string", "description": "Plain-text body, written for the recipient."},
    },
    "required": ["to", "subject", "body"],
}


SEND_EMAIL_OPERATION = Operation(
    spec=SEND_EMAIL,
    arguments=OutgoingEmail,
    targets=lambda args: args.recipients(),  # type: ignore[attr-defined]
    schema=SEND_EMAIL_SCHEMA,
)
