"""Undo from the web view, where the chat offers it: a message still in its send window is stopped
once, whichever of the page or the chat is pressed first, and only by its owner with their page's form."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient, TestServer
from redis import Redis

from deputy.agent.goals import Goal, GoalStore
from deputy.agent.origins import user_message
from deputy.bot.services import BotServices
from deputy.core.accounts.web_sessions import WebSessions, form_token
from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.core.records.send_window import HeldSend, SendState
from deputy.core.records.send_window_store import SendWindowStore
from deputy.sentinel.stores.action_store import ActionStore
from deputy.webview import COOKIE, create_app

ANN, BEN = 11, 12


def seed(redis: Redis, services: BotServices) -> Action:
    now = time.time()
    goal = Goal(id="g_undo", user_id=ANN, chat_id=ANN, text="tell bob@example.org I'm late", created_at=now,
                updated_at=now, messages=[user_message("tell bob@example.org I'm late"), {
                    "role": "assistant", "content": None, "origin": "model", "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "send_email", "arguments": "{}"}}]}])
    GoalStore(redis).save(goal)
    action = Action(id="a_undo", goal_id=goal.id, user_id=ANN, chat_id=ANN, connector="email",
                    operation="send_email", effect=EffectClass.communicate, targets=["bob@example.org"],
                    arguments={"to": ["bob@example.org"], "subject": "Late", "body": "I'm late"},
                    tool_call_id="c1", created_at=now)
    ActionStore(redis).submit(action)
    services.audit.append(ANN, "review", now, action_id=action.id, operation="email.send_email",
                          targets=action.targets, verdict="allow", reasons=["you named bob@example.org"])
    SendWindowStore(redis).create(HeldSend(action_id=action.id, goal_id=goal.id, user_id=ANN, chat_id=ANN,
                                           due=now + 60))
    return action


def session(redis: Redis, user_id: int) -> str:
    sessions = WebSessions(redis)
    opened = sessions.open(sessions.create_link(user_id))
    assert opened is not None
    return opened[1]


@pytest.fixture
async def web(redis: Redis) -> AsyncIterator[tuple[TestClient, BotServices]]:
    services = BotServices.create(redis, "web-test-secret", None)
    async with TestClient(TestServer(create_app(services, "web-test-secret"))) as client:
        yield client, services


async def test_undo_on_the_page_stops_the_waiting_message_once(web: tuple[TestClient, BotServices],
                                                              redis: Redis) -> None:
    client, services = web
    action = seed(redis, services)
    ann = {COOKIE: session(redis, ANN)}
    goal_page = await client.get("/web/goal/g_undo", cookies=ann)
    text = await goal_page.text()
    assert goal_page.status == 200 and f"action='/web/undo/{action.id}'" in text
    form = re.search(r"name='form' value='([0-9a-f]+)'", text).group(1)

    ben_session = session(redis, BEN)
    ben = {COOKIE: ben_session}
    assert (await client.post(f"/web/undo/{action.id}", data={"form": form_token(ben_session, "web-test-secret")},
                              cookies=ben)).status == 403, "Ben's own page's form does not undo Ann's message"
    assert (await client.post(f"/web/undo/{action.id}", data={"form": form}, cookies=ben)).status == 403
    assert (await client.post(f"/web/undo/{action.id}", data={"form": "0" * 32}, cookies=ann)).status == 403
    assert SendWindowStore(redis).get(action.id).state is SendState.waiting, "nothing changed yet"

    done = await client.post(f"/web/undo/{action.id}", data={"form": form}, cookies=ann)
    assert done.status == 200 and "Undone. Nothing was sent." in await done.text()
    assert SendWindowStore(redis).get(action.id).state is SendState.undone
    again = await client.post(f"/web/undo/{action.id}", data={"form": form}, cookies=ann)
    assert "already undone" in await again.text()
    assert [e.kind for e in services.audit.entries(ANN)].count("send_window_undo") == 1
    after = await (await client.get("/web/goal/g_undo", cookies=ann)).text()
    assert "/web/undo/" not in after, "no Undo is offered once it is undone"
