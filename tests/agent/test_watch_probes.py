"""Monitors with a probe: the read runs at each check through the real executor and guard,
code compares it, and the model is called only when something new turns up.

Real parts: pymap IMAP with the sandbox SMTP server delivering into it, the sandbox ticket
site over its OpenAPI description through the egress guard, Redis. The clock is the test's.
"""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from decimal import Decimal
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from redis import Redis

from deputy.agent.watch.check_budget import CheckBudget
from deputy.agent.goals import Goal, GoalStatus
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import FunctionModel, message_text, tool_call
from deputy.core.records.effects import ConnectorError
from deputy.core.accounts.plans import parse_plans
from deputy.core.accounts.quotas import Quotas
from deputy.connectors.catalog import Catalog
from deputy.connectors.default import default_catalog
from deputy.connectors.email.imap import ImapAccount
from deputy.connectors.email.mail_runners import MailRunners
from deputy.connectors.http.client import guarded_client
from deputy.connectors.openapi.runner import OpenApiRunner
from deputy.connectors.openapi.document import fetch_openapi
from deputy.connectors.openapi.importer import import_openapi
from deputy.sandbox.mail import LocalMailServer
from deputy.sandbox.mailstore import DEMO_PASSWORD, MailStore
from deputy.sandbox.tickets import OFFICE, create_app
from deputy.sandbox.webapp_common import SiteServer
from deputy.sentinel.stores.action_store import ActionStore
from deputy.sentinel.egress.policy import EgressContext, EgressPolicy, reviewer
from deputy.testing.inline import InlineDeputy

USER = 71
ME = "me@deputy.test"
SAM = "sam@example.org"


@pytest.fixture
def mail(tmp_path: Path) -> Iterator[tuple[MailStore, LocalMailServer]]:
    with MailStore(tmp_path / "imap") as store:
        store.add_user(ME)
        server = LocalMailServer(store=store)
        server.start()
        yield store, server
        server.stop()


def send_mail(server: LocalMailServer, sender: str, subject: str, body: str = "Hello!") -> None:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, ME, subject
    message.set_content(body)
    with smtplib.SMTP("127.0.0.1", server.port, timeout=10) as smtp:
        smtp.send_message(message)


class Rig(InlineDeputy):
    def __init__(self, redis: Redis, decide, runners: dict[str, Any], catalog: Catalog,
                 checks: CheckBudget | None = None) -> None:
        self.model = FunctionModel(decide)
        super().__init__(redis, self.model, catalog, runners, checks=checks)

    def start(self, text: str) -> Goal:
        return super().start(USER, text, goal_id="g_watch")

    def goal(self) -> Goal:
        return super().goal("g_watch")

    def tick(self, seconds: float = 60) -> None:
        """Let the next scheduled check come due and run it."""
        super().tick(seconds)


def mail_runners(store: MailStore, reachable: dict[str, bool] | None = None) -> dict[str, Any]:
    state = reachable if reachable is not None else {"up": True}

    def account(user_id: int) -> ImapAccount:
        port = store.port if state["up"] else 1  # nothing listens on port 1: the server is "down"
        return ImapAccount(host=store.host, port=port, username=ME, password=SecretStr(DEMO_PASSWORD),
                           use_ssl=False, starttls=False, timeout=5)

    def no_sending(user_id: int, message: Any, key: str) -> Any:
        raise ConnectorError("not in this test")

    return MailRunners(account, no_sending).runners()


def watch_sam(messages: list[dict[str, Any]], tools: Any) -> ModelReply:
    """The model: set a probe on mail from Sam; when woken with news, tell the user about it."""
    last = message_text(messages[-1])
    if messages[-1].get("role") == "tool" and "<untrusted" in last and "Scheduled check" in message_text(messages[-3]):
        subject = "Lunch on Friday" if "Lunch on Friday" in last else "something"
        return tool_call("reply", text=f"Sam replied: “{subject}”.")
    return tool_call("schedule_check", what=f"new email from {SAM}", every_minutes=1, max_checks=20,
                     probe={"tool": "search_email", "arguments": {"from": SAM}})


