"""The private web view's links and sessions: a `/web` link opens one browser session for its owner.

`/web` creates a link bound to the user; it expires after a few minutes and works once: opening
it (a button press on the page, so a link preview cannot spend it) starts a session whose id goes
into a cookie. Only a digest of the session id is stored, so reading Redis gives no cookie. A
session lasts a few hours; `/web off` ends every session and unused link of the user at once.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from redis import Redis

from deputy.core.records.erasure import Owned

_LINK = "deputy:web:link:{}"
_SESSION = "deputy:web:session:{}"
_USER_SESSIONS = "deputy:user:{}:web_sessions"
LINK_SECONDS = 10 * 60
SESSION_SECONDS = 8 * 3600


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _valid(token: str) -> bool:
    return 16 <= len(token) <= 64 and token.replace("-", "").replace("_", "").isalnum()


class WebSessions:
    def __init__(self, redis: Redis, link_seconds: int = LINK_SECONDS, session_seconds: int = SESSION_SECONDS) -> None:
        self._redis = redis
        self._link_seconds = link_seconds
        self._session_seconds = session_seconds

    def create_link(self, user_id: int) -> str:
        """A token for a one-time link that opens the user's web view."""
        token = secrets.token_urlsafe(24)
        pipe = self._redis.pipeline()
        pipe.set(_LINK.format(_digest(token)), str(user_id), ex=self._link_seconds)
        pipe.sadd(_USER_SESSIONS.format(user_id), "link:" + _digest(token))
        pipe.expire(_USER_SESSIONS.format(user_id), self._session_seconds)
        pipe.execute()
        return token

    def link_valid(self, token: str) -> bool:
        return _valid(token) and bool(self._redis.exists(_LINK.format(_digest(token))))

    def open(self, token: str) -> tuple[int, str] | None:
        """Spend the link: (user id, new session id), once; None if it is unknown, used or expired."""
        raw = self._redis.getdel(_LINK.format(_digest(token))) if _valid(token) else None
        if raw is None:
            return None
        user_id = int(raw)
        session = secrets.token_urlsafe(32)
        pipe = self._redis.pipeline()
        pipe.set(_SESSION.format(_digest(session)), str(user_id), ex=self._session_seconds)
        pipe.sadd(_USER_SESSIONS.format(user_id), "session:" + _digest(session))
        pipe.expire(_USER_SESSIONS.format(user_id), self._session_seconds)
        pipe.execute()
        return user_id, session

    def user_of(self, session: str | None) -> int | None:
        """Whose session this is; None when it is unknown, expired or revoked."""
        if not session or not _valid(session):
            return None
        raw = self._redis.get(_SESSION.format(_digest(session)))
        return int(raw) if raw is not None else None

    def revoke(self, user_id: int) -> int:
        """End every session and unused link of the user; how many there were."""
        members = self._redis.smembers(_USER_SESSIONS.format(user_id))
        keys = [(_LINK if m.startswith(b"link:") else _SESSION).format(m.decode().split(":", 1)[1]) for m in members]
        ended = int(self._redis.delete(*keys)) if keys else 0
        self._redis.delete(_USER_SESSIONS.format(user_id))
        return ended


def form_token(session: str, secret: str) -> str:
    """The token a page's forms carry, bound to the session (a page of another site cannot know it)."""
    return hmac.new(secret.encode(), b"web-form\x00" + session.encode(), hashlib.sha256).hexdigest()[:32]


def erase_user_web_sessions(redis: Redis, owned: Owned) -> int:
    """The user's web view sessions and unused links."""
    return WebSessions(redis).revoke(owned.user_id)
