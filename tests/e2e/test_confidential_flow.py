"""Confidential mode end to end: turned on and unlocked on the private page, locked from the chat.

A Redis dump of a locked user shows none of their words, in clear, JSON-escaped or base64; a
goal texted while locked is kept and runs after the unlock; the passphrase is nowhere.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Iterator

import httpx
import pytest
from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, goal_text, tool_call
from deputy.testing.stack import ChatUser, DeputyStack, wait_for
from tests_support import everything_in_redis, tiny_pdf

ANN, BEA = 7404031101, 7404031113
PASSPHRASE = "correct horse battery staple 42"
MAIL_PASSWORD = "anns-mail-password-xyz"
MARKERS = ["heliotrope-ann", "marzipan-7731", "quokka-pdf-4417", "Zephyrine", "zanzibar-ann", "ann@quince.example",
           MAIL_PASSWORD]


def script(request: ChatRequest) -> ModelReply:
    goal = goal_text(request.messages)
    last = request.messages[-1]
    if goal.startswith("remember"):
        if last.get("role") == "tool":
            return tool_call("reply", text="Noted.")
        return tool_call("remember", text=goal.removeprefix("remember ").strip(), kind="fact")
    if goal.startswith("email"):
        if last.get("role") == "tool":
            return tool_call("reply", text="Done: emailed Alice.")
        return tool_call("send_email", to=["alice@example.org"], subject="The gate", body=goal)
    return tool_call("reply", text="Read it.")


def forms(text: str) -> list[str]:
    """`text` as a dump could show it: as is, and base64-encoded at each of the three alignments."""
    found = [text]
    for prefix in ("", "a", "ab"):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode((prefix + text).encode()).decode()
            start = (len(prefix) * 4 + 2) // 3 + 1
            found.append(encoded[start:start + 12])
    return found


def leaks(redis: Redis, markers: list[str]) -> list[str]:
    """Each marker found in the dump, with the line (a key, or a value after its key) that shows it."""
    dump = everything_in_redis(redis).splitlines()
    return [f"{marker} in {line[:160]!r}" for marker in markers for form in forms(marker)
            for line in dump if form in line]


def link(user: ChatUser, command: str) -> str:
    sent = user.send(command)
    message = user.wait_for_bot(lambda m: "/connect/" in m["text"], after=sent)
    return re.search(r"http://\S+/connect/\S+", message["text"]).group(0)


@pytest.fixture
def stack_env() -> dict[str, str]:
    return {"DEPUTY_EGRESS_ALLOW": "127.0.0.1/32"}  # Ann's mail server is on this machine


def connect_email(user: ChatUser) -> None:
    url = link(user, "/connect email")
    page = httpx.post(url, data={"address": "ann@quince.example", "username": "ann", "password": MAIL_PASSWORD,
                                 "smtp_host": "127.0.0.1", "smtp_port": "2525", "imap_host": "127.0.0.1",
                                 "imap_port": "993", "security": "none"}, timeout=30)
    assert page.status_code == 200 and "connected" in page.text.lower(), page.text[:300]


def test_a_locked_users_data_is_unreadable_in_redis_and_work_sent_while_locked_runs_after_unlock(
    stack: DeputyStack, model_server, redis: Redis
) -> None:
    model_server.responder = script
    ann = stack.user(ANN, asks_before_sending=True)
    sent = ann.send("remember my locker nickname is heliotrope-ann")
    ann.wait_for_bot(lambda m: m["text"].startswith("Noted."), after=sent)
    connect_email(ann)  # a vault entry from before: sealed again when the mode is turned on

    # Turning on: the warning is on the page; a mismatch or an unticked box is refused politely.
    url = link(ann, "/confidential")
    assert "gone for good" in httpx.get(url, timeout=10).text
    refused = httpx.post(url, data={"passphrase": PASSPHRASE, "again": PASSPHRASE + "x", "period": "1 hour",
                                    "understood": "yes"}, timeout=30)
    assert refused.status_code == 400 and "not the same" in refused.text
    refused = httpx.post(url, data={"passphrase": PASSPHRASE, "again": PASSPHRASE, "period": "1 hour"}, timeout=30)
    assert refused.status_code == 400 and "tick the box" in refused.text
    page = httpx.post(url, data={"passphrase": PASSPHRASE, "again": PASSPHRASE, "period": "1 hour",
                                 "understood": "yes"}, timeout=30)
    assert page.status_code == 200 and "Confidential mode is on" in page.text, page.text[:300]
    ann.wait_for_bot(lambda m: "Confidential mode is on" in m["text"], after=sent)

    # Used while unlocked: an approval, a file, a setting.
    sent = ann.send("email alice@example.org that the gate colour is marzipan-7731")
    card = ann.wait_for_card(after=sent)
    ann.press(card["message_id"], button="Approve")
    ann.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"])
    sent = httpx.post(f"{stack.chat_url}/api/users/{ANN}/files",
                      files={"file": ("note.pdf", tiny_pdf("quokka-pdf-4417"), "application/pdf")},
                      data={"caption": "what does this say?"}).json()["message_id"]
    ann.wait_for_bot(lambda m: m["text"].startswith("Read it."), after=sent)
    sent = ann.send("/settings name Zephyrine")
    ann.wait_for_bot(lambda m: "Name: Zephyrine" in m["text"], after=sent)

    sent = ann.send("/lock")
    ann.wait_for_bot(lambda m: m["text"].startswith("🔒 Locked."), after=sent)
    assert not (found := leaks(redis, MARKERS)), "\n".join(found)
    rules = redis.hvals(f"deputy:rules:{ANN}")
    assert rules and all(r.startswith(b"cf1.") for r in rules), "the rules are sealed too"
    for command in ("/connections", "/export", "/rules"):  # each asks her to unlock first
        sent = ann.send(command)
        assert "/unlock" in ann.wait_for_bot(lambda m: True, after=sent)["text"], command

    # While locked: a new goal is kept (sealed) and waits; the user is told once, and how to unlock.
    sent = ann.send("remember my second nickname is zanzibar-ann")
    ann.wait_for_bot(lambda m: "waiting" in m["text"] and "/unlock" in m["text"], after=sent)
    sent = ann.send("/goals")
    assert "1 of them waiting for you to unlock" in ann.wait_for_bot(lambda m: True, after=sent)["text"]
    assert not (found := leaks(redis, MARKERS)), "\n".join(found)

    # Unlocking: a wrong passphrase is refused politely; the right one lets the waiting goal run.
    url = link(ann, "/unlock")
    wrong = httpx.post(url, data={"passphrase": "not my passphrase", "period": "1 hour"}, timeout=30)
    assert wrong.status_code == 400 and "does not unlock" in wrong.text
    page = httpx.post(url, data={"passphrase": PASSPHRASE, "period": "1 hour"}, timeout=30)
    assert page.status_code == 200 and "Unlocked" in page.text
    ann.wait_for_bot(lambda m: m["text"].startswith("Noted."), after=sent, timeout=30)
    sent = ann.send("/memory")
    listing = ann.wait_for_bot(lambda m: "heliotrope-ann" in m["text"], after=sent)["text"]
    assert "zanzibar-ann" in listing
    sent = ann.send("/connections")
    assert "ann@quince.example" in ann.wait_for_bot(lambda m: True, after=sent)["text"]

    # The lock button under the unlock message locks at once.
    unlocked = next(m for m in ann.bot_messages() if m["text"].startswith("🔓 Unlocked"))
    answered = len(ann.answers())
    ann.press(unlocked["message_id"], button="🔒 Lock now")
    assert ann.wait_for_answer(answered + 1)["text"].startswith("🔒 Locked")
    sent = ann.send("/memory")
    assert "/unlock" in ann.wait_for_bot(lambda m: True, after=sent)["text"]

    # /delete_me, locked as she is: everything of Ann goes, her keys included.
    sent = ann.send("/delete_me")
    warning = ann.wait_for_bot(lambda m: "can't be undone" in m["text"], after=sent)
    ann.press(warning["message_id"], button="Delete everything")
    ann.wait_for_bot(lambda m: "is erased" in m["text"], after=warning["message_id"], timeout=30)

    def traces() -> list[str]:
        return [line[:160] for line in everything_in_redis(redis).splitlines() if str(ANN) in line or "cf1." in line]

    wait_for(lambda: not traces(), timeout=20, what=f"every trace of Ann to be gone: {traces()}")

    # The passphrase is in no log, no Redis value and no chat message.
    assert leaks(redis, [PASSPHRASE]) == []
    assert PASSPHRASE not in stack.logs()
    assert all(PASSPHRASE not in m["text"] for m in ann.messages())


@pytest.fixture
def gateway_stack(redis_server, redis: Redis, model_server, tmp_path: Path) -> Iterator[DeputyStack]:  # type: ignore[no-untyped-def]
    stack = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", gateway=True).start()
    yield stack
    stack.stop()


def test_through_the_model_gateway_the_models_answers_are_kept_sealed(
    gateway_stack: DeputyStack, model_server, redis: Redis
) -> None:
    model_server.responder = script
    bea = gateway_stack.user(BEA)
    url = link(bea, "/confidential")
    page = httpx.post(url, data={"passphrase": PASSPHRASE, "again": PASSPHRASE, "period": "1 hour",
                                 "understood": "yes"}, timeout=30)
    assert page.status_code == 200
    sent = bea.send("remember my bike lock code is wombat-2468")
    bea.wait_for_bot(lambda m: m["text"].startswith("Noted."), after=sent, timeout=30)
    sent = bea.send("/lock")
    bea.wait_for_bot(lambda m: m["text"].startswith("🔒 Locked."), after=sent)
    assert redis.keys("deputy:model:outcome:*"), "the gateway's answers are kept (sealed)"
    assert not (found := leaks(redis, ["wombat-2468"])), "\n".join(found)
