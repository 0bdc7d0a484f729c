"""The private page behind a `/connect` link: credentials go from the form into the vault.

Served by `deputy connect-page`, which (with the executor) is the only process holding the
vault key. The link works once; nothing typed here reaches the chat, the model, a log or
the audit trail (which records only which service was connected).
"""

from __future__ import annotations

import asyncio
import html
import logging
import time
from dataclasses import replace
from typing import Callable
from urllib.parse import urlsplit

from aiohttp import web

from deputy.core.records.effects import ConnectorError
from deputy.credential_page.forms import FORMS, ServiceForm, validate
from deputy.credential_page.confidential_page import SERVICES as CONFIDENTIAL, ConfidentialPage
from deputy.credential_page.confidential_page import form as confidential_form
from deputy.core.accounts.connect_links import ConnectLinks, ConnectRequest
from deputy.core.records.outbox import Outbox
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.egress.transports.http_client import EgressBlocked
from deputy.sentinel.egress.transports.sockets import EndpointGuard
from deputy.vault import Vault, VaultError
from deputy.credential_page.html_page import GONE as _GONE, page as _page
from deputy.credential_page.oauth_signin import OAuthSignIn, sign_in_section

log = logging.getLogger(__name__)

def _form(form: ServiceForm, values: dict[str, str], problems: list[str]) -> str:
    parts = [f"<p class='note'>{html.escape(form.explanation)}</p>"]
    if problems:
        parts.append("<ul class='problems'>" + "".join(f"<li>{html.escape(p)}</li>" for p in problems) + "</ul>")
    parts.append("<form method='post' autocomplete='off'>")
    for field in form.fields:
        value = "" if field.kind == "password" else html.escape(values.get(field.name, field.default))
        parts.append(f"<label for='{field.name}'>{html.escape(field.label)}</label>")
        if field.kind == "select":
            options = "".join(
                f"<option{' selected' if o == (values.get(field.name) or field.default) else ''}>{html.escape(o)}"
                "</option>" for o in field.options
            )
            parts.append(f"<select id='{field.name}' name='{field.name}'>{options}</select>")
        else:
            kind = {"number": "number", "password": "password", "email": "email", "url": "url"}.get(field.kind, "text")
            parts.append(f"<input id='{field.name}' name='{field.name}' type='{kind}' value='{value}'>")
    parts.append("<button type='submit'>Connect</button></form>")
    return "".join(parts)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def server_problems(form: ServiceForm, values: dict[str, str], egress: EndpointGuard) -> tuple[list[str], list[str]]:
    """Plain problems with the servers the form names (private addresses, unknown names), and the
    guard's reasons for the audit trail. Blocking (DNS): run it off the event loop."""
    problems: list[str] = []
    reasons: list[str] = []
    for what, server, port in form.servers(values):
        try:
            if port is None:
                egress.check_url(server)
            else:
                egress.check(server, port)
        except EgressBlocked as exc:
            problems.append(f"{what}: {exc.user_message}")
            reasons += exc.decision.reasons if exc.decision else []
        except ConnectorError as exc:
            problems.append(f"{what}: {exc.user_message}")
    return problems, reasons


