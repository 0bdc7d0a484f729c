"""Each user's browser state (cookies, local storage), sealed in Redis so any executor can load it.

Playwright's storage state is what makes a site remember the user: a login kept by one
executor must work in the next step, run by whichever executor takes it. It is saved after
every operation, sealed under the vault key (it holds session cookies, as good as a
password) and bound to the user, and loaded into a fresh browser context. A version number
beside it lets an executor that still has the user's browser open notice that another
executor has saved something newer since.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from redis import Redis

from deputy.vault import Sealer, VaultError

log = logging.getLogger(__name__)

MAX_STATE_BYTES = 4 * 1024 * 1024
"""Larger states keep their cookies only (a site's local storage gone wild must not fill Redis)."""
STATE_TTL_SECONDS = 180 * 24 * 3600
"""A browser unused this long forgets its logins, like cookies of a site one stopped visiting."""
_KEY = "deputy:browser:{}"


class BrowserStates:
    """Sealed storage state per user in Redis; `sealer` comes from the vault key (`VaultKey.sealer`)."""

    def __init__(self, redis: Redis, sealer: Sealer) -> None:
        self._redis = redis
        self._sealer = sealer

    def version(self, user_id: int) -> int:
        """How many times the user's state was saved (0: never)."""
        return int(self._redis.hget(_KEY.format(int(user_id)), "version") or 0)

    def load(self, user_id: int) -> tuple[int, dict[str, Any] | None]:
        """(version, storage state) of the user; None when there is none or it cannot be read."""
        key = _KEY.format(int(user_id))
        version, sealed = self._redis.hmget(key, ["version", "state"])
        if sealed is None:
            return int(version or 0), None
        try:
            state = json.loads(self._sealer.open(sealed, _context(user_id)))
        except (VaultError, ValueError):
            # Starting without cookies only means logging in again; never fail the step for it.
            log.warning("the browser state of a user could not be read; starting without it")
            return int(version or 0), None
        return int(version or 0), state

    def save(self, user_id: int, state: dict[str, Any]) -> int:
        """Store `state` sealed; the new version."""
        data = json.dumps(state, separators=(",", ":")).encode()
        if len(data) > MAX_STATE_BYTES:
            log.warning("a browser state of %d bytes keeps only its cookies", len(data))
            data = json.dumps({"cookies": state.get("cookies", []), "origins": []}).encode()
        key = _KEY.format(int(user_id))
        with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, "state", self._sealer.seal(data, _context(user_id)))
            pipe.hincrby(key, "version", 1)
            pipe.expire(key, STATE_TTL_SECONDS)
            _, version, _ = pipe.execute()
        return int(version)

    def erase(self, user_id: int) -> int:
        """Forget the user's browser state (`/delete_me`); needs no key."""
        return erase_browser_state(self._redis, user_id)


def erase_browser_state(redis: Redis, user_id: int) -> int:
    return redis.delete(_KEY.format(int(user_id)))


def _context(user_id: int) -> str:
    return f"browser/{int(user_id)}"
