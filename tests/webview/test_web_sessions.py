"""The web view's links and sessions: once, for a while, for one user, ended by /web off."""

from __future__ import annotations

from redis import Redis

from deputy.core.accounts.web_sessions import WebSessions, form_token


def test_a_link_opens_one_session_once_and_revoking_ends_it(redis: Redis) -> None:
    sessions = WebSessions(redis)
    token = sessions.create_link(7)
    assert sessions.link_valid(token)
    opened = sessions.open(token)
    assert opened is not None and opened[0] == 7
    assert sessions.open(token) is None, "a link works once"
    assert sessions.user_of(opened[1]) == 7 and sessions.user_of("x" * 43) is None
    stored = repr([(k, redis.get(k) if redis.type(k) == b"string" else redis.smembers(k)) for k in redis.keys()])
    assert token not in stored and opened[1] not in stored, "only digests are kept"
    unused = sessions.create_link(7)
    assert sessions.revoke(7) == 2
    assert sessions.user_of(opened[1]) is None and sessions.open(unused) is None


def test_form_tokens_are_bound_to_the_session() -> None:
    assert form_token("s1", "secret") == form_token("s1", "secret") != form_token("s2", "secret")
