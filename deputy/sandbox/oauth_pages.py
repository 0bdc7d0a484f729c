"""The sandbox OAuth provider over HTTP: sign-in and consent page, token and revocation endpoints.

`/authorize` (GET shows the consent page, POST is the user's answer), `/token`, `/revoke`,
and two sandbox-only controls a real provider has in other forms: `/sandbox/advance` lets
time pass (access tokens expire) and `/sandbox/revoke-all` removes every grant, as a user
removing the app from their account would.
"""

from __future__ import annotations

import html
import json

from aiohttp import web

from deputy.sandbox.oauth_provider import OAuthProvider, oauth_request

SCOPE_WORDS = {
    "mail.read": "Read your email",
    "mail.draft": "Write drafts in your mailbox",
    "mail.send": "Send email as you",
    "calendar.read": "See your calendar",
    "calendar.write": "Add, move and delete events in your calendar",
}
_FORWARDED = ("response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge",
              "code_challenge_method")


def _page(title: str, body: str, status: int = 200) -> web.Response:
    text = (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
            f"<body style='font-family:sans-serif;max-width:30rem;margin:2rem auto'><h1>{html.escape(title)}</h1>"
            f"{body}</body></html>")
    return web.Response(text=text, content_type="text/html", status=status,
                        headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY"})


def _reply(answer: tuple[int, object, list]) -> web.Response:
    status, body, headers = answer
    headers = [(k, v) for k, v in headers if k.lower() != "content-type"]
    if isinstance(body, dict):
        return web.json_response(body, status=status, headers=dict(headers))
    return web.Response(status=status, text=str(body or ""), headers=dict(headers))


def _consent(data: dict[str, str], problem: str = "") -> str:
    scopes = "".join(f"<li>{html.escape(SCOPE_WORDS.get(s, s))} <code>{html.escape(s)}</code></li>"
                     for s in data.get("scope", "").split())
    hidden = "".join(f"<input type='hidden' name='{k}' value='{html.escape(data[k])}'>" for k in _FORWARDED
                     if k in data)
    note = f"<p style='color:#b00020'>{html.escape(problem)}</p>" if problem else ""
    return (f"{note}<p><b>{html.escape(data.get('client_id', ''))}</b> asks to:</p><ul>{scopes}</ul>"
            f"<form method='post'>{hidden}<label>Email <input name='username'></label><br>"
            "<label>Password <input name='password' type='password'></label><br>"
            "<button name='decision' value='allow'>Allow</button> "
            "<button name='decision' value='deny'>Deny</button></form>")


def create_app(provider: OAuthProvider) -> web.Application:
    server = provider.server

    async def read(request: web.Request) -> tuple[dict[str, str], object]:
        query = dict(request.query)
        form = {k: v for k, v in (await request.post()).items() if isinstance(v, str)} \
            if request.method == "POST" else {}
        return {**query, **form}, oauth_request(request.method, str(request.url), dict(request.headers), query, form)

    async def authorize(request: web.Request) -> web.Response:
        data, oauth = await read(request)
        try:
            grant = server.get_consent_grant(oauth)
        except Exception as exc:  # Authlib's OAuth2Error: never redirect to an unchecked address
            description = getattr(exc, "description", "") or str(exc)
            return _page("Sign-in refused", f"<p>{html.escape(description)}</p>", status=400)
        if request.method == "GET":
            return _page("Sign in to the sandbox", _consent(data))
        user = None
        if data.get("decision") == "allow":
            user = provider.login(data.get("username", ""), data.get("password", ""))
            if user is None:
                return _page("Sign in to the sandbox", _consent(data, "Wrong email or password."), status=401)
        return _reply(server.create_authorization_response(oauth, grant_user=user, grant=grant))

    async def token(request: web.Request) -> web.Response:
        _, oauth = await read(request)
        return _reply(server.create_token_response(oauth))

    async def revoke(request: web.Request) -> web.Response:
        _, oauth = await read(request)
        return _reply(server.create_endpoint_response("revocation", oauth))

    async def advance(request: web.Request) -> web.Response:
        provider.skew += float(request.query.get("seconds", "0"))
        return web.json_response({"skew": provider.skew})

    async def revoke_all(request: web.Request) -> web.Response:
        provider.revoke_everything()
        return web.json_response({"revoked": True})

    async def discovery(request: web.Request) -> web.Response:
        base = f"{request.scheme}://{request.host}"
        return web.Response(text=json.dumps({
            "issuer": base, "authorization_endpoint": f"{base}/authorize", "token_endpoint": f"{base}/token",
            "revocation_endpoint": f"{base}/revoke", "scopes_supported": list(SCOPE_WORDS),
            "code_challenge_methods_supported": ["S256"]}), content_type="application/json")

    app = web.Application()
    app.add_routes([web.get("/authorize", authorize), web.post("/authorize", authorize),
                    web.post("/token", token), web.post("/revoke", revoke),
                    web.post("/sandbox/advance", advance), web.post("/sandbox/revoke-all", revoke_all),
                    web.get("/.well-known/oauth-authorization-server", discovery)])
    return app
