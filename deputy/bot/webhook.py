"""Webhook mode: the bot as one of many replicas behind a load balancer.

python-telegram-bot's own webhook server answers Telegram 200 *before* the update is
handled, so a replica that dies right after the 200 loses the update. This small aiohttp
server answers only once the update was handled (or was handled before):

1. the ``X-Telegram-Bot-Api-Secret-Token`` header must match (compared in constant time),
   else 403: only Telegram knows the secret, given to it with ``setWebhook``;
2. the update is claimed in Redis (:mod:`deputy.bot.update_claims`): 200 at once if it was
   handled before, 503 if another replica is handling it right now;
3. it runs through the application (the same handlers and per-chat order as long polling);
4. it is recorded done, and only then answered 200; behind Redis Sentinel, only once a replica
   has the handling too (:mod:`deputy.queue.replication`), so a promotion cannot lose what
   Telegram was told was done: if the primary dies first, the answer is 503 and Telegram retries.

Telegram sends a chat's next update only after the previous one was answered, so one
person's messages stay in order even when consecutive ones reach different replicas.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import os
import secrets
import signal
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import redis.asyncio as aioredis
from aiohttp import web
from telegram import Bot, Update
from telegram.ext import Application

from deputy.bot.durable_polling import ReceivedQueue
from deputy.bot.update_claims import LEASE_MS, UpdateClaims, Verdict, delivered, delivering, update_seed
from deputy.core.infrastructure.redis_clients import async_client
from deputy.queue.replication import async_replica_confirmation

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
_CONFIG_KEY = "deputy:webhook:{}"  # a fingerprint of what setWebhook was last given, per bot


@dataclass(frozen=True)
class WebhookConfig:
    url: str  # the public address Telegram POSTs to (the load balancer's)
    host: str  # where this replica listens
    port: int
    secret: str = field(repr=False)  # never in logs or tracebacks
    max_connections: int = 40

    @property
    def path(self) -> str:
        """The replica serves the public URL's path (the load balancer forwards it unchanged)."""
        return urlsplit(self.url).path or "/"

    def fingerprint(self) -> str:
        """Changes when any setWebhook argument does; reveals nothing about the secret."""
        what = f"{self.url}|{self.max_connections}|{','.join(Update.ALL_TYPES)}"
        return hmac.new(self.secret.encode(), b"webhook settings|" + what.encode(), hashlib.sha256).hexdigest()


TELEGRAM_WEBHOOK_PORTS = (443, 80, 88, 8443)
"""The only ports Telegram posts updates to (over HTTPS)."""


def url_problem(url: str, allow_http: bool = False) -> str | None:
    """What Telegram would refuse in a webhook URL (None if it takes it); `allow_http` for the local emulator."""
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return "must be the public https:// address Telegram posts updates to"
    if allow_http:
        return None
    if parts.scheme != "https":
        return ("must be https:// (Telegram posts updates only over HTTPS; for the local emulator set "
                "DEPUTY_WEBHOOK_ALLOW_HTTP=on)")
    try:
        port = parts.port or 443
    except ValueError:
        return "has a port that is not a number"
    if port not in TELEGRAM_WEBHOOK_PORTS:
        return (f"uses port {port}; Telegram posts only to ports 443, 80, 88 or 8443 "
                "(let the load balancer listen on one of them and forward to DEPUTY_WEBHOOK_LISTEN)")
    return None


def parse_listen(listen: str) -> tuple[str, int]:
    """``host:port`` (``[::]:8443`` for IPv6) into its parts."""
    host, _, port = listen.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"expected host:port, got {listen!r}")
    return host.strip("[]"), int(port)


