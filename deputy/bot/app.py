"""Builds the python-telegram-bot `Application` for Deputy."""

from __future__ import annotations

import asyncio
import gc

from telegram import BotCommand, Update
from telegram.request import BaseRequest, HTTPXRequest
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from deputy.bot.account_handlers import AccountHandlers
from deputy.bot.confidential_handlers import ConfidentialHandlers
from deputy.bot.durable_polling import DurableApplication, ReceivedQueue
from deputy.bot.handlers import Handlers
from deputy.bot.link_handlers import LinkHandlers
from deputy.bot.lost_goals import LostGoals
from deputy.bot.interests_view import InterestHandlers
from deputy.bot.lost_goals import watch as watch_lost
from deputy.bot.negotiation import NegotiationHandlers
from deputy.bot.outbox_consumer import OutboxConsumer
from deputy.bot.plan_handlers import PlanHandlers
from deputy.bot.poller_lease import PollerLease
from deputy.bot.polling_turn import PollingTurn, TurnGatedRequest
from deputy.bot.services import BotServices
from deputy.bot.telegram_access import TelegramAccess
from deputy.bot.updates import application_builder
from deputy.bot.web_handlers import WebHandlers
from deputy.core.infrastructure.redis_clients import async_client
from deputy.core.accounts.surfaces import Surface

COMMANDS = [
    BotCommand("start", "Introduce yourself"),
    BotCommand("goals", "Your recent goals and where they stand"),
    BotCommand("activity", "What is done, in progress and next"),
    BotCommand("negotiate", "Sell, buy or lower a bill within limits you set"),
    BotCommand("rules", "Your rules for what Deputy may do without asking"),
    BotCommand("audit", "Recent decisions and why"),
    BotCommand("connect", "Connect an account (email, calendar) safely"),
    BotCommand("connections", "What is connected, with buttons to disconnect"),
    BotCommand("quiet", "Quiet hours for unprompted news, e.g. /quiet 22:00 07:00"),
    BotCommand("interests", "What Deputy may look out for and suggest to you"),
    BotCommand("memory", "What Deputy remembers about you"),
    BotCommand("files", "Your files: the ones you sent and the ones Deputy made"),
    BotCommand("settings", "Name, tone, language, time zone, model training"),
    BotCommand("confidential", "Encrypt your data with a passphrase only you know"),
    BotCommand("unlock", "A private link to unlock your confidential data"),
    BotCommand("lock", "Lock your confidential data now"),
    BotCommand("web", "A private link to see your goals, actions and audit trail in a browser"),
    BotCommand("export", "A file with everything Deputy stores about you"),
    BotCommand("delete_me", "Erase everything Deputy stores about you"),
    BotCommand("retry", "Try your last stopped goal again"),
    BotCommand("new", "Start afresh: the next message doesn't follow up the last one"),
    BotCommand("plan", "Your plan, what you have used and when it resets"),
    BotCommand("link", "Use Deputy from both Telegram and WhatsApp"),
    BotCommand("help", "What Deputy can do"),
]


