"""Every process on its own machine: credentials, files and logins follow the user through Redis.

Each process gets its own DEPUTY_DATA_DIR, as if the bot, the connect page, the workers and
each executor ran on different machines with no shared disk. An account connected on the
connect page sends an email from the executor; a file sent to the bot is read by a worker;
a shop login made by one executor is still there when another executor, started after the
first was stopped, runs the next step; and `/delete_me` leaves nothing of the user in
Redis or in any process's data directory.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from redis import Redis
from tests_support import GOAL, email_script

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, goal_text, message_text, tool_call
from deputy.testing.stack import DeputyStack, RedisServer, wait_for
from deputy.sandbox import shop
from deputy.sandbox.account_pages import ACCOUNT, AccountDesk
from deputy.sandbox.mail import LocalMailServer
from deputy.sandbox.webapp_common import SiteServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

ANN = 7404031031
OWN_PASSWORD = "ann-own-app-password-on-machines"
RECIPE = "Grandmother's pesto: basil, pine nuts, parmesan, garlic, olive oil"


@pytest.fixture
def shop_site() -> Iterator[tuple[str, AccountDesk]]:
    app = shop.create_app()
    server = SiteServer(app)
    url = server.start()
    yield str(url), app[ACCOUNT]
    server.stop()


@pytest.fixture
def machines(
    redis_server: RedisServer, redis: Redis, model_server: ScriptedModelServer, smtp_env: dict[str, str],
    shop_site: tuple[str, AccountDesk], tmp_path: Path,
) -> Iterator[DeputyStack]:
    # The shop and Ann's own mail server run on this machine: the operator allows it, as an operator would.
    env = {"DEPUTY_EGRESS_ALLOW": "127.0.0.1/32"}
    stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env, extra_env=env,
                        separate_data_dirs=True).start()
    yield stack
    stack.stop()


def script(shop_url: str):  # type: ignore[no-untyped-def]
    def reply(request: ChatRequest) -> ModelReply:
        goal = goal_text(request.messages)
        tools = [m for m in request.messages if m.get("role") == "tool"]
        last = request.messages[-1]
        if goal.startswith("email"):
            return email_script(request)
        if goal.startswith("make a shopping list"):
            read = RECIPE in request.prompt_text()
            return tool_call("reply", text="From your file: basil, pine nuts." if read else "I saw no file.")
        if goal.startswith("sign in"):
            if not tools:
                return tool_call("submit_form", url=f"{shop_url}/account/login", action_url=f"{shop_url}/account/login",
                                 fields={"email": "demo@sandbox.local"})
            if last.get("role") == "user" and message_text(last).startswith("(Deputy) The step"):
                return tool_call("open_page", url=f"{shop_url}/account")
            signed = "Signed in as" in message_text(tools[-1])
            return tool_call("reply", text="Signed in." if signed else "Not signed in.")
        if goal.startswith("check my shop account"):
            if not tools:
                return tool_call("open_page", url=f"{shop_url}/account")
            signed = "Signed in as demo@sandbox.local" in message_text(tools[-1])
            return tool_call("reply", text="Still signed in." if signed else "Not signed in any more.")
        return tool_call("reply", text="Unexpected goal.")

    return reply


def files_of(directories: list[Path], marker: str) -> list[Path]:
    """Files under `directories` whose path or content mentions `marker`."""
    found = []
    for directory in directories:
        for path in directory.rglob("*"):
            if path.is_file() and (marker in str(path) or marker.encode() in path.read_bytes()):
                found.append(path)
    return found


def keys_of(redis: Redis, marker: str) -> list[str]:
    """Keys whose name, or whose value (strings, hashes, streams, sets, lists), mentions `marker`."""
    found = []
    for key in redis.scan_iter("*"):
        kind = redis.type(key)
        values: list[bytes] = [key]
        if kind == b"string":
            values.append(redis.get(key) or b"")
        elif kind == b"hash":
            values += [k + v for k, v in redis.hgetall(key).items()]
        elif kind == b"zset":
            values += redis.zrange(key, 0, -1)
        elif kind == b"set":
            values += list(redis.smembers(key))
        elif kind == b"list":
            values += redis.lrange(key, 0, -1)
        elif kind == b"stream":
            values += [repr(f).encode() for _, f in redis.xrange(key)]
        if any(marker.encode() in v for v in values):
            found.append(key.decode(errors="replace"))
    return found


def test_credentials_files_and_logins_follow_the_user_and_delete_me_leaves_nothing_anywhere(
    machines: DeputyStack, model_server: ScriptedModelServer, redis: Redis, shop_site: tuple[str, AccountDesk]
) -> None:
    shop_url, desk = shop_site
    model_server.responder = script(shop_url)
    user = machines.user(ANN, "Ann", asks_before_sending=True)
    data_dirs = machines.data_dirs()
    assert len({*data_dirs}) == len(data_dirs) >= 5  # emulator, bot, executor, connect page, worker

    # 1. Connected on the connect page's machine, used by the executor's.
    with LocalMailServer(username="ann@home.example", password=OWN_PASSWORD) as anns_server:
        sent = user.send("/connect email")
        link = re.search(r"http://\S+/connect/\S+", user.wait_for_bot(lambda m: "/connect/" in m["text"], after=sent)["text"])
        form = {"address": "ann@home.example", "username": "ann@home.example", "password": OWN_PASSWORD,
                "smtp_host": "127.0.0.1", "smtp_port": str(anns_server.port), "imap_host": "127.0.0.1",
                "imap_port": "993", "security": "none"}
        assert httpx.post(link.group(0), data=form, timeout=30).status_code == 200
        user.wait_for_bot(lambda m: "is connected" in m["text"], after=sent)
        sent = user.send(GOAL)
        card = user.wait_for_card(after=sent)
        user.press(card["message_id"], button="Approve")
        user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"], timeout=40)
        assert anns_server.wait_for(1)[0].mail_from == "ann@home.example", "sent with Ann's own account"

    # 2. Sent to the bot's machine, read on the worker's.
    response = httpx.post(f"{machines.chat_url}/api/users/{ANN}/files",
                          files={"file": ("pesto.txt", RECIPE.encode(), "text/plain")},
                          data={"caption": "make a shopping list from this"})
    sent = response.json()["message_id"]
    user.wait_for_bot(lambda m: m["text"] == "From your file: basil, pine nuts.", after=sent, timeout=40)

    # 3. Signed in by the first executor (a code the user types), still signed in on the second.
    sent = user.send(f"sign in to my shop account at {shop_url}/account/login as demo@sandbox.local")
    user.wait_for_bot(lambda m: m.get("photo") is not None, after=sent, timeout=60)
    reply = user.send(desk.last_code() or "no code")
    user.wait_for_bot(lambda m: m["text"] == "Signed in.", after=reply, timeout=60)
    machines.stop_process("executor")
    second = machines.start_executor()
    sent = user.send(f"check my shop account at {shop_url}/account")
    answer = user.wait_for_bot(lambda m: m["text"] in ("Still signed in.", "Not signed in any more."), after=sent,
                               timeout=90)
    assert answer["text"] == "Still signed in.", user.bot_messages(sent)
    assert second in machines.running() and "executor" not in machines.running()
    data_dirs = machines.data_dirs()
    assert files_of(data_dirs, str(ANN)) == [], "nothing of Ann is kept on any machine's disk"
    assert files_of(data_dirs, OWN_PASSWORD) == []
    assert redis.exists(f"deputy:browser:{ANN}") and redis.exists(f"deputy:vault:{ANN}:secrets")

    # 4. One /delete_me erases credentials, files and the browser's state with everything else.
    sent = user.send("/delete_me")
    warning = user.wait_for_bot(lambda m: "can't be undone" in m["text"], after=sent)
    user.press(warning["message_id"], button="Delete everything")
    user.wait_for_bot(lambda m: "is erased" in m["text"], after=warning["message_id"], timeout=40)
    try:
        wait_for(lambda: not keys_of(redis, str(ANN)), timeout=20, what="every key of Ann to be gone")
    except TimeoutError:
        raise AssertionError(keys_of(redis, str(ANN))[:20]) from None
    assert not [k for k in redis.scan_iter("deputy:upload:*")]
    assert files_of(machines.data_dirs(), str(ANN)) == []
