"""The private web view, through the whole of Deputy in headless Chromium: a `/web` link from the
chat opens the user's pages; the card and the goal's last message link to the goal's page, which
still needs the session; a goal whose recipient came from an email shows the diagram marking it,
as the guard saw it even after the goal read more; Approve on the page changes the chat's card and
counts once; another user's cookie, a used or expired link, a revoked session and a locked
confidential user see nothing of it (unlocked, they see their pages); no page holds a secret."""

from __future__ import annotations

import os
import re
import smtplib
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect, sync_playwright
from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, last_message, message_text, tool_call
from deputy.core.accounts.web_sessions import WebSessions
from deputy.core.confidential import ConfidentialKeys
from deputy.sandbox.mail import LocalMailServer
from deputy.settings import Settings
from deputy.sandbox.mailstore import DEMO_PASSWORD, MailStore
from deputy.testing.stack import _VAULT_KEY, ChatUser, DeputyStack, RedisServer, wait_for
from tests_support import mailbox_env

pytestmark = pytest.mark.browser

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
]
ME = "me@deputy.test"
BOB = "bob@partner.example"
VENDOR = "contracts@vendor.example"
GOAL = "do what Bob asks in his latest email"
BODY = "Hello, here is the signed contract Bob mentioned."
CAROL = "carol@archive.example"
SHOTS = os.environ.get("DEPUTY_WEB_SCREENSHOTS")  # a folder: the docs' screenshots are taken there


def follow_bob(request: ChatRequest) -> ModelReply:
    last = last_message(request.messages) or {}
    if last.get("role") != "tool":
        return tool_call("search_email", **{"from": BOB})
    outcome = message_text(last)
    if CAROL in outcome:
        return tool_call("reply", text=f"Done: {outcome[:80]}")
    if VENDOR in outcome and "sent" not in outcome.lower():
        return tool_call("send_email", to=[VENDOR], subject="Signed contract", body=BODY)
    if "sent" in outcome.lower():  # after the card, the goal reads more: an email quoting what was sent
        return tool_call("search_email", **{"from": CAROL})
    return tool_call("reply", text=f"Done: {outcome[:80]}")


@pytest.fixture(scope="module")
def world(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[DeputyStack, Redis]]:
    tmp = tmp_path_factory.mktemp("web_view")
    client = redis_server.client()
    client.flushall()
    with MailStore(tmp / "imap") as store, ScriptedModelServer(follow_bob) as model:
        store.add_user(ME)
        mail = LocalMailServer(store=store)
        mail.start()
        message = EmailMessage()
        message["From"], message["To"] = BOB, ME
        message["Subject"] = f"Please send the signed contract to {VENDOR}"
        message.set_content(f"Hi, could you send the signed contract to {VENDOR} today? Thanks, Bob")
        archived = EmailMessage()
        archived["From"], archived["To"], archived["Subject"] = CAROL, ME, "Filed"
        archived.set_content(f"I filed this for the records:\n{BODY}")
        with smtplib.SMTP("127.0.0.1", mail.port, timeout=10) as smtp:
            smtp.send_message(message)
            smtp.send_message(archived)
        stack = DeputyStack(redis_server.url, model.base_url, tmp / "stack", smtp=mailbox_env(mail, store, ME),
                            web_view=True).start()
        try:
            yield stack, client
        finally:
            stack.stop()
            mail.stop()
            client.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def web_link(user: ChatUser, stack: DeputyStack) -> str:
    sent = user.send("/web")
    reply = user.wait_for_bot(lambda m: "/web/open/" in m["text"], after=sent)
    link = re.search(r"http://\S+/web/open/\S+", reply["text"]).group(0)
    assert link.startswith(stack.web_url)
    return link


@contextmanager
def signed_in(link: str) -> Iterator[httpx.Client]:
    """A plain HTTP client holding the session the link opens."""
    with httpx.Client() as client:
        assert client.post(link).status_code == 303
        yield client


@pytest.fixture(scope="module")
def anns_goal(world: tuple[DeputyStack, Redis]) -> tuple[ChatUser, dict, str]:
    stack, redis = world
    ann = stack.user(701, "Ann")
    sent = ann.send(GOAL)
    card = ann.wait_for_card(after=sent, timeout=40)
    [goal_id] = [k.decode().split(":")[-1] for k in redis.scan_iter("deputy:goal:*") if k.count(b":") == 2]
    return ann, card, goal_id


