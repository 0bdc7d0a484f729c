"""Entry point for `deputy bot`."""

from __future__ import annotations

import logging

from redis import Redis
from telegram import Update

from bot.app import build_application
from bot.services import BotServices
from deputy.settings import Settings

log = logging.getLogger(__name__)

# With no real token the bot talks to the local emulator, which accepts any token.
LOCAL_TOKEN = "local:emulator"


def serve(settings: Settings) -> None:
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set: point it at your Redis, e.g. redis://127.0.0.1:6379/0")
    if settings.telegram_bot_token is not None:
        token, api_base = settings.telegram_bot_token.get_secret_value(), settings.telegram_api_base
    else:
        token = LOCAL_TOKEN
        api_base = settings.telegram_api_base or f"http://127.0.0.1:{settings.chat_port}/bot"
    allowed = settings.allowed_user_ids()
    if allowed == frozenset():
        log.warning("DEPUTY_ALLOWED_USERS is empty: with a real Telegram token nobody may use this bot")
    services = BotServices.create(
        Redis.from_url(settings.redis_url), settings.secret_value(), allowed, settings.connect_base_url(),
        redis_url=settings.redis_url, audit_key=settings.audit_key_value(),
    )
    app = build_application(token, services, settings.redis_url, api_base=api_base)
    app.run_polling(allowed_updates=Update.ALL_TYPES, poll_interval=0.0, timeout=10, drop_pending_updates=False)
