"""A connection the egress policy refuses, at call time and at `/connect mcp`: a tool error for the agent,
a plain message for the user, and an audit record that holds no secret."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from egress_testkit import Rebinding, fixed, no_outside_traffic
from pydantic import SecretStr
from redis import Redis

from deputy.agent.model.testing import FunctionModel, tool_call
from deputy.connectors.custom import CustomConnectors, UserCatalogs
from deputy.connectors.default import default_catalog
from deputy.connectors.email.imap import ImapSession
from deputy.connectors.email.imap_accounts import IMAP_HANDLE, ImapAccounts
from deputy.connectors.email.mail_runners import MailRunners
from deputy.connectors.http.client import guarded_client
from deputy.core.records.outbox import OUTBOX_STREAM, Outbox
from deputy.settings import Settings
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.egress.policy import EgressContext, EgressPolicy, reviewer
from deputy.sentinel.egress.transports.sockets import EndpointGuard
from deputy.vault import KdfCost, Scrubber, Vault
from deputy.executor.custom_connectors import CustomConnectorService
from deputy.runtime.egress_guards import endpoint_guard, mcp_visitor
from deputy.testing.inline import InlineDeputy
from deputy.core.records.payloads import AddConnectorJob

USER = 41
PASSWORD = "imap-app-password-do-not-leak"


@pytest.fixture
def vault(tmp_path: Path, redis: Redis) -> Vault:
    return Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024,
                                                                            parallelism=1))


def chat(redis: Redis) -> list[str]:
    return [json.loads(fields[b"json"])["text"] for _, fields in redis.xrange(OUTBOX_STREAM)]


def run_goal(redis: Redis, vault: Vault, guard: EndpointGuard, text: str) -> FunctionModel:
    imap = guard.for_connector("imap")
    mail = MailRunners(ImapAccounts(vault).for_user, send=lambda *a: None,  # type: ignore[arg-type,return-value]
                       session=lambda account: ImapSession(account, opener=imap.connect))

    def model(messages, tools):
        results = [m for m in messages if m.get("role") == "tool"]
        if not results:
            return tool_call("search_email", subject="invoice")
        return tool_call("reply", text=f"I couldn't search your mail. {results[-1]['content']}")

    brain = FunctionModel(model)
    deputy = InlineDeputy(redis, brain, default_catalog(), mail.runners(),
                          executor_options={"scrubber": Scrubber([PASSWORD])})
    deputy.start(USER, text, goal_id="g_egress")
    return brain


@pytest.mark.parametrize(("dns", "says"), [
    (fixed({"mail.sneaky.example": ["10.0.0.5"]}), "leads to 10.0.0.5, which is a private network address"),
    # Public when it was connected, private now: DNS rebinding between connect time and call time.
    (Rebinding(first=["93.184.216.34"], then=["169.254.169.254"]), "cloud metadata service"),
])
def test_a_mailbox_that_leads_to_a_private_address_is_refused_and_the_user_is_told(
    redis: Redis, vault: Vault, dns, says: str
) -> None:
    guard = endpoint_guard(Settings(), dns)
    if isinstance(dns, Rebinding):
        assert guard.check("mail.sneaky.example", 993), "the connect page saw a public address"
    vault.put(USER, IMAP_HANDLE, SecretStr(PASSWORD), "password", "Email ann@sneaky.example (reading)",
              public={"host": "mail.sneaky.example", "port": "993", "username": "ann@sneaky.example", "ssl": "true"})
    with no_outside_traffic() as attempts:
        brain = run_goal(redis, vault, guard, "find the invoice in my mail")
    assert attempts == []
    told = chat(redis)
    assert any(says in message and "I couldn't search your mail" in message for message in told), told
    messages, _tools = brain.calls[-1]
    tool_error = [m for m in messages if m.get("role") == "tool"][-1]["content"]
    assert says in tool_error, "the agent got the refusal as a tool error"
    denied = [e for e in AuditLog(redis).entries(USER) if e.kind == "egress_denied"]
    assert len(denied) == 1 and denied[0].detail["host"] == "mail.sneaky.example"
    assert denied[0].detail["operation"] == "email.search_email"
    everything = repr([e.model_dump() for e in AuditLog(redis).entries(USER)]) + repr(told) + repr(brain.calls)
    assert PASSWORD not in everything


@pytest.mark.parametrize(("url", "says"), [
    ("http://10.0.0.5:8000/mcp", "That server's address (10.0.0.5) is a private network address"),
    ("http://169.254.169.254/mcp", "cloud metadata service"),
    ("http://tools.sneaky.example/mcp?key=tok-secret-1", "That server (tools.sneaky.example) leads to 192.168.0.10"),
])
def test_connect_mcp_to_a_private_address_is_refused_in_the_chat(
    redis: Redis, vault: Vault, url: str, says: str
) -> None:
    guard = endpoint_guard(Settings(), fixed({"tools.sneaky.example": ["192.168.0.10"]}))
    store = CustomConnectors(redis)
    service = CustomConnectorService(
        store, UserCatalogs(default_catalog(), store),
        guarded_client(reviewer(EgressPolicy(), EgressContext()), connector="custom"),
        vault, Outbox(redis), AuditLog(redis), egress=guard, visitor=mcp_visitor(guard),
    )
    with no_outside_traffic() as attempts:
        outcome = service.add(AddConnectorJob(user_id=USER, chat_id=USER, kind="mcp", url=url))
    assert outcome == "refused" and attempts == [] and store.list(USER) == []
    [message] = chat(redis)
    assert message.startswith(f"I couldn't connect {url}: ") and says in message
    if "metadata" not in says:
        assert message.endswith("the operator can allow it with DEPUTY_EGRESS_ALLOW.")
    [refused] = [e for e in AuditLog(redis).entries(USER) if e.kind == "connection_refused"]
    assert refused.detail["kind"] == "mcp" and refused.detail["reasons"]
    assert "tok-secret-1" not in repr(refused.model_dump()), "a token in the address stays out of the audit trail"