def build_application(
    token: str,
    services: BotServices,
    redis_url: str,
    api_base: str | None = None,
    rate_limit: bool = True,
    request: BaseRequest | None = None,
    surface: Surface = "telegram",
    access: TelegramAccess | None = None,
) -> Application:
    """The bot: handlers plus the outbox consumer, started and stopped with the application.

    `request` replaces the Bot API transport (the WhatsApp surface translates the calls), and
    `surface` says whose outbox messages this application's consumer delivers."""
    # Long polling: updates are kept in Redis from fetched until handled (see deputy.bot.durable_polling),
    # and only the process holding the poller lease polls (see deputy.bot.polling_turn).
    received = ReceivedQueue()
    turn = PollingTurn()
    # PTB's own getUpdates transport, as its builder makes it (one connection), behind the turn.
    polling = TurnGatedRequest(request or HTTPXRequest(connection_pool_size=1), turn,
                               before_poll=received.confirm_recorded)
    builder = application_builder(token, api_base, rate_limit, request, polling).update_queue(
        received).application_class(DurableApplication)
    outbox_task: dict[str, asyncio.Task] = {}
    lost = LostGoals()  # what this process acknowledged: told of if Redis loses it

    async def post_init(app: Application) -> None:
        # Everything loaded so far (modules, pydantic schemas: ~190,000 objects) lives as long as
        # the process: keep it out of the garbage collector's full collections, which would
        # otherwise walk all of it and stall the event loop for tens of milliseconds each time.
        gc.freeze()
        await app.bot.set_my_commands(COMMANDS)
        # What a killed process received and never handled goes first, replayed when this process
        # takes the poller lease, before its first getUpdates.
        polling_redis = async_client(redis_url, max_connections=4)
        received.attach(polling_redis, app.bot.id, turn)
        turn.attach(PollerLease(polling_redis, app.bot.id),
                    on_taken=lambda retaken: received.taken(app, retaken), on_lost=received.lost)
        consumer = OutboxConsumer(async_client(redis_url, max_connections=4), app.bot, services.buttons,
                                  surface=surface, access=access, web_url=services.web_url,
                                  spoken_replies=services.spoken_replies)
        outbox_task["task"] = asyncio.create_task(consumer.run(), name="outbox")
        outbox_task["stranded"] = asyncio.create_task(received.sweep_forever(app), name="stranded updates")
        outbox_task["lost"] = asyncio.create_task(watch_lost(services, lost, async_client(redis_url, max_connections=2)),
                                                  name="lost goals")

    async def post_stop(app: Application) -> None:
        # After the application handled what it fetched: a waiting process may poll now.
        await turn.close()
        for name in ("task", "lost", "stranded"):
            task = outbox_task.pop(name, None)
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    app = builder.post_init(post_init).post_stop(post_stop).build()
    handlers = Handlers(services, lost)
    account = AccountHandlers(services)
    links = LinkHandlers(services)
    app.add_handler(TypeHandler(Update, links.record_surface), group=-3)
    app.add_handler(CommandHandler("link", links.link, filters=filters.UpdateType.MESSAGE), group=-2)
    app.add_handler(TypeHandler(Update, handlers.gate), group=-1)
    # First in its group: an edited message (PTB hands edits to every MessageHandler and
    # CommandHandler by default) never reaches the handlers that start goals or run commands.
    app.add_handler(MessageHandler(filters.UpdateType.EDITED_MESSAGE, handlers.edited))
    app.add_handler(CommandHandler("start", handlers.start))
    app.add_handler(CommandHandler("help", handlers.help))
    app.add_handler(CommandHandler("goals", handlers.goals))
    app.add_handler(CommandHandler("retry", handlers.retry))
    app.add_handler(CommandHandler("new", handlers.follow_ups.new))
    app.add_handler(CommandHandler("rules", handlers.rules))
    app.add_handler(CommandHandler("audit", handlers.audit))
    app.add_handler(CommandHandler("activity", handlers.activity))
    app.add_handler(CommandHandler("negotiate", NegotiationHandlers(services).negotiate))
    app.add_handler(CommandHandler("connect", account.connect))
    app.add_handler(CommandHandler("quiet", account.quiet))
    app.add_handler(CommandHandler("interests", InterestHandlers(services).interests))
    app.add_handler(CommandHandler("memory", account.memory))
    app.add_handler(CommandHandler("files", account.files))
    app.add_handler(CommandHandler("settings", account.settings))
    app.add_handler(CommandHandler("export", account.export))
    app.add_handler(CommandHandler("delete_me", account.delete_me))
    app.add_handler(CommandHandler("connections", account.connections))
    app.add_handler(CommandHandler("plan", PlanHandlers(services).plan))
    confidential = ConfidentialHandlers(services)
    app.add_handler(CommandHandler("confidential", confidential.confidential))
    app.add_handler(CommandHandler("unlock", confidential.unlock))
    app.add_handler(CommandHandler("lock", confidential.lock))
    app.add_handler(CommandHandler("web", WebHandlers(services).web))
    app.add_handler(MessageHandler(filters.COMMAND, handlers.unknown_command))
    app.add_handler(MessageHandler(filters.TEXT, handlers.text))
    app.add_handler(MessageHandler(filters.VOICE | filters.AUDIO | filters.VIDEO | filters.VIDEO_NOTE
                                   | filters.Document.AUDIO | filters.Document.VIDEO, handlers.voice.recording))
    app.add_handler(MessageHandler(filters.PHOTO | filters.Document.ALL, handlers.file))
    app.add_handler(MessageHandler(~filters.TEXT & ~filters.StatusUpdate.ALL, handlers.not_text))
    app.add_handler(CallbackQueryHandler(handlers.press))
    app.add_error_handler(handlers.error)
    return app
