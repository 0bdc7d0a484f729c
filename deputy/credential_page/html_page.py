"""The connect page's look and its safety headers, shared by its forms and the sign-in steps."""

from __future__ import annotations

import html

from aiohttp import web

_HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
}
_STYLE = """body{font-family:system-ui,sans-serif;background:#e7ebf0;margin:0;padding:2rem}
main{max-width:30rem;margin:auto;background:#fff;border-radius:12px;padding:1.5rem 2rem;box-shadow:0 1px 3px #0002}
label{display:block;margin:.8rem 0 .2rem;font-weight:600}input,select{width:100%;padding:.5rem;font-size:1rem;
box-sizing:border-box}button{margin-top:1.2rem;padding:.6rem 1.2rem;font-size:1rem;background:#3390ec;color:#fff;
border:0;border-radius:8px}.problems{color:#b00020}.note{color:#555}"""


def page(title: str, body: str, status: int = 200, form_targets: tuple[str, ...] = ()) -> web.Response:
    """A page in the connect page's style, never cached, framed or referred; `form_targets` are the other
    origins its forms may lead to."""
    text = (f"<!doctype html><html><head><meta charset='utf-8'><meta name='viewport' content='width=device-width'>"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body><main>"
            f"<h1>{html.escape(title)}</h1>{body}</main></body></html>")
    headers = dict(_HEADERS)
    if form_targets:  # a sign-in form ends in a redirect to the provider, which form-action also governs
        headers["Content-Security-Policy"] += " " + " ".join(form_targets)
    return web.Response(text=text, content_type="text/html", status=status, headers=headers)


GONE = ("This link has expired or was already used. Send /connect again in the chat for a new one.")


def gone_page() -> web.Response:
    return page("Link expired", f"<p>{GONE}</p>", status=410)
