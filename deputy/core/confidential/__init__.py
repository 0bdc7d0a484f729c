"""Confidential mode: a user's data sealed to a key only their passphrase opens.

`sealing` (the pure cryptography), `keys` (the key store in Redis and the one door for
sealing and opening values), `waiting` (work parked while the user is locked) and `errors`
(`Locked`, `WrongPassphrase`).
"""

from deputy.core.confidential.errors import Locked, WrongPassphrase
from deputy.core.confidential.keys import PERIODS, ConfidentialKeys, confidential_keys, install_unlock_key
from deputy.core.confidential.waiting import WaitingWork

__all__ = ["PERIODS", "ConfidentialKeys", "Locked", "WaitingWork", "WrongPassphrase", "confidential_keys",
           "install_unlock_key"]
