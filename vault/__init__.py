"""The vault: credentials by handle, secret scrubbing and single-use payment tokens.

Only the executor and the connect page open it; everything is kept in Redis, sealed
with a key derived from `DEPUTY_VAULT_KEY`, which never goes to Redis. The agent refers to credentials by handle
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
from vault.sealing import KdfCost, Sealer, VaultKey, open_vault_key
from vault.patterns import REDACTED, luhn_valid, redact_patterns
from vault.payments import CardCharge, PaymentToken, PaymentTokens, normalise_merchant
from vault.scrub import MIN_SECRET_LENGTH, Scrubber
from vault.store import (
    HANDLE_PATTERN,
    CredentialInfo,
    CredentialKind,
    UserId,
    Vault,
    erase_credentials,
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
    "Sealer",
    "UserId",
    "Vault",
    "VaultCorrupted",
    "VaultError",
    "VaultKey",
    "VaultLocked",
    "erase_credentials",
    "open_vault_key",
    "list_credentials",
    "luhn_valid",
    "normalise_merchant",
    "redact_patterns",
    "validate_handle",
]
