"""A confidential user's keys in Redis, and the one door through which their values are sealed and opened.

Redis holds, under the user's namespace (so `/delete_me` takes it all):
- `…:confidential` (hash): the public key in clear, the private key wrapped under the
  passphrase key, and the argon2id salt. Writing needs only the public key, so a message
  that arrives while the user is locked is kept, sealed, and nothing is lost.
- `…:confidential:unlocked`: while unlocked, the private key wrapped under the operator's
  unlock key (which never enters Redis), expiring when the chosen period ends. Locking
  deletes it. A Redis dump alone therefore never opens anything.

`ConfidentialKeys.seal_*` leave a user who is not confidential as they are (one Redis read);
`open_*` pass clear values through and raise `Locked` for a sealed value while locked.
"""

from __future__ import annotations

import os
from typing import Callable

from redis import Redis

from deputy.core.infrastructure import step_reads
from deputy.core.confidential.errors import Locked, WrongPassphrase
from deputy.core.confidential.sealing import (
    CannotOpen, is_sealed, new_private_key, open_sealed, passphrase_key, public_of, seal, unwrap, wrap,
)

_KEYS = "deputy:user:{}:confidential"
_UNLOCKED = "deputy:user:{}:confidential:unlocked"
MIN_PASSPHRASE = 10
PERIODS = {"1 hour": 3600, "8 hours": 8 * 3600, "24 hours": 24 * 3600, "7 days": 7 * 24 * 3600}
"""The unlock periods a user may choose."""

Opener = Callable[[str | bytes], bytes]


def public_key_field(user_id: int) -> tuple[str, str]:
    """The Redis hash and field of the user's public key (for a hot path reading it asynchronously)."""
    return _KEYS.format(int(user_id)), "public"


def _label(user_id: int, what: str) -> bytes:
    return f"deputy confidential {what} {int(user_id)}".encode()