class WebhookReceiver:
    """The aiohttp handlers of one replica."""

    def __init__(self, application: Application, claims: UpdateClaims, secret: str,
                 replicated: Callable[[], Awaitable[bool]] | None = None) -> None:
        """`replicated`: behind Sentinel, waits until a replica has what the handling wrote."""
        self._app = application
        self._claims = claims
        self._replicated = replicated
        self._secret = secret.encode()
        self._node = f"{socket.gethostname()}-{os.getpid()}"

    async def update(self, request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, self._secret):
            return web.Response(status=403, text="wrong secret token")
        try:
            data = await request.json()
            update_id = int(data["update_id"])
        except (ValueError, KeyError, TypeError):
            return web.Response(status=400, text="not a Telegram update")
        owner = f"{self._node}-{secrets.token_hex(6)}"
        try:
            verdict, delivery = await self._claims.claim(update_id, owner, update_seed(self._app.bot.id, data))
        except aioredis.RedisError as exc:
            log.warning("could not claim update %s (%s); Telegram will send it again", update_id, exc)
            return web.Response(status=503, headers={"Retry-After": "1"})
        if verdict is Verdict.done:
            return web.Response(text="ok (handled before)")
        if verdict is Verdict.busy or delivery is None:
            return web.Response(status=503, headers={"Retry-After": "1"}, text="being handled by another replica")
        keeping = asyncio.create_task(self._claims.keep(update_id, owner))
        token = delivering(delivery)
        try:
            update = Update.de_json(data, self._app.bot)
            await self._app.update_processor.process_update(update, self._app.process_update(update))
        except Exception:
            # Handler errors are the application's error handler's business (the user is told);
            # this is a failure around them: give the update back so the retry can take it.
            log.exception("could not handle update %s", update_id)
            await self._claims.release(update_id, owner)
            return web.Response(status=500)
        finally:
            delivered(token)
            keeping.cancel()
        try:
            await self._claims.done(update_id)
        except aioredis.RedisError as exc:  # handled all the same: a retry would only repeat it
            log.warning("could not record update %s as handled: %s", update_id, exc)
            return web.Response(text="ok")
        if self._replicated is not None:
            try:
                await self._replicated()  # False (no replica answered): as without one, answered all the same
            except aioredis.RedisError as exc:
                # The primary went away before its replica was known to have the handling: a promotion may
                # have lost it, so Telegram sends the update again and the retry finds it done or does it.
                log.warning("could not confirm update %s's handling reached a replica (%s); asking for a retry",
                            update_id, exc)
                return web.Response(status=503, headers={"Retry-After": "1"})
        return web.Response(text="ok")

    async def healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok" if self._app.running else "stopping", status=200 if self._app.running else 503)


def build_server(application: Application, claims: UpdateClaims, config: WebhookConfig,
                 replicated: Callable[[], Awaitable[bool]] | None = None) -> web.Application:
    receiver = WebhookReceiver(application, claims, config.secret, replicated)
    server = web.Application()
    server.router.add_post(config.path, receiver.update)
    server.router.add_get("/healthz", receiver.healthz)
    return server


async def ensure_webhook(bot: Bot, redis: aioredis.Redis, config: WebhookConfig) -> bool:
    """Point Telegram at the webhook unless it already is (every replica may call this: same values)."""
    key, fingerprint = _CONFIG_KEY.format(bot.id), config.fingerprint()
    info = await bot.get_webhook_info()
    if info.url == config.url and (await redis.get(key) or b"").decode() == fingerprint:
        return False
    await bot.set_webhook(config.url, secret_token=config.secret, max_connections=config.max_connections,
                          allowed_updates=Update.ALL_TYPES, drop_pending_updates=False)
    await redis.set(key, fingerprint)
    log.info("webhook set to %s", config.url)
    return True


class WebhookReplica:
    """One replica: the application started, its webhook server listening, the webhook set."""

    def __init__(self, application: Application, config: WebhookConfig, redis: aioredis.Redis,
                 lease_ms: int = LEASE_MS) -> None:
        self.application = application
        self._config = config
        self._redis = redis
        self._lease_ms = lease_ms
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = self.application
        await app.initialize()
        if app.post_init:
            await app.post_init(app)
        if isinstance(app.update_queue, ReceivedQueue):
            # What a long-polling bot received and never handled before the switch to webhooks. No
            # poller lease here: nothing polls (Telegram refuses getUpdates while a webhook is set),
            # and each update is claimed per update instead.
            await app.update_queue.replay(app)
        await app.start()
        claims = UpdateClaims(self._redis, app.bot.id, self._lease_ms)
        server = build_server(app, claims, self._config, async_replica_confirmation(self._redis))
        self._runner = web.AppRunner(server, access_log=None, shutdown_timeout=10.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, self._config.host, self._config.port).start()
        log.info("webhook replica listening on %s:%s%s", self._config.host, self._config.port, self._config.path)
        await ensure_webhook(app.bot, self._redis, self._config)

    async def stop(self) -> None:
        """Stop taking updates (those in hand are finished first), then the application.

        The webhook is never deleted on the way out: the other replicas keep serving it.
        """
        if self._runner is not None:
            await self._runner.cleanup()
        app = self.application
        if app.running:
            await app.stop()
            if app.post_stop:
                await app.post_stop(app)
        await app.shutdown()
        if app.post_shutdown:
            await app.post_shutdown(app)


async def serve_webhook(application: Application, config: WebhookConfig, redis_url: str) -> None:
    """Run one replica until SIGTERM or SIGINT (`Application.run_webhook`, with our server)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    redis = async_client(redis_url)
    replica = WebhookReplica(application, config, redis)
    try:
        await replica.start()
        await stop.wait()
    finally:
        await replica.stop()
        await redis.aclose()
