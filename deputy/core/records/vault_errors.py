"""Failures of the vault and of payment tokens: one root, plain sentences, never a secret.

Every message is built from values we chose or validated (handles that matched the
handle pattern, amounts, currency codes); a value that failed validation is never echoed,
because a caller may have passed a secret where a handle belonged.

They live in `core`, not in `vault`, because code that never opens the vault raises and
catches them too: reading the credential index, checking a handle.
"""

from __future__ import annotations


class VaultError(Exception):
    """Root of vault failures.

    `user_message` is a plain sentence fit for the chat and never contains a secret;
    `str(exc)` and `repr(exc)` show that same sentence and nothing else.
    """

    def __init__(self, user_message: str) -> None:
        # Only the user message goes into args, so str() and repr() show nothing else.
        super().__init__(user_message)
        self.user_message = user_message


class VaultLocked(VaultError):
    """The vault key is not the one the vault was made with (or does not open an old vault file)."""

    def __init__(self) -> None:
        super().__init__("The credential vault could not be unlocked: the vault key is wrong.")


class VaultCorrupted(VaultError):
    """A stored entry (or an old vault file) cannot be read, or an entry fails to decrypt."""


class CredentialNotFound(VaultError):
    """No credential with this handle is stored for this user."""


class InvalidCredential(VaultError):
    """A handle, kind, label or public field was refused before anything was stored."""


class InvalidPaymentRequest(VaultError):
    """A payment token could not be issued as asked (bad amount, currency, card...)."""


class PaymentRefused(VaultError):
    """A payment token was not redeemed; `reason` is the short machine-stable cause.

    Reasons: "unknown token", "token already used", "token expired", "merchant mismatch",
    "currency mismatch", "amount exceeds the approved <max> <currency>",
    "invalid amount", "card no longer available".
    """

    def __init__(self, reason: str) -> None:
        super().__init__(f"The payment was refused: {reason}.")
        self.reason = reason
