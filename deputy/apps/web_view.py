"""Entry point for `deputy web-view`: the private web view behind `/web` links.

Like the chat front end it holds no credentials: it reads the user's records, verifies the audit
trail and answers approval questions through the bot's press handling.
"""

from __future__ import annotations

from aiohttp import web

from deputy.bot.services import BotServices
from deputy.core.confidential import install_unlock_key
from deputy.core.infrastructure.redis_clients import sync_client
from deputy.runtime.health import LoopProbe, redis_check, serve_health
from deputy.settings import Settings
from deputy.webview import create_app


def serve(settings: Settings, host: str, port: int) -> None:
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set: point it at your Redis, e.g. redis://127.0.0.1:6379/0")
    install_unlock_key(settings.unlock_key_value())
    secret = settings.secret_value()
    services = BotServices.create(
        sync_client(settings.redis_url, patient=False), secret, settings.allowed_user_ids(),
        settings.connect_base_url(), redis_url=settings.redis_url, audit_key=settings.audit_key_value(),
        audit_keep=settings.audit_keep, web_url=settings.web_base_url(), plans=settings.plan_book(),
    )
    app = create_app(services, secret, secure_cookie=settings.web_base_url().startswith("https://"))
    live = LoopProbe()
    app.on_startup.append(live.bind_running)
    serve_health(settings.health_port, settings.health_host, live, {"redis": redis_check(settings.redis_url)})
    print(f"Web view on http://{host}:{port} (links: {settings.web_base_url()}/web/open/...)", flush=True)
    web.run_app(app, host=host, port=port, print=None, access_log=None)
