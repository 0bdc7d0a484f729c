"""Local stand-ins for outside services, for the demo and the tests."""

from deputy.sandbox.mail import (
    DEFAULT_SANDBOX_PORT,
    LocalMailServer,
    ReceivedEmail,
    mailbox_name,
    run_forever,
)

__all__ = ["DEFAULT_SANDBOX_PORT", "LocalMailServer", "ReceivedEmail", "mailbox_name", "run_forever"]
