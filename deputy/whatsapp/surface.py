"""The WhatsApp surface as one process: the bot's Application on a WhatsApp transport, its
outbox consumer for WhatsApp users, and the webhook server Meta delivers to."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx
from aiohttp import web

from deputy.bot.app import COMMANDS, build_application
from deputy.bot.services import BotServices
from deputy.bot.update_claims import UpdateClaims
from deputy.core.infrastructure.redis_clients import async_client
from deputy.whatsapp.graph import GraphClient
from deputy.whatsapp.request import WhatsAppRequest
from deputy.whatsapp.sender import Sender, Template
from deputy.whatsapp.store import SurfaceStore
from deputy.whatsapp.webhook import WhatsAppWebhook, build_server

log = logging.getLogger(__name__)

TOKEN = "whatsapp:surface"
"""PTB wants a token; this transport never sends it anywhere."""
CLAIMS_BOT = "wa"


@dataclass(frozen=True)
class WhatsAppConfig:
    token: str = field(repr=False)
    phone_number_id: str
    app_secret: str = field(repr=False)
    verify_token: str = field(repr=False)
    api_base: str
    host: str
    port: int
    path: str = "/whatsapp"
    template: Template = Template("deputy_checkin")


BACKLOG_PERIOD = 1.0
"""Seconds between looks for messages whose rate-limit pause is over."""


async def send_backlogs(sender: Sender) -> None:
    """Send what waited out a rate limit as its pause ends, forever; survives outages."""
    while True:
        try:
            await sender.send_due()
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - Redis or Graph down: the backlog waits in Redis
            log.exception("whatsapp: could not send the waiting messages; trying again shortly")
        await asyncio.sleep(BACKLOG_PERIOD)


def webhook_path(url_or_path: str) -> str:
    return urlsplit(url_or_path).path or "/whatsapp"


async def serve(services: BotServices, config: WhatsAppConfig, redis_url: str, stop: asyncio.Event,
                started: asyncio.Event | None = None) -> None:
    """Serve until `stop` is set."""
    http = httpx.AsyncClient(timeout=30)
    redis = async_client(redis_url)
    graph = GraphClient(http, config.api_base, config.phone_number_id, config.token)
    sender = Sender(graph, SurfaceStore(redis), config.template, time.time)
    request = WhatsAppRequest(sender)
    app = build_application(TOKEN, services, redis_url, rate_limit=False, request=request, surface="whatsapp")
    await app.initialize()
    if app.post_init:
        await app.post_init(app)
    await app.start()
    commands = [(c.command, c.description) for c in COMMANDS]
    webhook = WhatsAppWebhook(app, UpdateClaims(redis, CLAIMS_BOT), sender,
                              config.app_secret, config.verify_token, commands, request)
    runner = web.AppRunner(build_server(webhook, config.path), access_log=None, shutdown_timeout=10.0)
    await runner.setup()
    # What the webhook recorded is handled here, after the answer; what waits out a rate limit goes here.
    background = [asyncio.create_task(webhook.worker.run()), asyncio.create_task(send_backlogs(sender))]
    try:
        await web.TCPSite(runner, config.host, config.port).start()
        log.info("WhatsApp webhook listening on %s:%s%s", config.host, config.port, config.path)
        if started is not None:
            started.set()
        await stop.wait()
    finally:
        await runner.cleanup()
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        await webhook.worker.stop()
        if app.running:
            await app.stop()
            if app.post_stop:
                await app.post_stop(app)
        await app.shutdown()
        await http.aclose()
        await redis.aclose()