def test_an_email_probe_stays_silent_without_model_calls_until_sam_writes(
    redis: Redis, mail: tuple[MailStore, LocalMailServer]
) -> None:
    store, server = mail
    send_mail(server, SAM, "An old note")  # already there: part of the baseline, never news
    rig = Rig(redis, watch_sam, mail_runners(store), default_catalog())
    goal = rig.start("tell me when Sam replies")
    assert goal.status is GoalStatus.scheduled
    assert len(rig.model.calls) == 1
    answer = next(m for m in goal.messages if m.get("role") == "tool")
    assert answer["content"].startswith("Scheduled: watching") and "1 item(s) there now" in answer["content"]

    for _ in range(3):
        rig.tick()
    send_mail(server, "bob@example.org", "Lunch on Friday")  # someone else: no news
    rig.tick()
    assert rig.goal().monitor.checks_done == 4
    assert len(rig.model.calls) == 1, "no model call while nothing new came from Sam"
    kept = [redis.ttl(key) for key in redis.scan_iter("deputy:action:*")]
    assert len(kept) == 5 and sum(1 for ttl in kept if ttl <= 24 * 3600) == 4, "quiet probes are not kept for long"
    assert rig.messages() == []

    send_mail(server, SAM, "Lunch on Friday", "Friday works for me.")
    rig.tick()
    assert len(rig.model.calls) == 2
    woken_with = rig.model.calls[-1][0]
    news = message_text(woken_with[-1])
    assert news.startswith("<untrusted") and "Lunch on Friday" in news and "An old note" not in news
    [message] = rig.messages()
    assert "Sam replied" in message.text and "Lunch on Friday" in message.text and message.proactive
    assert rig.goal().status is GoalStatus.done
    assert any(item.origin.startswith("INBOX in your mailbox") for item in rig.goal().untrusted), \
        "the guard knows this content came from outside"


def test_a_probe_must_be_a_read(redis: Redis, mail: tuple[MailStore, LocalMailServer]) -> None:
    store, _server = mail

    def decide(messages: list[dict[str, Any]], tools: Any) -> ModelReply:
        if messages[-1].get("role") == "tool":
            return tool_call("reply", text="I can't watch that way: " + message_text(messages[-1]))
        return tool_call("schedule_check", what="keep emailing Sam", every_minutes=1,
                         probe={"tool": "send_email", "arguments": {"to": [SAM], "subject": "hi", "body": "hi"}})

    rig = Rig(redis, decide, mail_runners(store), default_catalog())
    goal = rig.start("email Sam every minute")
    [message] = rig.messages()
    assert "send_email sends something to other people, so it can't be a probe" in message.text
    assert goal.monitor is None and goal.status is GoalStatus.done
    assert ActionStore(redis).get(goal.pending_action_id or "x") is None
    assert not list(redis.scan_iter("deputy:action:*")), "nothing was submitted"


def test_a_monitor_with_a_probe_stops_at_its_end_condition(
    redis: Redis, mail: tuple[MailStore, LocalMailServer]
) -> None:
    store, _server = mail

    def decide(messages: list[dict[str, Any]], tools: Any) -> ModelReply:
        return tool_call("schedule_check", what="new email from Sam", every_minutes=1, max_checks=3,
                         probe={"tool": "search_email", "arguments": {"from": SAM}})

    rig = Rig(redis, decide, mail_runners(store), default_catalog())
    rig.start("tell me if Sam writes in the next three minutes")
    for _ in range(5):
        rig.tick()
    [ended] = rig.messages()
    assert "stopped watching" in ended.text and "3 checks" in ended.text
    assert rig.goal().status is GoalStatus.done and rig.dispatch.delayed == []
    assert len(rig.model.calls) == 1


def test_a_failing_probe_is_retried_and_the_user_is_told_once(
    redis: Redis, mail: tuple[MailStore, LocalMailServer]
) -> None:
    store, server = mail
    reachable = {"up": True}
    rig = Rig(redis, watch_sam, mail_runners(store, reachable), default_catalog())
    rig.start("tell me when Sam replies")
    reachable["up"] = False
    for _ in range(6):
        rig.tick()
    [told] = rig.messages()
    assert "couldn't check" in told.text and "last 3 times" in told.text and "keep trying" in told.text
    assert DEMO_PASSWORD not in told.text
    assert len(rig.model.calls) == 1 and rig.goal().status is GoalStatus.scheduled

    reachable["up"] = True
    send_mail(server, SAM, "Lunch on Friday")
    rig.tick()
    assert len(rig.model.calls) == 2
    assert [m.text for m in rig.messages()][-1].startswith("Sam replied")


def test_checks_count_against_the_daily_budget(redis: Redis, mail: tuple[MailStore, LocalMailServer]) -> None:
    store, server = mail
    rig = Rig(redis, watch_sam, mail_runners(store), default_catalog(), checks=CheckBudget(redis, per_day=3))
    rig.start("tell me when Sam replies")  # the first reading is one check
    rig.tick()
    rig.tick()
    assert rig.goal().monitor.checks_done == 2
    rig.tick()
    assert rig.goal().monitor.checks_done == 2, "over the budget, the check is skipped"
    [notice] = rig.messages()
    assert "today's 3 scheduled checks" in notice.text
    [(_, _, delay)] = rig.dispatch.delayed
    assert delay > 3600, "the next check waits for tomorrow's budget"
    # The next day the budget is fresh and the watch carries on.
    send_mail(server, SAM, "Lunch on Friday")
    rig.tick(24 * 3600)
    assert rig.goal().monitor.checks_done == 3
    assert rig.messages()[-1].text.startswith("Sam replied")
    assert len(rig.model.calls) == 2


