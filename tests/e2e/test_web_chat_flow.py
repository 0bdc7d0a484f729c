"""The web connector from the chat, with real processes, Chromium and the sandbox shop.

A screenshot reaches the chat as a photo (the model only hears that it was sent); a sign-in
that texts a one-time code is handed to the user with a picture of the page, their reply is
taken out of the chat and typed in by the executor, and the goal carries on, without the code
ever reaching the model, the transcript, the audit trail or a log; with the executor starting each
browser's worker, and with the browser host (`deputy browser-host`) starting them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, message_text, tool_call
from deputy.apps.local import api_environment
from deputy.testing.stack import DeputyStack, wait_for
from deputy.sandbox import restaurants, search, shop, tickets
from deputy.sandbox.account_pages import ACCOUNT, AccountDesk
from deputy.sandbox.services import SandboxEndpoints
from deputy.sandbox.webapp_common import SiteServer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def world() -> Iterator[tuple[SandboxEndpoints, AccountDesk]]:
    """The sandbox sites and the sandbox search, as `deputy run` starts them (mail and calendar aside)."""
    shop_app = shop.create_app()
    servers = [SiteServer(restaurants.create_app()), SiteServer(tickets.create_app()), SiteServer(shop_app)]
    urls = [server.start() for server in servers]
    engine = SiteServer(search.create_app(dict(zip(("restaurants", "tickets", "shop"), urls))))
    endpoints = SandboxEndpoints(smtp_port=1, imap_port=1, restaurants_url=urls[0], tickets_url=urls[1],
                                 shop_url=urls[2], search_url=engine.start())
    yield endpoints, shop_app[ACCOUNT]
    for server in [engine, *servers]:
        server.stop()


@pytest.fixture(scope="module")
def shop_site(world: tuple[SandboxEndpoints, AccountDesk]) -> tuple[str, AccountDesk]:
    return str(world[0].shop_url), world[1]


@pytest.fixture
def stack_env(world: tuple[SandboxEndpoints, AccountDesk]) -> dict[str, str]:
    # The same settings `deputy run` gives: the sites as APIs, the sandbox search as the web search.
    return api_environment(world[0])


@pytest.fixture(params=["executor-starts-the-worker", "browser-host-service"])
def browsing_stack(request, redis_server, redis, model_server, smtp_env, stack_env, tmp_path):  # type: ignore[no-untyped-def]
    """The whole of Deputy, each browser's worker started by the executor, or by the browser host."""
    if request.param == "executor-starts-the-worker":
        yield request.getfixturevalue("stack")
        return
    deputy = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env,
                         extra_env=stack_env, browser_host=True).start()
    yield deputy
    deputy.stop()


def _everything_the_model_saw(model_server) -> str:  # type: ignore[no-untyped-def]
    return json.dumps([r.model_dump(mode="json") for r in model_server.requests])


def test_a_screenshot_arrives_as_a_photo_and_the_model_only_hears_so(
    stack: DeputyStack, model_server, shop_site: tuple[str, AccountDesk]  # type: ignore[no-untyped-def]
) -> None:
    url, _ = shop_site

    def script(request: ChatRequest) -> ModelReply:
        tools = [m for m in request.messages if m.get("role") == "tool"]
        if not tools:
            return tool_call("screenshot", url=f"{url}/")
        return tool_call("reply", text="Here is the shop's front page.")

    model_server.responder = script
    user = stack.user(71)
    sent = user.send(f"show me what {url}/ looks like")
    photo = user.wait_for_bot(lambda m: m.get("photo") is not None, after=sent, timeout=60)
    assert photo["text"] == f"Screenshot of {url}/"
    assert photo["photo"]["width"] == 1280 and photo["photo"]["height"] == 900
    image = httpx.get(stack.chat_url + photo["photo"]["url"])
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG")
    user.wait_for_bot(lambda m: m["text"] == "Here is the shop's front page.", after=sent, timeout=40)
    seen = _everything_the_model_saw(model_server)
    assert "sent to the user" in seen and "iVBOR" not in seen  # no image (base64 PNG) ever reaches the model


def test_a_code_sign_in_is_finished_by_the_user_without_the_code_reaching_the_model(
    browsing_stack: DeputyStack, model_server, redis, shop_site: tuple[str, AccountDesk]  # type: ignore[no-untyped-def]
) -> None:
    stack, url, desk = browsing_stack, *shop_site

    def script(request: ChatRequest) -> ModelReply:
        last = request.messages[-1]
        tools = [m for m in request.messages if m.get("role") == "tool"]
        if not tools:
            return tool_call("submit_form", url=f"{url}/account/login", action_url=f"{url}/account/login",
                             fields={"email": "demo@sandbox.local"})
        if last.get("role") == "user" and message_text(last).startswith("(Deputy) The step"):
            return tool_call("open_page", url=f"{url}/account")
        if "Signed in as" in message_text(tools[-1]):
            return tool_call("reply", text="You're signed in; there are no open orders.")
        return tool_call("reply", text="Something unexpected happened.")

    model_server.responder = script
    user = stack.user(72)
    sent = user.send(f"sign in to my shop account at {url}/account/login as demo@sandbox.local and check my orders")

    # The question comes with a picture of the page and says how to answer.
    asked = user.wait_for_bot(lambda m: m.get("photo") is not None, after=sent, timeout=60)
    assert "asking for a verification code" in asked["text"] and f"{url}/account/verify" in asked["text"]
    assert "Reply with just the code" in asked["text"]
    assert httpx.get(stack.chat_url + asked["photo"]["url"]).content.startswith(b"\x89PNG")
    requests_before = len(model_server.requests)

    code = desk.last_code()  # what the person reads on their phone
    assert code is not None
    reply = user.send(code)
    user.wait_for_bot(lambda m: m["text"].startswith("Got it. I deleted your message"), after=reply, timeout=20)
    user.wait_for_bot(lambda m: m["text"].startswith("Done: 127.0.0.1 accepted it"), after=reply, timeout=40)
    user.wait_for_bot(lambda m: m["text"] == "You're signed in; there are no open orders.", after=reply, timeout=40)
    assert reply not in [m["message_id"] for m in user.messages()]  # the code is gone from the chat

    # The model was not called while the page waited, and never saw the code.
    assert len(model_server.requests) > requests_before
    assert code not in _everything_the_model_saw(model_server)
    entries = str(redis.xrange("deputy:audit:72"))
    assert "handoff_completed" in entries and code not in entries
    assert code not in stack.logs()
    assert not [k for k in redis.scan_iter("deputy:user:72:handoff:code:*")]  # the one-time key was used up
    if stack.browser_host_dir is not None:
        assert "started a browser worker" in stack.log("browser-host")  # the host started the browsers


