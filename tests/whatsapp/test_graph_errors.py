"""Graph API failures as the outbox consumer understands them: the surface retries later, or gives up with a reason."""

from __future__ import annotations

import time

import httpx
import pytest
import redis.asyncio as aioredis
from telegram import Bot
from telegram.error import BadRequest

from deputy.core.accounts.surfaces import NUMBER_KEY, default_account
from deputy.testing.stack import RedisServer
from deputy.whatsapp.graph import GraphClient
from deputy.whatsapp.request import WhatsAppRequest
from deputy.whatsapp.sender import Sender, Template
from deputy.whatsapp.store import SurfaceStore

WA = "15550008888"


async def bot_answering(redis_server: RedisServer, status: int, code: int) -> tuple[Bot, aioredis.Redis]:
    def graph(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == "Bearer the-token"
        return httpx.Response(status, json={"error": {"message": "refused", "code": code}})

    redis = aioredis.Redis.from_url(redis_server.url)
    await redis.set(NUMBER_KEY.format(default_account(WA)), WA)
    store = SurfaceStore(redis)
    await store.wrote(WA, time.time())
    graph_client = GraphClient(httpx.AsyncClient(transport=httpx.MockTransport(graph)), "http://graph.test/v21.0",
                               "1", "the-token")
    request = WhatsAppRequest(Sender(graph_client, store, Template("deputy_checkin"), time.time))
    return Bot("whatsapp:surface", request=request, get_updates_request=request), redis


@pytest.mark.parametrize(("status", "code"), [(500, 2), (429, 130429), (400, 131056)])
async def test_an_outage_or_a_rate_limit_waits_in_the_surface_not_in_the_outbox(
        redis_server: RedisServer, redis, status: int, code: int, caplog) -> None:
    bot, client = await bot_answering(redis_server, status, code)
    await bot.send_message(default_account(WA), "hello")  # no error: the outbox goes on to other users
    store = SurfaceStore(client)
    assert await store.backlogged(WA), "the message waits in the user's backlog, to be tried again"
    assert "the-token" not in caplog.text
    await client.aclose()


async def test_a_refused_message_is_not_retried(redis_server: RedisServer, redis) -> None:
    bot, client = await bot_answering(redis_server, 400, 131009)
    with pytest.raises(BadRequest):
        await bot.send_message(default_account(WA), "hello")
    await client.aclose()
