"""Entry point for `deputy bot`."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import TYPE_CHECKING

from telegram import Update
from telegram.error import InvalidToken

from deputy.apps.chat_services import chat_services
from deputy.bot.app import build_application
from deputy.bot.telegram_access import REFUSED, TelegramAccess, hide_token_in_logs
from deputy.runtime.health import LoopProbe, redis_check, serve_health
from deputy.settings import Settings

if TYPE_CHECKING:
    from deputy.bot.webhook import WebhookConfig

log = logging.getLogger(__name__)

# With no real token the bot talks to the local emulator, which accepts any token.
LOCAL_TOKEN = "local:emulator"
_SECRET_TOKEN = re.compile(r"^[A-Za-z0-9_-]{1,256}$")  # what Telegram accepts as secret_token


def serve(settings: Settings) -> None:
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set: point it at your Redis, e.g. redis://127.0.0.1:6379/0")
    if settings.telegram_bot_token is not None:
        token, api_base = settings.telegram_bot_token.get_secret_value(), settings.telegram_api_base
        hide_token_in_logs(token)
    else:
        token = LOCAL_TOKEN
        api_base = settings.telegram_api_base or f"http://127.0.0.1:{settings.chat_port}/bot"
    allowed = settings.allowed_user_ids()
    if allowed == frozenset():
        log.warning("DEPUTY_ALLOWED_USERS is empty: with a real Telegram token nobody may use this bot")
    webhook = webhook_config(settings) if settings.webhook_url else None
    services = chat_services(settings)
    access = TelegramAccess()
    app = build_application(token, services, settings.redis_url, api_base=api_base, access=access)
    live = LoopProbe()
    app.post_init = live.before(app.post_init)
    serve_health(settings.health_port, settings.health_host, live,
                 {"redis": redis_check(settings.redis_url), "telegram": access})
    try:
        if webhook is not None:
            from deputy.bot.webhook import serve_webhook  # aiohttp: loaded only by replicas that serve webhooks

            asyncio.run(serve_webhook(app, webhook, settings.redis_url))
            return
        app.run_polling(allowed_updates=Update.ALL_TYPES, poll_interval=0.0, timeout=10, drop_pending_updates=False)
    except InvalidToken:
        # At start-up (getMe): nothing was fetched or sent, and the outbox keeps every message.
        raise SystemExit(REFUSED) from None


def webhook_config(settings: Settings) -> WebhookConfig:
    """DEPUTY_WEBHOOK_* checked, with messages that say what to fix."""
    from deputy.bot.webhook import WebhookConfig, parse_listen, url_problem

    try:
        host, port = parse_listen(settings.webhook_listen)
    except ValueError:
        raise SystemExit(
            f"DEPUTY_WEBHOOK_LISTEN must be host:port, e.g. 0.0.0.0:8443 (got {settings.webhook_listen!r})"
        ) from None
    url = settings.webhook_url or ""
    problem = url_problem(url, allow_http=settings.webhook_allow_http)
    if problem is not None:
        raise SystemExit(f"DEPUTY_WEBHOOK_URL {problem}")
    secret = settings.webhook_secret_value()
    if not _SECRET_TOKEN.match(secret):
        raise SystemExit("DEPUTY_WEBHOOK_SECRET may only hold letters, digits, _ and - (at most 256 characters)")
    return WebhookConfig(url, host, port, secret, settings.webhook_max_connections)
