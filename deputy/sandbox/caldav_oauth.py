"""Bearer tokens for the sandbox calendar: a front door before Radicale (which knows only passwords).

Every request must carry `Authorization: Bearer <token>` from the sandbox OAuth provider:
reading (GET, PROPFIND, REPORT...) needs `calendar.read`, anything else `calendar.write`. An
expired, revoked or unknown token gets 401 and a missing scope 403, with the RFC 6750
`WWW-Authenticate` error, as Google's CalDAV answers; a good one is passed on to Radicale as
the token's user.
"""

from __future__ import annotations

import base64
from typing import Callable

import aiohttp
from aiohttp import web

from deputy.sandbox.xoauth2 import TokenCheck

_READS = {"GET", "HEAD", "OPTIONS", "PROPFIND", "REPORT"}
_HOP = {"host", "authorization", "content-length", "transfer-encoding", "connection", "content-encoding",
        "keep-alive", "www-authenticate"}


def create_app(upstream: str, check: TokenCheck, password_for: Callable[[str], str]) -> web.Application:
    upstream = upstream.rstrip("/")

    def refuse(status: int, error: str, description: str) -> web.Response:
        challenge = f'Bearer realm="sandbox", error="{error}", error_description="{description}"'
        return web.Response(status=status, text=description, headers={"WWW-Authenticate": challenge})

    async def proxy(request: web.Request) -> web.Response:
        auth = request.headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            return web.Response(status=401, text="A bearer token is needed.",
                                headers={"WWW-Authenticate": 'Bearer realm="sandbox"'})
        scope = "calendar.read" if request.method in _READS else "calendar.write"
        try:
            user = check(auth.removeprefix("Bearer ").strip(), scope)
        except Exception as exc:  # the provider's TokenRefused: "<error>: <why>"
            error, _, why = str(exc).partition(": ")
            return refuse(403 if error == "insufficient_scope" else 401, error, why)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP}
        login = base64.b64encode(f"{user}:{password_for(user)}".encode()).decode()
        headers["Authorization"] = f"Basic {login}"
        async with aiohttp.ClientSession() as session:
            async with session.request(request.method, upstream + request.path_qs, data=await request.read(),
                                       headers=headers, allow_redirects=False) as answer:
                body = await answer.read()
                kept = {k: v for k, v in answer.headers.items() if k.lower() not in _HOP}
                return web.Response(status=answer.status, body=body, headers=kept)

    app = web.Application(client_max_size=8 * 1024 * 1024)
    app.router.add_route("*", "/{tail:.*}", proxy)
    return app
