"""The whole stack refuses private servers politely: at /connect, on the connect page, and when an
action runs against a server that is (now) refused."""

from __future__ import annotations

import os
import re

import httpx
import pytest
from pydantic import SecretStr
from redis import Redis
from tests_support import GOAL

from deputy.testing.stack import DeputyStack, wait_for
from deputy.sentinel.stores.audit import AuditLog
from deputy.vault import Vault

VAULT_KEY = "egress-flow-vault-key-" + os.urandom(6).hex()
OWN_PASSWORD = "ann-own-smtp-password-9"
ADVICE = "Deputy only connects to public servers. If this is your own server, the operator can allow it with " \
         "DEPUTY_EGRESS_ALLOW."


@pytest.fixture
def stack_env() -> dict[str, str]:
    return {"DEPUTY_VAULT_KEY": VAULT_KEY}


def test_private_servers_are_refused_at_connect_time_with_a_plain_reason(stack: DeputyStack, redis: Redis) -> None:
    user = stack.user(601, "Ann")
    sent = user.send("/connect mcp http://10.0.0.5:8000/mcp")
    reply = user.wait_for_bot(lambda m: m["text"].startswith("I couldn't connect"), after=sent)
    assert reply["text"] == ("I couldn't connect http://10.0.0.5:8000/mcp: That server's address (10.0.0.5) is a "
                             f"private network address; {ADVICE}")

    sent = user.send("/connect calendar")
    link = re.search(r"http://\S+/connect/\S+", user.wait_for_bot(lambda m: "/connect/" in m["text"], after=sent)
                     ["text"]).group(0)
    page = httpx.post(link, data={"url": "http://169.254.169.254/latest/", "username": "ann", "password": "pw-ann"})
    text = page.text.replace("&#x27;", "'")
    assert page.status_code == 400 and "That server's address is the cloud metadata service" in text
    assert httpx.get(link).status_code == 200, "the link still works, to enter the right address"
    kinds = [entry.kind for entry in AuditLog(redis).entries(601)]
    assert kinds.count("connection_refused") == 2 and "connection_added" not in kinds


def test_an_action_against_a_refused_server_fails_politely_and_is_audited(
    stack: DeputyStack, redis: Redis, tmp_path
) -> None:
    # Ann's mail settings point at an address the operator does not allow (saved before the operator
    # narrowed DEPUTY_EGRESS_ALLOW): loopback, so nothing leaves this machine if the guard were broken.
    vault = Vault(redis, SecretStr(VAULT_KEY))
    vault.put(602, "cred:email/smtp", SecretStr(OWN_PASSWORD), "password", "Email ann@home.example (sending)",
              public={"host": "127.0.0.2", "port": "2525", "username": "ann@home.example",
                      "from_address": "ann@home.example", "starttls": "false", "ssl": "false"})
    user = stack.user(602, "Ann", asks_before_sending=True)
    sent = user.send(GOAL)
    card = user.wait_for_card(after=sent)
    user.press(card["message_id"], button="Approve")
    told = user.wait_for_bot(lambda m: m["text"].startswith("That didn't work"), after=card["message_id"])
    assert "That server's address (127.0.0.2) is this computer's own address" in told["text"]
    assert ADVICE in told["text"]
    wait_for(lambda: any(e.kind == "egress_denied" for e in AuditLog(redis).entries(602)), what="the audit record")
    [denied] = [e for e in AuditLog(redis).entries(602) if e.kind == "egress_denied"]
    assert denied.detail["host"] == "127.0.0.2" and denied.detail["operation"] == "email.send_email"
    everything = stack.logs() + repr([e.model_dump() for e in AuditLog(redis).entries(602)]) + repr(user.messages())
    assert OWN_PASSWORD not in everything
