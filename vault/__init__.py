"""The vault: credentials by handle, secret scrubbing and single-use payment tokens.

Only the executor process opens it. The agent refers to credentials by handle
(`cred:email/work`) and to approved purchases by payment token id (`ptok_...`).
"""

from vault.errors import (
    CredentialNotFound,
    InvalidCredential,
    InvalidPaymentRequest,
    PaymentRefused,
    VaultCorrupted,
    VaultError,
    VaultLocked,
)
from vault.keyfile import KdfCost
from vault.patterns import REDACTED, luhn_valid, redact_patterns
from vault.payments import CardCharge, PaymentToken, PaymentTokens, normalise_merchant
from vault.scrub import MIN_SECRET_LENGTH, Scrubber
from vault.store import (
    HANDLE_PATTERN,
    CredentialInfo,
    CredentialKind,
    UserId,
    Vault,
    list_credentials,
    validate_handle,
)

__all__ = [
    "HANDLE_PATTERN",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "CardCharge",
    "CredentialInfo",
    "CredentialKind",
    "CredentialNotFound",
    "InvalidCredential",
    "InvalidPaymentRequest",
    "KdfCost",
    "PaymentRefused",
    "PaymentToken",
    "PaymentTokens",
    "Scrubber",
    "UserId",
    "Vault",
    "VaultCorrupted",
    "VaultError",
    "VaultLocked",
    "list_credentials",
    "luhn_valid",
    "normalise_merchant",
    "redact_patterns",
    "validate_handle",
]