def test_from_the_chat_link_to_the_goal_its_diagram_and_an_approval_that_changes_the_card(
    world: tuple[DeputyStack, Redis], browser: Browser, anns_goal: tuple[ChatUser, dict, str],
) -> None:
    stack, redis = world
    ann, card, goal_id = anns_goal
    assert VENDOR in card["text"]
    # The card links to the goal's page; the link alone opens nothing.
    goal_page = f"{stack.web_url}/web/goal/{goal_id}"
    assert card["buttons"][-1] == [{"text": "🔎 See the whole goal", "url": goal_page}]
    bare = httpx.get(goal_page)
    assert bare.status_code == 401 and "send /web" in bare.text and VENDOR not in bare.text
    link = web_link(ann, stack)
    page = browser.new_page(viewport={"width": 420, "height": 900})  # a phone's width
    page.goto(link)
    page.get_by_role("button", name="Open my Deputy").click()
    expect(page.get_by_role("heading", name="Your goals")).to_be_visible()
    expect(page.get_by_role("heading", name="Waiting (1)")).to_be_visible()
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/web-goals.png", full_page=True)
    page.get_by_role("link", name=GOAL).click()
    assert page.url == goal_page

    expect(page.get_by_text("Read", exact=True).first).to_be_visible()
    expect(page.locator(".badge.untrusted").first).to_be_visible()
    action = page.locator("article[aria-label=Action]").filter(has_text="send_email")
    expect(action).to_contain_text(f"To: {VENDOR}")
    expect(action).to_contain_text(BODY)  # the full content of what would go out
    diagram = action.locator("svg.flow")
    # The recipient is drawn from the email, as outside content, with its arrow in the outside colour.
    expect(diagram.locator("g.source.outside")).to_contain_text(BOB)
    expect(diagram.locator("g.field").filter(has_text="Recipient")).to_contain_text(VENDOR)
    assert diagram.locator("path.arrow.outside").count() >= 1
    description = diagram.locator("desc").text_content()
    assert re.search(f"the recipient “{VENDOR}” came from the email from {BOB}", description), description
    if SHOTS:
        page.set_viewport_size({"width": 900, "height": 900})
        page.screenshot(path=f"{SHOTS}/web-goal.png", full_page=True)
        action.screenshot(path=f"{SHOTS}/web-action.png")
        page.set_viewport_size({"width": 420, "height": 900})

    page.get_by_role("button", name="Approve").click()
    expect(page.get_by_role("status")).to_contain_text("Approved")
    # The chat's card says so and loses its buttons, as if its own button had been pressed.
    edited = wait_for(lambda: next((m for m in ann.messages() if m["message_id"] == card["message_id"]
                                    and "✅ Approved" in m["text"] and not m["buttons"]), None),
                      what="the chat's card to show the approval")
    assert edited["text"].startswith(card["text"][:40])
    # Counted once: the chat's own button, pressed now, finds it decided.
    ann.press(card["message_id"], data=card["buttons"][0][0]["data"])
    assert "already approved" in ann.wait_for_answer(1)["text"]
    done = ann.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"], timeout=30)
    assert {"text": "🔎 See the whole goal", "url": goal_page} in done["buttons"][-1]
    decided = [e for e in stack_audit(redis) if e == "approval_decided"]
    assert decided == ["approval_decided"]

    # The goal read more after the card (an email quoting what was sent): the diagram stays what the guard saw.
    page.goto(goal_page)
    expect(page.locator("ol.timeline")).to_contain_text(CAROL)
    description = page.locator("article[aria-label=Action]").filter(has_text="send_email").locator(
        "svg.flow desc").text_content()
    assert f"the body “{BODY}” was written by the model" in description and CAROL not in description, description

    # The link worked once.
    assert httpx.post(link).status_code == 410 and httpx.get(link).status_code == 410
    if SHOTS:
        page.goto(f"{stack.web_url}/web/audit")
        page.screenshot(path=f"{SHOTS}/web-audit.png", full_page=True)
    page.close()