@pytest.fixture
def tickets() -> Iterator[tuple[Any, str]]:
    app = create_app()
    site = SiteServer(app)
    url = site.start()
    yield app, url
    site.stop()


def test_a_threshold_probe_over_the_ticket_api_wakes_only_when_the_price_crosses(
    redis: Redis, tickets: tuple[Any, str]
) -> None:
    app, url = tickets
    office = app[OFFICE]
    hamlet = office.events["hamlet"]
    hamlet.sections[0].price, hamlet.sections[1].price = Decimal(95), Decimal(120)  # stalls and circle
    with httpx.Client(trust_env=False) as plain:
        api = import_openapi(fetch_openapi(plain, f"{url}/openapi.json"), service="tickets")
    policy = EgressPolicy(allow_private_networks=[url.removeprefix("http://")])
    client = guarded_client(reviewer(policy, EgressContext()), connector="openapi", timeout=5)
    catalog = default_catalog().merged(api.catalog())

    def decide(messages: list[dict[str, Any]], tools: Any) -> ModelReply:
        last = messages[-1]
        if last.get("role") == "tool" and "<untrusted" in message_text(last):
            text = message_text(last)
            price = text.split("is now ")[1].split(" ")[0]
            return tool_call("reply", text=f"Hamlet seats are now {price} USD.")
        return tool_call("schedule_check", what="Hamlet seats under 80 USD", every_minutes=5, max_checks=50,
                         probe={"tool": "tickets_get_event", "arguments": {"event_id": "hamlet"},
                                "compare": "threshold", "field": "sections.*.price", "below": 80})

    rig = Rig(redis, decide, OpenApiRunner(api, client).runners(), catalog)
    goal = rig.start("tell me when a Hamlet ticket drops below $80")
    answer = next(m for m in goal.messages if m.get("role") == "tool")
    assert "sections.*.price is 95 now" in answer["content"]
    for price in (90, 85, 80):  # lower, but not below 80
        hamlet.sections[0].price = Decimal(price)
        rig.tick(300)
    assert len(rig.model.calls) == 1 and rig.messages() == []

    hamlet.sections[0].price = Decimal(79)
    rig.tick(300)
    [news] = rig.messages()
    assert news.text == "Hamlet seats are now 79 USD." and news.proactive
    assert len(rig.model.calls) == 2
    client.close()


def test_a_threshold_probe_stays_quiet_while_the_price_stays_below(redis: Redis, tickets: tuple[Any, str]) -> None:
    app, url = tickets
    hamlet = app[OFFICE].events["hamlet"]
    hamlet.sections[0].price, hamlet.sections[1].price = Decimal(95), Decimal(120)
    with httpx.Client(trust_env=False) as plain:
        api = import_openapi(fetch_openapi(plain, f"{url}/openapi.json"), service="tickets")
    client = guarded_client(reviewer(EgressPolicy(allow_private_networks=[url.removeprefix("http://")]),
                                     EgressContext()), connector="openapi", timeout=5)

    def decide(messages: list[dict[str, Any]], tools: Any) -> ModelReply:
        if messages[-1].get("role") == "tool" and "<untrusted" in message_text(messages[-1]):
            return tool_call("no_news")  # noted; keep watching
        return tool_call("schedule_check", what="Hamlet under 80", every_minutes=5, max_checks=50,
                         probe={"tool": "tickets_get_event", "arguments": {"event_id": "hamlet"},
                                "compare": "threshold", "field": "sections.*.price", "below": 80})

    rig = Rig(redis, decide, OpenApiRunner(api, client).runners(), default_catalog().merged(api.catalog()))
    rig.start("watch Hamlet prices")
    calls = []
    for price in (79, 70, 75, 85, 60):
        hamlet.sections[0].price = Decimal(price)
        rig.tick(300)
        calls.append(len(rig.model.calls))
    # Woken on the first crossing (79) and on the next one (85 → 60), not while it stayed below.
    assert calls == [2, 2, 2, 2, 3]
    client.close()


