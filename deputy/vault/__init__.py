"""The vault: credentials by handle, secret scrubbing and single-use payment tokens.

Only the executor and the connect page open it; everything is kept in Redis, sealed
with a key derived from `DEPUTY_VAULT_KEY`, which never goes to Redis. The agent refers to credentials by handle
(`cred:email/work`) and to approved purchases by payment token id (`ptok_...`).
"""

from deputy.core.records.card_numbers import luhn_valid
from deputy.core.accounts.credential_index import (
    HANDLE_PATTERN,
    CredentialInfo,
    CredentialKind,
    UserId,
    list_credentials,
    validate_handle,
)
from deputy.core.records.vault_errors import (
    CredentialNotFound,
    InvalidCredential,
    InvalidPaymentRequest,
    PaymentRefused,
    VaultCorrupted,
    VaultError,
    VaultLocked,
)
from deputy.vault.sealing import KdfCost, Sealer, VaultKey, open_vault_key
from deputy.vault.patterns import REDACTED, redact_patterns
from deputy.vault.payments import CardCharge, PaymentToken, PaymentTokens, normalise_merchant
from deputy.vault.scrub import MIN_SECRET_LENGTH, Scrubber
from deputy.vault.store import Vault, erase_credentials

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
