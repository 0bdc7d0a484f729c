"""The web view's page frame: header, navigation, styles and the security headers of every page.

Plain HTML and CSS written by the server, no script and no build step; readable on a phone
(one column, large tap targets) and with enough contrast for WCAG AA.
"""

from __future__ import annotations

from datetime import datetime, timezone
from html import escape

from aiohttp import web

HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
                               "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
}
STYLE = """
:root{--ink:#1c2430;--muted:#4f5b6b;--line:#d5dbe3;--bg:#f2f4f7;--card:#fff;--accent:#0b5cad}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:var(--ink);background:var(--bg)}a{color:var(--accent)}header{background:#10253f;color:#fff;padding:.7rem 1rem}
header .brand{font-weight:700;font-size:1.1rem;margin-right:1rem}nav{display:flex;flex-wrap:wrap;gap:.3rem;
margin-top:.4rem}nav a{color:#fff;text-decoration:none;padding:.35rem .7rem;border-radius:999px;background:#ffffff1f}
nav a[aria-current=page]{background:#fff;color:#10253f;font-weight:600}main{max-width:52rem;margin:0 auto;padding:1rem}
h1{font-size:1.45rem;margin:.4rem 0 1rem}h2{font-size:1.15rem;margin:1.4rem 0 .6rem}h3{font-size:1rem;margin:.2rem 0}
section.card,article.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:.9rem 1rem;
margin:.7rem 0}.muted{color:var(--muted)}.badge{display:inline-block;font-size:.8rem;font-weight:600;
padding:.1rem .55rem;border-radius:999px;border:1px solid currentColor;margin-left:.3rem}
.badge.waiting{color:#8a4b00}.badge.done{color:#1d6b2f}.badge.now{color:#0b5cad}.badge.stopped{color:#9b1c1c}
.badge.untrusted{color:#a33d00;background:#fbe9df}ol.timeline{list-style:none;padding-left:0;margin:0;
border-left:3px solid var(--line)}ol.timeline>li{position:relative;padding:.2rem 0 .9rem 1.1rem}
ol.timeline>li::before{content:"";position:absolute;left:-8px;top:.55rem;width:13px;height:13px;border-radius:50%;
background:var(--card);border:3px solid var(--muted)}ol.timeline>li.user::before{border-color:#0072B2}
ol.timeline>li.outside::before{border-color:#D55E00}ol.timeline>li.model::before{border-color:#6A3D9A}
ol.timeline>li.action::before{border-color:#1c2430;background:#1c2430}.who{font-weight:600}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f7f9;border:1px solid var(--line);border-radius:8px;
padding:.6rem;margin:.4rem 0;font-size:.9rem}details summary{cursor:pointer;color:var(--accent)}
ul.plan{list-style:none;padding-left:0}ul.plan li{padding:.15rem 0}table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:.45rem .4rem;border-bottom:1px solid var(--line);vertical-align:top}
form.decide{display:flex;gap:.6rem;flex-wrap:wrap;margin-top:.6rem}button{font:inherit;font-weight:600;
padding:.6rem 1.3rem;border-radius:10px;border:2px solid transparent;cursor:pointer;min-height:44px}
button.approve{background:#1d6b2f;color:#fff}button.deny{background:#fff;color:#9b1c1c;border-color:#9b1c1c}
button.open{background:var(--accent);color:#fff}.verdict{font-weight:600}.ok{color:#1d6b2f}.bad{color:#9b1c1c}
ul.legend{list-style:none;display:flex;flex-wrap:wrap;gap:1rem;padding:0;margin:.4rem 0;font-size:.9rem}
.swatch{display:inline-block;width:1rem;height:1rem;border:2px solid;border-radius:4px;vertical-align:-3px;
margin-right:.35rem}.swatch.outside{border-style:dashed}svg.flow{max-width:40rem;display:block;margin:.4rem 0}
svg.flow text{font:13px system-ui,sans-serif;fill:#1c2430}svg.flow text.kind{font-weight:700}
svg.flow text.head{font-weight:700;fill:#4f5b6b}.seal{font-family:ui-monospace,monospace;word-break:break-all}
.nowrap{white-space:nowrap}.notice{background:#fff8e1;border:1px solid #e0b100;border-radius:10px;padding:.7rem 1rem}
@media (max-width:600px){main{padding:.6rem}h1{font-size:1.25rem}td,th{padding:.35rem .2rem;font-size:.92rem}}
"""
_NAV = (("goals", "/web/goals", "Goals"), ("audit", "/web/audit", "Audit trail"), ("money", "/web/money", "Money"))


def when(moment: float) -> str:
    return datetime.fromtimestamp(moment, tz=timezone.utc).strftime("%d %b %Y %H:%M UTC")


def short_when(moment: float) -> str:
    return datetime.fromtimestamp(moment, tz=timezone.utc).strftime("%d %b %H:%M")


def page(title: str, body: str, *, current: str | None = None, status: int = 200, nav: bool = True) -> web.Response:
    """A whole page; `current` marks the navigation entry it belongs to."""
    links = "".join(f"<a href='{href}'{' aria-current=page' if key == current else ''}>{label}</a>"
                    for key, href, label in _NAV) if nav else ""
    text = ("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width,initial-scale=1'>"
            f"<title>{escape(title)} · Deputy</title><style>{STYLE}</style></head><body>"
            f"<header><span class='brand'>Deputy</span><nav aria-label='Sections'>{links}</nav></header>"
            f"<main><h1>{escape(title)}</h1>{body}</main></body></html>")
    return web.Response(text=text, content_type="text/html", status=status, headers=HEADERS)
