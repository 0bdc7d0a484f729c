"""Signing in with a provider (Google, Microsoft, the sandbox) instead of typing a password.

The connect page offers "Sign in with <provider>" for each provider the operator registered
(`DEPUTY_OAUTH_PROVIDERS`) that serves the service, with the access the user chooses (mail:
read only / read and draft / read and send; calendar: read only / read and write). The code
flow uses PKCE; the refresh token goes straight into the vault; the chat hears only which
access was granted. The link is consumed when the provider sends the user back.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import html
import json
import logging
import secrets
import time
from typing import Callable
from urllib.parse import urlencode

import httpx
from aiohttp import web
from pydantic import SecretStr
from redis import Redis

from deputy.core.accounts.connect_links import ConnectLinks
from deputy.core.accounts.oauth import LEVELS, OAUTH_HANDLES, ProviderConfig, access_handle
from deputy.core.records.outbox import Outbox
from deputy.credential_page.html_page import gone_page, page
from deputy.sentinel.stores.audit import AuditLog
from deputy.vault import Vault, VaultError

log = logging.getLogger(__name__)

_STATE = "deputy:oauth:state:{}"
_STATE_TTL = 600


def sign_in_section(token: str, service: str, providers: dict[str, ProviderConfig]) -> str:
    """The part of the connect page that offers signing in (empty when no provider serves `service`)."""
    serving = [p for p in providers.values() if service in p.services()]
    if not serving or service not in LEVELS:
        return ""
    levels = "".join(
        f"<label style='font-weight:normal'><input type='radio' name='level' value='{name}'"
        f"{' checked' if i == 0 else ''} style='width:auto'> {html.escape(label)}</label>"
        for i, (name, (label, _)) in enumerate(LEVELS[service].items()))
    buttons = "".join(f"<button type='submit' name='provider' value='{p.name}'>Sign in with {html.escape(p.title)}"
                      "</button> " for p in serving)
    what = "mail" if service == "email" else "calendar"
    address = ("<label for='address'>Your email address</label>"
               "<input id='address' name='address' type='email'>")
    return (f"<form method='post' action='/connect/{token}/oauth'><p class='note'>Sign in with your provider: "
            f"Deputy never sees your password, and you choose what it may do with your {what}.</p>{address}"
            f"<label>Access</label>{levels}{buttons}</form><hr><p class='note'>Or connect with a password:</p>")


def _challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


class OAuthSignIn:
    """The two steps of the sign-in: off to the provider (`start`), and back (`callback`)."""

    def __init__(self, redis: Redis, links: ConnectLinks, vault: Vault, outbox: Outbox, audit: AuditLog,
                 providers: dict[str, ProviderConfig], base_url: str, clock: Callable[[], float] = time.time,
                 http: httpx.Client | None = None, on_connected: Callable[[int], None] | None = None) -> None:
        self._redis, self._links, self._vault = redis, links, vault
        self._outbox, self._audit, self._clock = outbox, audit, clock
        self.providers = providers
        self._redirect = f"{base_url.rstrip('/')}/oauth/callback"
        self._http = http or httpx.Client(timeout=20)
        self._on_connected = on_connected

    async def start(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        pending = self._links.peek(token)
        if pending is None or pending.service not in LEVELS:
            return gone_page()
        form = {k: v for k, v in (await request.post()).items() if isinstance(v, str)}
        provider = self.providers.get(form.get("provider", ""))
        level = form.get("level", "")
        address = form.get("address", "").strip()[:300]
        problems = []
        if provider is None or pending.service not in provider.services():
            problems.append("Choose one of the sign-in buttons.")
        if level not in LEVELS[pending.service]:
            problems.append("Choose what Deputy may do.")
        if "@" not in address:
            problems.append("Your email address is missing.")
        if problems or provider is None:
            items = "".join(f"<li>{html.escape(p)}</li>" for p in problems)
            return page("Not signed in", f"<ul class='problems'>{items}</ul><p>Go back and try again.</p>", 400)
        verifier, state = secrets.token_urlsafe(48), secrets.token_urlsafe(24)
        self._redis.set(_STATE.format(state), json.dumps({
            "link": token, "provider": provider.name, "level": level, "address": address,
            "verifier": verifier}), ex=_STATE_TTL)
        scopes = LEVELS[pending.service][level][1]
        query = {"response_type": "code", "client_id": provider.client_id, "redirect_uri": self._redirect,
                 "scope": provider.provider_scopes(scopes), "state": state, "code_challenge": _challenge(verifier),
                 "code_challenge_method": "S256", "login_hint": address, **provider.extra_params}
        raise web.HTTPFound(f"{provider.authorize_url}?{urlencode(query)}")

    async def callback(self, request: web.Request) -> web.Response:
        raw = self._redis.getdel(_STATE.format(request.query.get("state", "")[:100]))
        if raw is None:
            return gone_page()
        started = json.loads(raw)
        if "code" not in request.query:
            # The user said no at the provider (or it refused): nothing stored, the link still works.
            return page("Not connected", "<p>The sign-in was cancelled, so nothing was connected. You can go back "
                        "to the link and try again.</p>", 400)
        pending = self._links.consume(started["link"])
        provider = self.providers.get(started["provider"])
        if pending is None or provider is None:
            return gone_page()
        try:
            tokens = await asyncio.to_thread(self._exchange, provider, request.query["code"], started["verifier"])
        except (httpx.HTTPError, ValueError, KeyError) as exc:
            log.warning("the code exchange with %s failed: %s", provider.name, type(exc).__name__)
            return page("Not connected", f"<p>{html.escape(provider.title)} did not complete the sign-in. "
                        "Send /connect again in the chat for a new link.</p>", 502)
        service, level = pending.service, started["level"]
        label, scopes = LEVELS[service][level]
        what = "Email" if service == "email" else "Calendar"
        public = {"provider": provider.name, "address": started["address"], "scopes": " ".join(scopes),
                  "level": level}
        try:
            self._vault.put(pending.user_id, OAUTH_HANDLES[service], SecretStr(tokens["refresh_token"]), "token",
                            f"{what} {started['address']} (signed in with {provider.title}): {label}", public)
            self._vault.put(pending.user_id, access_handle(service), SecretStr(tokens["access_token"]), "token",
                            f"{what} access (renewed automatically)",
                            {"expires_at": str(int(self._clock() + int(tokens.get("expires_in", 3600))))})
        except VaultError as exc:
            log.error("could not store a signed-in connection: %s", exc.user_message)
            return page("Not connected", f"<p>{html.escape(exc.user_message)}</p>", 500)
        self._redis.delete(f"deputy:oauth:dead:{pending.user_id}:{service}")
        self._audit.append(pending.user_id, "connection_added", self._clock(), service=service,
                           handles=[OAUTH_HANDLES[service]], provider=provider.name, scopes=list(scopes))
        self._outbox.send(pending.chat_id, f"✅ Your {what.lower()} is connected through {provider.title} "
                          f"({label.lower()}). /connections shows it and changes it.")
        if self._on_connected is not None:
            self._on_connected(pending.user_id)
        return page("Connected", "<p>Done. You can close this page and go back to the chat.</p>")

    def _exchange(self, provider: ProviderConfig, code: str, verifier: str) -> dict[str, str]:
        data = {"grant_type": "authorization_code", "code": code, "redirect_uri": self._redirect,
                "client_id": provider.client_id, "code_verifier": verifier}
        if provider.client_secret is not None:
            data["client_secret"] = provider.client_secret.get_secret_value()
        response = self._http.post(provider.token_url, data=data, headers={"Accept": "application/json"})
        response.raise_for_status()
        tokens = response.json()
        if not tokens.get("refresh_token") or not tokens.get("access_token"):
            raise ValueError("no refresh token in the answer")
        return tokens