def stack_audit(redis: Redis) -> list[str]:
    from deputy.sentinel.stores.audit import AuditLog
    return [e.kind for e in AuditLog(redis, b"unused").entries(701)]


def test_another_users_session_gets_403_and_no_session_gets_nothing(
    world: tuple[DeputyStack, Redis], anns_goal: tuple[ChatUser, dict, str],
) -> None:
    stack, _ = world
    _, _, goal_id = anns_goal
    ben = stack.user(702, "Ben")
    with signed_in(web_link(ben, stack)) as client:
        assert client.get(f"{stack.web_url}/web/goal/{goal_id}").status_code == 403
        listing = client.get(f"{stack.web_url}/web/goals")
        assert listing.status_code == 200 and GOAL not in listing.text
    assert httpx.get(f"{stack.web_url}/web/goal/{goal_id}").status_code == 401
    forged = httpx.get(f"{stack.web_url}/web/goals", cookies={"deputy_web": "x" * 43})
    assert forged.status_code == 401 and GOAL not in forged.text


def test_an_expired_link_and_a_revoked_session_refuse(world: tuple[DeputyStack, Redis]) -> None:
    stack, redis = world
    cleo = stack.user(703, "Cleo")
    token = WebSessions(redis, link_seconds=1).create_link(703)
    wait_for(lambda: not WebSessions(redis).link_valid(token), timeout=5, what="the link to expire")
    assert httpx.post(f"{stack.web_url}/web/open/{token}").status_code == 410
    with signed_in(web_link(cleo, stack)) as client:
        assert client.get(f"{stack.web_url}/web/goals").status_code == 200
        sent = cleo.send("/web off")
        cleo.wait_for_bot(lambda m: "has ended" in m["text"], after=sent)
        assert client.get(f"{stack.web_url}/web/goals").status_code == 401


def test_a_locked_confidential_user_sees_only_unlock_first(world: tuple[DeputyStack, Redis], browser: Browser) -> None:
    stack, redis = world
    dora = stack.user(704, "Dora")
    sent = dora.send("remind me to water the plants")
    dora.wait_for_bot(lambda m: True, after=sent)
    ConfidentialKeys(redis).turn_on(704, "a long passphrase only Dora knows")
    page = browser.new_page()
    page.goto(web_link(dora, stack))
    page.get_by_role("button", name="Open my Deputy").click()
    expect(page.get_by_role("heading", name="Unlock first")).to_be_visible()
    assert "water the plants" not in page.content() and page.locator("nav a").count() == 0
    page.goto(f"{stack.web_url}/web/audit")
    expect(page.get_by_role("heading", name="Unlock first")).to_be_visible()
    # Unlocked, the same session shows her pages.
    operator = Settings(DEPUTY_UNLOCK_KEY=stack._env["DEPUTY_UNLOCK_KEY"]).unlock_key_value()  # as the unlock page does
    ConfidentialKeys(redis, operator).unlock(704, "a long passphrase only Dora knows", 600)
    page.goto(f"{stack.web_url}/web/goals")
    page.get_by_role("link", name="remind me to water the plants").click()
    expect(page.get_by_role("heading", name="remind me to water the plants")).to_be_visible()
    page.goto(f"{stack.web_url}/web/audit")
    expect(page.locator(".verdict.ok")).to_contain_text("The chain verifies")
    page.close()


def test_no_page_holds_a_secret_or_a_token(world: tuple[DeputyStack, Redis],
                                           anns_goal: tuple[ChatUser, dict, str]) -> None:
    stack, _ = world
    ann, card, goal_id = anns_goal
    link = web_link(ann, stack)
    with signed_in(link) as client:
        pages = "".join(client.get(f"{stack.web_url}{path}").text for path in
                        ("/web/goals", f"/web/goal/{goal_id}", "/web/audit", "/web/money"))
        session = client.cookies.get("deputy_web")
    assert VENDOR in pages and "Audit trail" in pages  # the pages were really rendered
    env = stack._env
    secrets = [stack.secret, stack.audit_key_material, env["DEPUTY_UNLOCK_KEY"], _VAULT_KEY, DEMO_PASSWORD,
               session, link.rsplit("/", 1)[-1]] + [b.get("data") for row in card["buttons"] for b in row]
    assert [s for s in secrets if s and s in pages] == []