def test_a_watch_can_report_each_new_email_and_keep_watching_until_its_last_check(
    redis: Redis, mail: tuple[MailStore, LocalMailServer]
) -> None:
    store, server = mail

    def decide(messages: list[dict[str, Any]], tools: Any) -> ModelReply:
        last = message_text(messages[-1])
        if messages[-1].get("role") == "tool" and "<untrusted" in last:
            subject = last.split(" | ")[3]
            return tool_call("reply", text=f"New from Sam: {subject}", keep_watching=True)
        return tool_call("schedule_check", what="each email from Sam", every_minutes=1, max_checks=4,
                         probe={"tool": "search_email", "arguments": {"from": SAM}})

    rig = Rig(redis, decide, mail_runners(store), default_catalog())
    rig.start("tell me whenever Sam writes")
    send_mail(server, SAM, "First")
    rig.tick()
    rig.tick()
    send_mail(server, SAM, "Second")
    rig.tick()
    rig.tick()
    assert [m.text for m in rig.messages()] == ["New from Sam: First", "New from Sam: Second",
                                           "That was the last check on “each email from Sam” (4 checks), so I've "
                                           "stopped watching. Text me if you want me to keep looking."]
    assert len(rig.model.calls) == 3 and rig.goal().status is GoalStatus.done


def test_a_threshold_already_crossed_is_said_at_once_instead_of_watched(redis: Redis, tickets: tuple[Any, str]) -> None:
    app, url = tickets
    hamlet = app[OFFICE].events["hamlet"]
    hamlet.sections[0].price, hamlet.sections[1].price = Decimal(70), Decimal(120)
    with httpx.Client(trust_env=False) as plain:
        api = import_openapi(fetch_openapi(plain, f"{url}/openapi.json"), service="tickets")
    client = guarded_client(reviewer(EgressPolicy(allow_private_networks=[url.removeprefix("http://")]),
                                     EgressContext()), connector="openapi", timeout=5)

    def decide(messages: list[dict[str, Any]], tools: Any) -> ModelReply:
        last = message_text(messages[-1])
        if messages[-1].get("role") == "tool":
            return tool_call("reply", text="Already under $80: 70 USD." if "Not scheduled" in last else last)
        return tool_call("schedule_check", what="Hamlet under 80", every_minutes=5,
                         probe={"tool": "tickets_get_event", "arguments": {"event_id": "hamlet"},
                                "compare": "threshold", "field": "sections.*.price", "below": 80})

    rig = Rig(redis, decide, OpenApiRunner(api, client).runners(), default_catalog().merged(api.catalog()))
    goal = rig.start("tell me when Hamlet is under $80")
    assert [m.text for m in rig.messages()] == ["Already under $80: 70 USD."]
    assert goal.monitor is None and goal.status is GoalStatus.done and rig.dispatch.delayed == []
    assert "<untrusted" in message_text(rig.model.calls[-1][0][-1]), "the answer reached the model labelled"
    client.close()


def test_a_probe_on_a_mailbox_the_user_has_not_connected_is_refused_at_set_up(
    redis: Redis, tmp_path: Path
) -> None:
    from deputy.connectors.email.imap_accounts import ImapAccounts
    from deputy.vault import KdfCost, Vault

    vault = Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024,
                                                                            parallelism=1))
    runners = MailRunners(ImapAccounts(vault, None).for_user, lambda *a: None).runners()  # no mailbox at all

    def decide(messages: list[dict[str, Any]], tools: Any) -> ModelReply:
        if messages[-1].get("role") == "tool":
            return tool_call("reply", text=message_text(messages[-1]))
        return tool_call("schedule_check", what="new email from Sam", every_minutes=5,
                         probe={"tool": "search_email", "arguments": {"from": SAM}})

    rig = Rig(redis, decide, runners, default_catalog())
    goal = rig.start("tell me when Sam replies")
    [message] = rig.messages()
    assert message.text.startswith("Error: the watch's first reading did not work, so nothing is scheduled")
    assert "Your mailbox isn't connected yet" in message.text and "/connect" in message.text
    assert goal.monitor is None and rig.dispatch.delayed == []


def test_a_monthly_plan_limit_on_checks_is_called_this_months(
    redis: Redis, mail: tuple[MailStore, LocalMailServer]
) -> None:
    book = parse_plans('default = "lite"\n[plans.lite]\ntitle = "Lite"\nmonth = { checks = 2 }\n')
    store, _ = mail
    budget = CheckBudget(redis, per_day=100, quotas=Quotas(redis, book))
    rig = Rig(redis, watch_sam, mail_runners(store), default_catalog(), checks=budget)
    rig.start("tell me when Sam replies")
    rig.tick()
    rig.tick()
    [notice] = rig.messages()
    assert "this month's 2 scheduled checks" in notice.text and "in a month" in notice.text
    assert "today's" not in notice.text