def test_a_reply_in_words_goes_to_the_goal_and_a_wrong_code_is_asked_for_again(
    stack: DeputyStack, model_server, shop_site: tuple[str, AccountDesk]  # type: ignore[no-untyped-def]
) -> None:
    url, desk = shop_site

    def script(request: ChatRequest) -> ModelReply:
        last = request.messages[-1]
        tools = [m for m in request.messages if m.get("role") == "tool"]
        if not tools:
            return tool_call("submit_form", url=f"{url}/account/login", action_url=f"{url}/account/login",
                             fields={"email": "demo@sandbox.local"})
        if last.get("role") == "user":
            return tool_call("reply", text=f"Understood: {message_text(last)}")
        return tool_call("reply", text="Something unexpected happened.")

    model_server.responder = script
    user = stack.user(73)
    sent = user.send(f"sign in to my shop account at {url}/account/login as demo@sandbox.local")
    first = user.wait_for_bot(lambda m: m.get("photo") is not None, after=sent, timeout=60)

    wrong = "000000" if desk.last_code() != "000000" else "111111"
    reply = user.send(wrong)
    again = user.wait_for_bot(lambda m: m.get("photo") is not None, after=reply, timeout=40)
    assert again["text"].startswith("The page didn't accept that.") and again["message_id"] != first["message_id"]

    words = user.send("never mind, skip the sign-in")
    user.wait_for_bot(lambda m: m["text"] == "Understood: never mind, skip the sign-in", after=words, timeout=40)
    wait_for(lambda: wrong not in _everything_the_model_saw(model_server), what="a clean transcript")


def test_web_search_defaults_to_the_sandbox_search_and_its_result_opens(
    stack: DeputyStack, model_server, world: tuple[SandboxEndpoints, AccountDesk]  # type: ignore[no-untyped-def]
) -> None:
    restaurants_url = str(world[0].restaurants_url)

    def script(request: ChatRequest) -> ModelReply:
        tools = [m for m in request.messages if m.get("role") == "tool"]
        if not tools:
            return tool_call("search_web", query="Italian restaurant Old Town")
        if len(tools) == 1:
            found = re.search(r"http://127\.0\.0\.1:\d+/restaurants/[a-z-]+", message_text(tools[0]))
            return tool_call("open_page", url=found.group(0) if found else f"{restaurants_url}/nothing-found")
        title = re.search(r"Title: (.+)", message_text(tools[-1]))
        return tool_call("reply", text="Found: " + (title.group(1) if title else "nothing"))

    model_server.responder = script
    user = stack.user(74)
    sent = user.send("find me an Italian restaurant in the Old Town")
    answer = user.wait_for_bot(lambda m: m["text"].startswith("Found: "), after=sent, timeout=60)
    assert answer["text"] == "Found: Sandbox Tables · Trattoria Roma"
    seen = _everything_the_model_saw(model_server)
    assert f"{restaurants_url}/restaurants/" in seen


def test_a_captcha_is_answered_by_the_user_from_its_picture(
    stack: DeputyStack, model_server, shop_site: tuple[str, AccountDesk]  # type: ignore[no-untyped-def]
) -> None:
    url, desk = shop_site

    def script(request: ChatRequest) -> ModelReply:
        last = request.messages[-1]
        tools = [m for m in request.messages if m.get("role") == "tool"]
        if not tools or (last.get("role") == "user" and message_text(last).startswith("(Deputy) The step")):
            return tool_call("open_page", url=f"{url}/deals")
        title = re.search(r"Title: (.+)", message_text(tools[-1]))
        return tool_call("reply", text="Deals page: " + (title.group(1) if title else "not reached"))

    model_server.responder = script
    user = stack.user(75)
    sent = user.send(f"what deals does {url}/deals have today?")
    asked = user.wait_for_bot(lambda m: m.get("photo") is not None, after=sent, timeout=60)
    assert "wants to check that a person is visiting" in asked["text"] and f"{url}/human-check" in asked["text"]
    answer = list(desk.challenges.values())[-1]  # the characters the person reads in the picture
    reply = user.send(answer)
    user.wait_for_bot(lambda m: m["text"].startswith("Done: 127.0.0.1 accepted it"), after=reply, timeout=40)
    user.wait_for_bot(lambda m: m["text"] == "Deals page: Sandbox Shop · Today's deals", after=reply, timeout=40)
    assert answer not in _everything_the_model_saw(model_server)