def create_app(
    links: ConnectLinks,
    vault: Vault,
    outbox: Outbox,
    audit: AuditLog,
    clock: Callable[[], float] = time.time,
    *,
    egress: EndpointGuard | None = None,
    card_connected: Callable[[int, int, str, str], None] | None = None,
    confidential: ConfidentialPage | None = None,
    signin: OAuthSignIn | None = None,
) -> web.Application:
    """The connect page; with `egress`, servers the egress policy refuses are refused here, before
    anything is stored, with a sentence saying what is wrong and what to do. With `confidential`, it
    also serves the links that turn on and unlock confidential mode. With `signin`, mail and calendar
    can be connected by signing in with a provider, with the access the user chooses."""

    async def submit_confidential(token: str, pending: ConnectRequest, request: web.Request) -> web.Response:
        assert confidential is not None
        values = {k: v for k, v in (await request.post()).items() if isinstance(v, str)}
        # The key derivation takes a tenth of a second on purpose: off the event loop.
        outcome = await asyncio.to_thread(confidential.submit, pending.service, pending.user_id, pending.chat_id,
                                          values)
        if outcome.done:
            links.consume(token)
        return _page(outcome.title, outcome.body, outcome.status)

    async def show(request: web.Request) -> web.Response:
        pending = links.peek(request.match_info["token"])
        if pending is not None and pending.service in CONFIDENTIAL and confidential is not None:
            outcome = confidential_form(pending.service)
            return _page(outcome.title, outcome.body, outcome.status)
        if pending is None or pending.service not in FORMS:
            return _page("Link expired", f"<p>{_GONE}</p>", status=410)
        form = FORMS[pending.service]
        offer = sign_in_section(request.match_info["token"], pending.service, signin.providers) if signin else ""
        targets = tuple(sorted({_origin(p.authorize_url) for p in signin.providers.values()})) if offer else ()
        return _page(form.title, offer + _form(form, {}, []), form_targets=targets)

    async def submit(request: web.Request) -> web.Response:
        token = request.match_info["token"]
        pending = links.peek(token)
        if pending is not None and pending.service in CONFIDENTIAL and confidential is not None:
            return await submit_confidential(token, pending, request)
        if pending is None or pending.service not in FORMS:
            return _page("Link expired", f"<p>{_GONE}</p>", status=410)
        form = FORMS[pending.service]
        raw = {k: v for k, v in (await request.post()).items() if isinstance(v, str)}
        values, problems = validate(form, raw)
        if problems:
            return _page(form.title, _form(form, values, problems), status=400)
        if egress is not None:
            problems, reasons = await asyncio.to_thread(server_problems, form, values, egress)
            if problems:
                # The link stays valid: the user can correct the address and submit again.
                audit.append(pending.user_id, "connection_refused", clock(), service=form.service, reasons=reasons)
                return _page(form.title, _form(form, values, problems), status=400)
        if links.consume(token) is None:  # someone else submitted in the meantime
            return _page("Link expired", f"<p>{_GONE}</p>", status=410)
        entries = form.entries(values)
        if pending.handle:
            entries = [replace(entry, handle=pending.handle) for entry in entries]
        try:
            for entry in entries:
                kind = "card" if entry.handle.startswith("cred:card/") else "password"
                vault.put(pending.user_id, entry.handle, entry.secret, kind, entry.label, public=entry.public)
        except VaultError as exc:
            log.error("could not store a connection: %s", exc.user_message)
            return _page("Not connected", f"<p>{html.escape(exc.user_message)}</p>", status=500)
        audit.append(pending.user_id, "connection_added", clock(), service=form.service,
                     handles=[e.handle for e in entries])
        if card_connected is not None:  # the heads-up a month before the card expires
            for entry in entries:
                if entry.handle.startswith("cred:card/"):
                    card_connected(pending.user_id, pending.chat_id, entry.handle, entry.public.get("expiry", ""))
        what = f"The key for {pending.handle.split('/')[-1]} is saved" if pending.handle else (
            f"{form.title.replace('Connect your', 'Your')} is connected")
        outbox.send(pending.chat_id, f"✅ {what}. /connections lists what is connected.")
        return _page("Connected", "<p>Done. You can close this page and go back to the chat.</p>")

    async def healthz(request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    app = web.Application(client_max_size=64 * 1024)
    app.add_routes([web.get("/connect/{token}", show), web.post("/connect/{token}", submit),
                    web.get("/healthz", healthz)])
    if signin is not None:
        app.add_routes([web.post("/connect/{token}/oauth", signin.start), web.get("/oauth/callback", signin.callback)])
    return app
