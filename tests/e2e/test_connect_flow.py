"""Connecting an account without secrets in the chat, and refusing secrets pasted into it."""

from __future__ import annotations

import re

import httpx
import pytest
from redis import Redis
from tests_support import GOAL

from deputy.agent.model.testing import ScriptedModelServer
from deputy.testing.stack import DeputyStack, wait_for
from deputy.sandbox.mail import LocalMailServer
from deputy.sentinel.stores.audit import AuditLog

OWN_PASSWORD = "ann-own-app-password-42"


@pytest.fixture
def stack_env() -> dict[str, str]:
    # Ann's own mail server runs on this machine: the operator allows it, as an operator would.
    return {"DEPUTY_EGRESS_ALLOW": "127.0.0.1/32"}


def test_connect_email_then_send_from_the_users_own_account_then_disconnect(
    stack: DeputyStack, model_server: ScriptedModelServer, redis: Redis, tmp_path
) -> None:
    with LocalMailServer(username="ann@home.example", password=OWN_PASSWORD) as anns_server:
        user = stack.user(501, "Ann", asks_before_sending=True)
        sent = user.send("/connect email")
        reply = user.wait_for_bot(lambda m: "/connect/" in m["text"], after=sent)
        link = re.search(r"http://\S+/connect/\S+", reply["text"]).group(0)

        page = httpx.get(link)
        assert page.status_code == 200 and "Connect your email" in page.text
        assert page.headers["Cache-Control"] == "no-store"
        form = {"address": "ann@home.example", "username": "ann@home.example", "password": OWN_PASSWORD,
                "smtp_host": "127.0.0.1", "smtp_port": str(anns_server.port), "imap_host": "127.0.0.1",
                "imap_port": "993", "security": "none"}
        bad = httpx.post(link, data={**form, "smtp_port": "not a port"})
        assert bad.status_code == 400 and "port number" in bad.text and OWN_PASSWORD not in bad.text
        done = httpx.post(link, data=form)
        assert done.status_code == 200 and "Done" in done.text
        assert httpx.get(link).status_code == 410, "a link works once"
        user.wait_for_bot(lambda m: "is connected" in m["text"], after=sent)

        sent = user.send("/connections")
        listing = user.wait_for_bot(lambda m: m["text"].startswith("Connected:"), after=sent)
        assert "ann@home.example" in listing["text"] and OWN_PASSWORD not in listing["text"]

        sent = user.send(GOAL)
        card = user.wait_for_card(after=sent)
        user.press(card["message_id"], button="Approve")
        user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["message_id"])
        received = anns_server.wait_for(1)
        assert received[0].mail_from == "ann@home.example", "sent through Ann's own account"

        user.press(listing["message_id"], button="Disconnect email")
        user.wait_for_bot(lambda m: m["text"].startswith("Disconnected email"), after=listing["message_id"])
        wait_for(lambda: not redis.hgetall("deputy:vault:501"), what="the vault index to be empty")
        assert not redis.exists("deputy:vault:501:secrets"), "the sealed secrets are gone too"
        assert not (tmp_path / "stack" / "data" / "vault.cfg").exists(), "no vault file on any disk"

    everything = stack.logs() + repr([r.model_dump() for r in model_server.requests])
    everything += repr([e.model_dump() for e in AuditLog(redis).entries(501)]) + repr(user.messages())
    assert OWN_PASSWORD not in everything


def test_a_password_pasted_into_the_chat_is_deleted_and_never_becomes_a_goal(
    stack: DeputyStack, model_server: ScriptedModelServer, redis  # type: ignore[no-untyped-def]
) -> None:
    user = stack.user(502)
    sent = user.send("my password is Sup3rSecret!")
    notice = user.wait_for_bot(lambda m: "deleted your message" in m["text"], after=sent)
    assert "/connect" in notice["text"]
    assert all("Sup3rSecret" not in m["text"] for m in user.messages())
    sent = user.send("pay with 4111 1111 1111 1111 please")
    assert "card number" in user.wait_for_bot(lambda m: "deleted" in m["text"], after=sent)["text"]
    # The casual forms: a card with its expiry and code, a password word abbreviated, a login as name / password.
    for paste, kind in (("book it on 4111 1111 1111 1111 12/27 123", "a card number"),
                        ("the wifi pw is hunter2", "a password"), ("login: bob / hunter2", "a password")):
        sent = user.send(paste)
        notice = user.wait_for_bot(lambda m: "deleted your message" in m["text"], after=sent)
        assert kind in notice["text"] and "/connect" in notice["text"]
    assert all("hunter2" not in m["text"] and "12/27" not in m["text"] for m in user.messages())
    assert model_server.requests == []
    assert not [k for k in redis.scan_iter("deputy:goal:*")], "a deleted paste must never become a goal"
