"""Entry point for `deputy gateway`: settings become the gateway's objects here, and only here."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import signal
import socket
from urllib.parse import urlparse

import aiohttp

from deputy.agent.model.async_model import HttpChatModel
from deputy.agent.model.text_tools import TextToolsOptions
from deputy.agent.model.text_tools_model import AsyncTextToolsChatModel
from deputy.runtime.health import LoopProbe, model_check, redis_check, serve_health
from deputy.core.infrastructure.redis_clients import async_client, sync_client
from deputy.settings import Settings
from deputy.queue.dispatch import RQDispatch
from deputy.gateway.gateway import GatewayConfig, ModelGateway
from deputy.queue.metrics_queues import queue_collector

log = logging.getLogger(__name__)

OPENAI_BASE_URL = "https://api.openai.com/v1"


def serve(settings: Settings) -> None:
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set: point it at your Redis, e.g. redis://127.0.0.1:6379/0")
    asyncio.run(_serve(settings))


async def _serve(settings: Settings) -> None:
    assert settings.redis_url is not None
    base_url = settings.openai_base_url or OPENAI_BASE_URL
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    # The provider is named by its host only: the URL may carry credentials.
    provider = urlparse(base_url).hostname or "model"
    if urlparse(base_url).port:
        provider = f"{provider}:{urlparse(base_url).port}"
    slots = settings.model_concurrency or settings.gateway_concurrency
    config = GatewayConfig(provider=provider, concurrency=slots, held=max(settings.gateway_concurrency, slots),
                           requests_per_minute=settings.model_requests_per_minute, model=settings.model)
    dispatch = RQDispatch(sync_client(settings.redis_url))
    # Hundreds of calls share a few connections: a handler waits for a free one rather than failing.
    redis = async_client(settings.redis_url, max_connections=32, timeout=None)
    consumer = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
    # No more connections than slots: a call never waits inside aiohttp with its timeout running.
    connector = aiohttp.TCPConnector(limit=slots, limit_per_host=slots)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with aiohttp.ClientSession(connector=connector) as session:
        # Local models write tool calls as text, and small ones choose better from few tools (deputy.agent.model.text_tools).
        model = AsyncTextToolsChatModel(
            HttpChatModel(session, base_url, settings.model, key, settings.model_timeout, stream=settings.model_stream,
                          constrain_calls=settings.constrain_tool_calls),
            TextToolsOptions(max_tools=settings.max_tools, force_tool_call=settings.force_tool_call,
                                                      decide_first=settings.decide_first),
        )
        gateway = ModelGateway(redis, model, dispatch.step, config, consumer)
        serve_health(settings.health_port, settings.health_host, LoopProbe.running(),
                     {"redis": redis_check(settings.redis_url), "model": model_check(base_url, key)},
                     [queue_collector(settings.redis_url)])
        log.info("model gateway %s: up to %d model calls in flight to %s, up to %d held", consumer,
                 config.concurrency, provider, config.held)
        await gateway.run(stop)
    await redis.aclose()
