"""/export gives a user everything stored about them; /delete_me leaves no trace of them."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, goal_text, tool_call
from deputy.testing.stack import DeputyStack, wait_for
from tests_support import email_script, everything_in_redis

ANN, BOB = 7404031017, 7404031029
ANN_PASSWORD = "anns-app-password-xyz"


@pytest.fixture
def stack_env() -> dict[str, str]:
    # Ann's own mail server is on this machine: the operator allows it, as an operator would.
    return {"DEPUTY_EGRESS_ALLOW": "127.0.0.1/32"}


def script(request: ChatRequest) -> ModelReply:
    goal = goal_text(request.messages)
    if goal.startswith("remember"):
        if request.messages[-1].get("role") == "tool":
            return tool_call("reply", text="Noted.")
        return tool_call("remember", text=goal.removeprefix("remember ").strip(), kind="fact")
    return email_script(request)


def use_deputy(stack: DeputyStack, user_id: int, fact: str) -> None:
    user = stack.user(user_id, asks_before_sending=True)
    sent = user.send(f"remember {fact}")
    user.wait_for_bot(lambda m: m["text"].startswith("Noted."), after=sent)
    sent = user.send("email alice@example.org that I'll be 10 minutes late")
    card = user.wait_for_card(after=sent)
    user.press(card["message_id"], button="Approve")
    user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"])
    sent = user.send("/quiet 23:00 06:00")
    user.wait_for_bot(lambda m: "Quiet hours" in m["text"], after=sent)


def connect_email(stack: DeputyStack, user_id: int) -> None:
    user = stack.user(user_id)
    sent = user.send("/connect email")
    link = re.search(r"http://\S+/connect/\S+", user.wait_for_bot(lambda m: "/connect/" in m["text"], after=sent)["text"])
    page = httpx.post(link.group(0), data={"address": "ann@home.example", "username": "ann", "password": ANN_PASSWORD,
                                           "smtp_host": "127.0.0.1", "smtp_port": "2525", "imap_host": "127.0.0.1",
                                           "imap_port": "993", "security": "none"}, timeout=30)
    assert page.status_code == 200 and "connected" in page.text.lower(), page.text[:300]
    user.wait_for_bot(lambda m: "is connected" in m["text"], after=sent)


def test_export_contains_everything_and_no_secret_then_delete_me_erases_only_that_user(
    stack: DeputyStack, model_server, redis: Redis, smtp_password: str
) -> None:
    model_server.responder = script
    use_deputy(stack, ANN, "my locker code word is heliotrope-ann")
    use_deputy(stack, BOB, "my dog is called biscuit-bob")
    connect_email(stack, ANN)

    ann = stack.user(ANN)
    sent = ann.send("/export")
    message = ann.wait_for_bot(lambda m: m.get("document"), after=sent)
    exported = httpx.get(f"{stack.chat_url}/api/files/{message['document']['file_id']}").content
    document = json.loads(exported)
    assert any("alice@example.org" in g["text"] for g in document["goals"])
    assert [m["text"] for m in document["memory"]] == ["my locker code word is heliotrope-ann"]
    assert {c["handle"] for c in document["connections"]} == {"cred:email/smtp", "cred:email/imap"}
    assert document["settings"]["quiet_start"] == "23:00:00"
    assert any(e["kind"] == "review" for e in document["activity"])
    text = exported.decode()
    assert ANN_PASSWORD not in text and smtp_password not in text and stack.secret not in text
    assert "biscuit-bob" not in text

    ann_goals = [g["id"] for g in document["goals"]]
    workspace = stack.workdir / "data" / "users" / str(ANN)
    (workspace / "files").mkdir(parents=True)
    (workspace / "files" / "recipe.txt").write_text("a file Ann sent")
    sent = ann.send("/delete_me")
    warning = ann.wait_for_bot(lambda m: "can't be undone" in m["text"], after=sent)
    ann.press(warning["message_id"], button="Delete everything")
    ann.wait_for_bot(lambda m: "is erased" in m["text"], after=warning["message_id"], timeout=30)

    def nothing_left() -> bool:
        dump = everything_in_redis(redis)
        return not any(marker in dump for marker in ["heliotrope-ann", str(ANN), *ann_goals])

    try:
        wait_for(nothing_left, timeout=20, what="every trace of Ann to be gone")
    except TimeoutError:  # say what is left, not just that something is
        leftovers = [line for line in everything_in_redis(redis).splitlines()
                     if any(marker in line for marker in ["heliotrope-ann", str(ANN), *ann_goals])]
        raise AssertionError(leftovers[:20]) from None
    dump = everything_in_redis(redis)
    assert "biscuit-bob" in dump and str(BOB) in dump, "Bob's data is untouched"
    assert not workspace.exists(), "Ann's files left by an older Deputy are gone too"
    assert not (stack.workdir / "data" / "vault.cfg").exists(), "credentials are kept in Redis, never on disk"

    sent = stack.user(BOB).send("/memory")
    assert "biscuit-bob" in stack.user(BOB).wait_for_bot(lambda m: True, after=sent)["text"]
