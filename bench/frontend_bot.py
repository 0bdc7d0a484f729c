"""The bots the front-end benchmark compares, started like `deputy bot`.

    python -m bench.frontend_bot deputy [--rate-limit]   # Deputy's real handlers
    python -m bench.frontend_bot echo [--rate-limit]     # the baseline: a PTB echo handler
    (--cpu-profile FILE: cProfile timed with the process's CPU clock, for `bench.frontend_profile`)

Both read the same settings as `deputy bot` (REDIS_URL, TELEGRAM_API_BASE, DEPUTY_SECRET)
and build python-telegram-bot the same way (`deputy.bot.updates.application_builder`: concurrent
updates, in order per chat, the same connection pool; long polling with the same
arguments), so the difference between them is Deputy's handling of a message.
`--rate-limit` adds PTB's AIORateLimiter, as `deputy bot` always does: it paces every bot
to Telegram's ~30 messages per second, whatever its handlers. Without it the benchmark
sees the handlers' own time.
"""

from __future__ import annotations

import argparse
import cProfile
import time
from pathlib import Path

from telegram import Update
from telegram.ext import Application, ContextTypes, MessageHandler, filters

from deputy.bot.updates import application_builder
from deputy.settings import Settings

LOCAL_TOKEN = "local:emulator"  # as `deputy.apps.bot`; the emulator accepts any token


def echo_application(api_base: str, rate_limit: bool) -> Application:
    """A bot that answers every text with the same text: PTB's own cost per update."""
    app = application_builder(LOCAL_TOKEN, api_base, rate_limit).build()

    async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.effective_message.reply_text(update.effective_message.text or "")

    app.add_handler(MessageHandler(filters.TEXT, echo))
    return app


def deputy_application(settings: Settings, rate_limit: bool) -> Application:
    """Deputy's bot exactly as `deputy.apps.bot.serve` builds it, the rate limiter made optional."""
    from redis import Redis  # imported here so that the echo bot starts without Deputy's modules

    from deputy.bot.app import build_application
    from deputy.bot.services import BotServices

    services = BotServices.create(
        Redis.from_url(settings.redis_url), settings.secret_value(), settings.allowed_user_ids(),
        settings.connect_base_url(), redis_url=settings.redis_url,
    )
    return build_application(LOCAL_TOKEN, services, settings.redis_url, api_base=settings.telegram_api_base,
                             rate_limit=rate_limit)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.frontend_bot", description=__doc__)
    parser.add_argument("kind", choices=["deputy", "echo"])
    parser.add_argument("--rate-limit", action="store_true")
    parser.add_argument("--cpu-profile", type=Path, help="write cProfile stats, timed with the CPU clock, here")
    args = parser.parse_args()
    settings = Settings()
    if not settings.telegram_api_base:
        raise SystemExit("TELEGRAM_API_BASE must point at the emulator")
    if args.kind == "echo":
        app = echo_application(settings.telegram_api_base, args.rate_limit)
    else:
        app = deputy_application(settings, args.rate_limit)
    profiler = cProfile.Profile(time.process_time) if args.cpu_profile else None
    if profiler is not None:
        profiler.enable()
    app.run_polling(allowed_updates=Update.ALL_TYPES, poll_interval=0.0, timeout=10, drop_pending_updates=False)
    if profiler is not None:  # run_polling returns on SIGTERM
        profiler.disable()
        profiler.dump_stats(args.cpu_profile)


if __name__ == "__main__":
    main()