class ConfidentialKeys:
    """One user's confidential keys: turn on, unlock, lock, seal and open.

    `unlock_key` is the operator's key (from DEPUTY_SECRET) that wraps an unlocked private
    key; a process without it can seal but never open.
    """

    def __init__(self, redis: Redis, unlock_key: bytes | None = None) -> None:
        self._redis = redis
        self._unlock_key = unlock_key

    @property
    def redis(self) -> Redis:
        return self._redis

    # -- state ---------------------------------------------------------------------------

    def enabled(self, user_id: int) -> bool:
        return bool(self._redis.exists(_KEYS.format(int(user_id))))

    def public_key(self, user_id: int) -> bytes | None:
        key = _KEYS.format(int(user_id))
        raw = step_reads.read(("HGET", key, "public"), lambda: self._redis.hget(key, "public"))
        return bytes(raw) if raw else None

    def unlocked_until(self, user_id: int, now: float) -> float | None:
        """When the current unlock period ends, or None while locked (or not confidential)."""
        ttl_ms = self._redis.pttl(_UNLOCKED.format(int(user_id)))
        return now + ttl_ms / 1000 if ttl_ms and ttl_ms > 0 else None

    def is_locked(self, user_id: int) -> bool:
        return self.enabled(user_id) and not self._redis.exists(_UNLOCKED.format(int(user_id)))

    # -- the user's choices (the connect page and the chat) --------------------------------

    def turn_on(self, user_id: int, passphrase: str) -> bool:
        """Create the user's keys; False if confidential mode is already on (nothing changes)."""
        if len(passphrase) < MIN_PASSPHRASE:
            raise ValueError(f"the passphrase must be at least {MIN_PASSPHRASE} characters")
        private, salt = new_private_key(), os.urandom(16)
        wrapped = wrap(passphrase_key(passphrase, salt), private, _label(user_id, "passphrase"))
        record = {"public": public_of(private), "salt": salt, "wrapped": wrapped, "kdf": "argon2id-t3-m65536-p4"}
        key = _KEYS.format(int(user_id))
        step_reads.forget(key)
        if not self._redis.hsetnx(key, "public", record.pop("public")):
            return False  # already on: the first key pair stays
        self._redis.hset(key, mapping=record)
        return True

    def unlock(self, user_id: int, passphrase: str, seconds: int) -> None:
        """Open the private key with the passphrase and keep it unlocked for `seconds`."""
        stored = self._redis.hmget(_KEYS.format(int(user_id)), "salt", "wrapped")
        if stored[0] is None or stored[1] is None:
            raise WrongPassphrase()
        try:
            private = unwrap(passphrase_key(passphrase, bytes(stored[0])), bytes(stored[1]),
                             _label(user_id, "passphrase"))
        except CannotOpen:
            raise WrongPassphrase() from None
        held = wrap(self._operator_key(), private, _label(user_id, "unlocked"))
        self._redis.set(_UNLOCKED.format(int(user_id)), held, ex=max(1, int(seconds)))

    def lock(self, user_id: int) -> bool:
        """Forget the unlocked copy now; True if the user was unlocked."""
        return bool(self._redis.delete(_UNLOCKED.format(int(user_id))))

    # -- sealing and opening ---------------------------------------------------------------

    def seal_text(self, user_id: int, text: str) -> str:
        public = self.public_key(user_id)
        return seal(public, text.encode()) if public else text

    def seal_bytes(self, user_id: int, data: bytes) -> bytes:
        public = self.public_key(user_id)
        return seal(public, data).encode() if public else data

    def opener(self, user_id: int, chat_id: int | None = None) -> Opener:
        """A function that opens the user's values (clear ones pass through), the key read once.

        It raises `Locked` on the first sealed value while the user is locked.
        """
        return self._opener(user_id, chat_id, lambda: self._redis.get(_UNLOCKED.format(int(user_id))))

    def held_opener(self, user_id: int, held: bytes | None, chat_id: int | None = None) -> Opener:
        """An opener like `opener`, with the user's unlocked key as the caller read it (at
        `unlocked_key_name`, with whatever else it read in the same round trip): it never reads Redis."""
        return self._opener(user_id, chat_id, lambda: held)

    def _opener(self, user_id: int, chat_id: int | None, unlocked: Callable[[], bytes | None]) -> Opener:
        private: list[bytes] = []

        def open_value(value: str | bytes) -> bytes:
            raw = value.encode() if isinstance(value, str) else bytes(value)
            if not is_sealed(raw):
                return raw
            if not private:
                private.append(self._private(user_id, chat_id, unlocked()))
            try:
                return open_sealed(private[0], raw.decode())
            except CannotOpen:
                # Sealed to an older key pair of this user (erased and turned on again): gone for good.
                raise Locked(user_id, chat_id) from None

        return open_value

    def open_text(self, user_id: int, value: str | bytes, chat_id: int | None = None) -> str:
        return self.opener(user_id, chat_id)(value).decode()

    def open_bytes(self, user_id: int, value: bytes) -> bytes:
        return self.opener(user_id)(value)

    def _private(self, user_id: int, chat_id: int | None, held: bytes | None) -> bytes:
        key = self._unlock_key or _installed
        if held is None or key is None:
            raise Locked(user_id, chat_id)
        try:
            return unwrap(key, bytes(held), _label(user_id, "unlocked"))
        except CannotOpen:
            raise Locked(user_id, chat_id) from None

    def _operator_key(self) -> bytes:
        key = self._unlock_key or _installed
        if key is None:
            raise RuntimeError("this process holds no unlock key: it cannot unlock confidential data")
        return key


def unlocked_key_name(user_id: int) -> str:
    """Where the user's unlocked copy of their key is (for an asyncio reader; see `open_with`)."""
    return _UNLOCKED.format(int(user_id))


def open_with(user_id: int, held: bytes | None, token: str) -> bytes:
    """Open `token` with the unlocked copy `held` (read by the caller) and this process's unlock key.

    For asyncio readers, which cannot use the synchronous `ConfidentialKeys`; `Locked` when `held`
    is None (locked) or the unlock key does not open it.
    """
    if held is None or _installed is None:
        raise Locked(user_id)
    try:
        return open_sealed(unwrap(_installed, bytes(held), _label(user_id, "unlocked")), token)
    except CannotOpen:
        raise Locked(user_id) from None


_installed: bytes | None = None


def install_unlock_key(key: bytes | None) -> None:
    """Give this process the operator's unlock key (entry points do, from DEPUTY_SECRET)."""
    global _installed
    _installed = key


def confidential_keys(redis: Redis) -> ConfidentialKeys:
    """The keys as this process may use them: it can always seal; it opens only with the installed unlock key
    (looked up when needed, so stores built before the entry point installs it still open)."""
    return ConfidentialKeys(redis)
