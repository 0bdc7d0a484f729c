"""The executor's access tokens for signed-in connections, against the real sandbox provider.

Renewed before they expire (not at every action), a dead grant told once and never retried in a
loop, scopes refused with how to widen them, and the refresh token never outside the vault.
"""

from __future__ import annotations

import logging
import re
from typing import Iterator

import httpx
import pytest
from pydantic import SecretStr
from redis import Redis

from deputy.core.accounts.oauth import OAUTH_HANDLES, access_handle, parse_providers
from deputy.core.records.outbox import OUTBOX_STREAM, Outbox
from deputy.executor.oauth_tokens import MARGIN, ConnectionDead, OAuthTokens
from deputy.sandbox.oauth_pages import create_app
from deputy.sandbox.oauth_provider import CLIENT_ID, OAuthProvider
from deputy.sandbox.services import SandboxEndpoints
from deputy.sandbox.webapp_common import SiteServer
from deputy.vault import KdfCost, Vault

ME = "demo@sandbox.local"
USER = 7


class Counting(httpx.Client):
    """A real HTTP client that counts what it asked the provider."""

    calls = 0

    def post(self, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        Counting.calls += 1
        return super().post(*args, **kwargs)


@pytest.fixture(scope="module")
def provider() -> Iterator[tuple[OAuthProvider, str]]:
    oauth = OAuthProvider({ME: "pw"})
    site = SiteServer(create_app(oauth))
    yield oauth, site.start()
    site.stop()


def grant(oauth: OAuthProvider, url: str, scope: str) -> dict:
    """A grant as the connect page would get it (the code flow itself is tested with the sandbox)."""
    from authlib.oauth2.rfc7636 import create_s256_code_challenge

    verifier = "v" * 50
    query = {"response_type": "code", "client_id": CLIENT_ID, "redirect_uri": "http://127.0.0.1:1/oauth/callback",
             "scope": scope, "code_challenge": create_s256_code_challenge(verifier), "code_challenge_method": "S256"}
    back = httpx.post(f"{url}/authorize", data={**query, "username": ME, "password": "pw", "decision": "allow"})
    code = re.search(r"code=([^&]+)", back.headers["location"]).group(1)
    return httpx.post(f"{url}/token", data={"grant_type": "authorization_code", "code": code, "client_id": CLIENT_ID,
                                             "redirect_uri": query["redirect_uri"], "code_verifier": verifier}).json()


@pytest.fixture
def setup(redis: Redis, provider: tuple[OAuthProvider, str]):  # type: ignore[no-untyped-def]
    oauth, url = provider
    vault = Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1))
    spec = SandboxEndpoints(smtp_port=1, imap_port=2, oauth_url=url, imap_oauth_port=3).oauth_provider_spec()
    now = [1_000_000.0]
    tokens = OAuthTokens(vault, parse_providers(spec), redis, Outbox(redis), "http://connect.test",
                         http=Counting(), clock=lambda: now[0])
    given = grant(oauth, url, "mail.read")
    vault.put(USER, OAUTH_HANDLES["email"], SecretStr(given["refresh_token"]), "token", "Email (signed in)",
              {"provider": "sandbox", "address": ME, "scopes": "mail.read", "level": "read"})
    vault.put(USER, access_handle("email"), SecretStr(given["access_token"]), "token", "Email access",
              {"expires_at": str(int(now[0] + given["expires_in"]))})
    Counting.calls = 0
    return tokens, vault, now, given


def test_a_token_is_renewed_only_shortly_before_it_expires(setup, caplog) -> None:  # type: ignore[no-untyped-def]
    tokens, vault, now, given = setup
    caplog.set_level(logging.DEBUG)
    assert tokens.access_token(USER, "email").get_secret_value() == given["access_token"]
    assert Counting.calls == 0, "a live token is used as it is"
    now[0] += given["expires_in"] - MARGIN + 1
    renewed = tokens.access_token(USER, "email").get_secret_value()
    assert renewed != given["access_token"] and Counting.calls == 1
    assert vault.get(USER, access_handle("email")).get_secret_value() == renewed
    # Deputy's side (the provider is the other party: what it logs is its own business).
    ours = "\n".join(r.getMessage() for r in caplog.records if not r.name.startswith("authlib"))
    assert "renewed" in ours and given["refresh_token"] not in ours and renewed not in ours


def test_a_dead_grant_is_told_once_and_not_retried(setup, redis: Redis, provider) -> None:  # type: ignore[no-untyped-def]
    tokens, _, now, given = setup
    provider[0].revoke_everything()
    for _ in range(3):
        with pytest.raises(ConnectionDead):
            tokens.access_token(USER, "email", fresh=True)
    assert Counting.calls == 1, "the provider is asked once; then Deputy waits for a new sign-in"
    texts = [fields[b"json"].decode() for _, fields in redis.xrange(OUTBOX_STREAM)]
    assert sum("has ended" in t for t in texts) == 1 and any("/connect/" in t for t in texts)
    assert all(given["refresh_token"] not in t for t in texts)


def test_an_operation_outside_the_scopes_is_refused_with_how_to_widen(setup) -> None:  # type: ignore[no-untyped-def]
    tokens = setup[0]
    assert tokens.refusal(USER, "email.search_email") is None
    refusal = tokens.refusal(USER, "email.send_email")
    assert refusal is not None and "Read only" in refusal and "/connections" in refusal and "Read and send" in refusal
    assert tokens.refusal(USER + 1, "email.send_email") is None, "a password connection is all or nothing"
