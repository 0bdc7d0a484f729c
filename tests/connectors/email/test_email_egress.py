"""IMAP and SMTP connections pass Sentinel's egress policy, and connect only to the checked address.

Real servers (pymap, aiosmtpd) on 127.0.0.1; DNS is the injected resolver, so names like
mail.example.test exist only for the guard: the system resolver cannot find them, and a
connection that works proves it went to the address the guard checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from egress_testkit import Rebinding, fixed, no_outside_traffic
from pydantic import SecretStr

from deputy.core.records.effects import ConnectorError
from deputy.connectors.email.smtp import OutgoingEmail, SmtpAccount, send_email
from deputy.connectors.email.imap import ImapAccount, ImapSession
from deputy.connectors.email.mail_runners import MailRunners
from deputy.settings import Settings
from deputy.sandbox.mail import LocalMailServer
from deputy.sandbox.mailstore import DEMO_PASSWORD, MailStore, seed_demo_inbox
from deputy.core.records.actions import Action
from deputy.sentinel.egress.policy import EgressPolicy
from deputy.sentinel.egress.transports.http_client import EgressBlocked
from deputy.sentinel.egress.transports.sockets import EndpointGuard
from deputy.runtime.egress_guards import endpoint_guard

DEMO = "demo@sandbox.local"
MAIL = "mail.example.test"
EMAIL = OutgoingEmail(to=["alice@example.org"], subject="Late", body="10 minutes late.")
DENIED = [
    ("169.254.169.254", {}, "cloud metadata service"),
    ("10.0.0.5", {}, "(10.0.0.5) is a private network address"),
    ("127.0.0.1", {}, "this computer's own address"),
    (MAIL, {MAIL: ["10.0.0.5"]}, f"({MAIL}) leads to 10.0.0.5, which is a private network address"),
    (MAIL, {MAIL: ["93.184.216.34", "192.168.1.20"]}, "leads to 192.168.1.20"),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailStore]:
    with MailStore(tmp_path_factory.mktemp("imap-egress")) as running:
        seed_demo_inbox(running, DEMO)
        yield running


@pytest.fixture
def smtp(tmp_path: Path) -> Iterator[LocalMailServer]:
    with LocalMailServer(username="ann@home.example", password="pw-ann-1") as server:
        yield server


def imap_account(host: str, port: int) -> ImapAccount:
    return ImapAccount(host=host, port=port, username=DEMO, password=SecretStr(DEMO_PASSWORD),
                       use_ssl=False, starttls=False, timeout=5)


def smtp_account(host: str, port: int) -> SmtpAccount:
    return SmtpAccount(host=host, port=port, username="ann@home.example", password=SecretStr("pw-ann-1"),
                       from_address="ann@home.example", starttls=False, timeout=5)


def allowed(port: int, resolver) -> EndpointGuard:
    """The executor's guard, with DEPUTY_EGRESS_ALLOW opening the local server's port."""
    return endpoint_guard(Settings(DEPUTY_EGRESS_ALLOW=f"127.0.0.1:{port},{MAIL}:{port}"), resolver)


def strict(resolver) -> EndpointGuard:
    return EndpointGuard(EgressPolicy(), "imap", resolver)


def search_action() -> Action:
    return Action(id="a", goal_id="g", user_id=7, chat_id=7, connector="email", operation="search_email",
                  effect="read", arguments={"subject": "invoice"}, targets=[], tool_call_id="t", created_at=0)


def test_imap_through_the_guard_reaches_the_allowed_server_at_the_checked_address(store: MailStore) -> None:
    guard = allowed(store.port, fixed({MAIL: ["127.0.0.1"]}))
    with ImapSession(imap_account(MAIL, store.port), opener=guard.connect) as session:
        assert any(folder.name == "INBOX" for folder in session.folders())


def test_smtp_through_the_guard_delivers_to_the_allowed_server(smtp: LocalMailServer) -> None:
    guard = allowed(smtp.port, fixed({MAIL: ["127.0.0.1"]}))
    sent = send_email(smtp_account(MAIL, smtp.port), EMAIL, "key-1", opener=guard.for_connector("smtp").connect)
    assert sent.accepted == ["alice@example.org"]
    assert smtp.wait_for(1)[0].mail_from == "ann@home.example"


@pytest.mark.parametrize(("host", "dns", "says"), DENIED)
def test_imap_refuses_private_and_metadata_servers(store: MailStore, host: str, dns: dict, says: str) -> None:
    opener = strict(fixed(dns)).connect
    runners = MailRunners(lambda user_id: imap_account(host, store.port), send=lambda *a: None,  # type: ignore
                          session=lambda account: ImapSession(account, opener=opener))
    with no_outside_traffic() as attempts, pytest.raises(EgressBlocked) as refused:
        runners.runners()["email.search_email"](search_action(), "k")
    assert says in refused.value.user_message and attempts == []
    assert "DEPUTY_EGRESS_ALLOW" in refused.value.user_message or "metadata" in says
    assert isinstance(refused.value, ConnectorError) and DEMO_PASSWORD not in str(refused.value)


@pytest.mark.parametrize(("host", "dns", "says"), DENIED)
def test_smtp_refuses_private_and_metadata_servers(smtp: LocalMailServer, host: str, dns: dict, says: str) -> None:
    with no_outside_traffic() as attempts, pytest.raises(EgressBlocked) as refused:
        send_email(smtp_account(host, smtp.port), EMAIL, "key-2", opener=strict(fixed(dns)).connect)
    assert says in refused.value.user_message and attempts == []


def test_imap_name_that_rebinds_to_a_private_address_after_the_check_is_refused(store: MailStore) -> None:
    dns = Rebinding(first=["127.0.0.1"], then=["10.0.0.5"])
    guard = EndpointGuard(EgressPolicy(allow_private_networks=["127.0.0.1/32"]), "imap", dns)
    assert guard.check(MAIL, store.port) == ["127.0.0.1"], "at connect time the name looked fine"
    with no_outside_traffic() as attempts, pytest.raises(EgressBlocked) as refused, ImapSession(
        imap_account(MAIL, store.port), opener=guard.connect
    ):
        pass
    assert "leads to 10.0.0.5" in refused.value.user_message and attempts == []


def test_smtp_name_that_rebinds_to_a_private_address_after_the_check_is_refused(smtp: LocalMailServer) -> None:
    dns = Rebinding(first=["127.0.0.1"], then=["10.0.0.5"])
    guard = EndpointGuard(EgressPolicy(allow_private_networks=["127.0.0.1/32"]), "smtp", dns)
    assert guard.check(MAIL, smtp.port) == ["127.0.0.1"]
    with no_outside_traffic() as attempts, pytest.raises(EgressBlocked):
        send_email(smtp_account(MAIL, smtp.port), EMAIL, "key-3", opener=guard.connect)
    assert attempts == []


def test_each_connection_is_checked_once_and_pinned_to_that_answer(store: MailStore) -> None:
    # One lookup per connection: the socket goes to what the guard saw, never to a second answer.
    dns = Rebinding(first=["127.0.0.1"], then=["10.0.0.5"])
    guard = EndpointGuard(EgressPolicy(allow_private_networks=["127.0.0.1/32"]), "imap", dns)
    with no_outside_traffic() as attempts, ImapSession(imap_account(MAIL, store.port), opener=guard.connect) as s:
        assert s.folders()
    assert dns.lookups == [MAIL] and attempts == []
