"""Filling and sending forms in real Chromium: only reviewed submissions leave, to the reviewed address."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import LOGIN_PASSWORD, POLICY, Site, make_action
from pydantic import SecretStr
from redis import Redis

from deputy.core.records.effects import ConnectorRejected
from deputy.connectors.web.browser import BrowserSessions
from deputy.connectors.web.human import NeedsHuman
from deputy.connectors.web.logins import VaultLogins
from deputy.connectors.web.runners import WebRunners
from deputy.sentinel.egress.policy import EgressContext, reviewer
from deputy.sentinel.egress.transports.http_client import EgressBlocked
from deputy.vault import KdfCost, Vault

pytestmark = pytest.mark.browser


def submit(runners: WebRunners, user_id: int, operation: str = "submit_form", **arguments: object):  # type: ignore[no-untyped-def]
    return getattr(runners, operation)(make_action(operation, dict(arguments), user_id), "key")


def test_fill_then_submit_reads_the_confirmation(runners: WebRunners, site: Site, user_id: int) -> None:
    page, action = site.url("/form"), site.url("/order")
    filled = runners.fill_form(
        make_action(
            "fill_form", {"url": page, "fields": {"name": "Ann", "size": "Large", "extra_cheese": "yes"}}, user_id
        ),
        "key",
    )
    assert filled.summary == f"Filled name, size, extra_cheese in Form 1 (id=order) on {page}. Nothing was sent yet."
    assert not [p for p in site.posts if p.get("name") == "Ann"]  # filling sends nothing

    result = submit(runners, user_id, url=page, action_url=action)
    assert result.untrusted_origin == f"the web page {action}"
    assert result.summary.startswith(f"Sent the form to {action}. The page that came back:\nTitle: Thanks")
    assert "# Thank you, Ann!" in result.summary
    assert "Your large pizza with extra cheese is on its way." in result.summary
    assert {"name": "Ann", "size": "l", "extra_cheese": "on", "price": "12"} in site.posts


def test_submit_can_carry_its_own_values(runners: WebRunners, site: Site, user_id: int) -> None:
    result = submit(
        runners,
        user_id,
        url=site.url("/form"),
        action_url=site.url("/order"),
        fields={"Your name": "Bo", "size": "s"},
        button="Place order",
    )
    assert "# Thank you, Bo!" in result.summary and "small pizza is on its way" in result.summary


def test_the_action_url_must_be_the_one_the_form_really_uses(runners: WebRunners, site: Site, user_id: int) -> None:
    with pytest.raises(ConnectorRejected, match=f"That form sends to {site.url('/order')}, not to"):
        submit(runners, user_id, url=site.url("/form"), action_url=site.url("/elsewhere"), fields={"name": "X"})


def test_sensitive_forms_need_the_sensitive_operation(runners: WebRunners, site: Site, user_id: int) -> None:
    with pytest.raises(ConnectorRejected, match=r"sensitive \(it asks for payment details\).*submit_sensitive_form"):
        submit(runners, user_id, url=site.url("/checkout"), action_url=site.url("/pay"))
    other = f"http://other.example:{site.port}/signup"
    with pytest.raises(ConnectorRejected, match="it sends to other.example, another site than the page"):
        submit(runners, user_id, url=site.url("/newsletter"), action_url=other, fields={"email": "a@b.example"})
    # The sensitive operation may send it; the egress policy still decides where data goes.
    with pytest.raises(EgressBlocked, match="other.example is not one of them"):
        submit(
            runners,
            user_id,
            "submit_sensitive_form",
            url=site.url("/newsletter"),
            action_url=other,
            fields={"email": "a@b.example"},
        )
    assert not [hit for hit in site.hits if hit.startswith("other.example")]


def test_a_script_redirecting_the_submission_is_stopped(runners: WebRunners, site: Site, user_id: int) -> None:
    with pytest.raises(EgressBlocked, match="The form tried to go to 127.0.0.2 instead of the address"):
        submit(runners, user_id, url=site.url("/survey"), action_url=site.url("/order"), fields={"name": "Zed"})
    assert not [p for p in site.posts if p.get("name") == "Zed"]


def test_hidden_and_password_fields_are_off_limits(runners: WebRunners, site: Site, user_id: int) -> None:
    fill = runners.fill_form
    with pytest.raises(ConnectorRejected, match="has no field 'price'"):  # hidden inputs are not even listed
        fill(make_action("fill_form", {"url": site.url("/form"), "fields": {"price": "0"}}, user_id), "key")
    with pytest.raises(ConnectorRejected, match="password field: fill it with <vault:password>"):
        fill(make_action("fill_form", {"url": site.url("/login"), "fields": {"pass": "guess"}}, user_id), "key")
    with pytest.raises(ConnectorRejected, match="'Huge' is not one of the options of 'size' \\(Small, Large\\)"):
        fill(make_action("fill_form", {"url": site.url("/form"), "fields": {"size": "Huge"}}, user_id), "key")


def test_a_saved_login_is_used_without_the_agent_seeing_it(
    site: Site, redis: Redis, tmp_path: Path, sessions: BrowserSessions
) -> None:
    vault = Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1)
    )
    vault.put(777, "cred:web/127.0.0.1", SecretStr(LOGIN_PASSWORD), "password", "Local site", {"username": "alice"})
    runners = WebRunners(
        sessions,
        lambda action: reviewer(POLICY, EgressContext()),

        search_url=site.url("/search?q={query}"),
        logins=VaultLogins(vault),
    )
    # With a login saved, the sign-in page is just a page with a sensitive form.
    page = runners.open_page(make_action("open_page", {"url": site.url("/login")}, 777), "key").summary
    assert "submit with submit_sensitive_form" in page
    fields = {"user": "<vault:username>", "pass": "<vault:password>"}
    with pytest.raises(ConnectorRejected, match="contains a password field"):
        submit(runners, 777, url=site.url("/login"), action_url=site.url("/session"), fields=fields)
    result = submit(
        runners, 777, "submit_sensitive_form", url=site.url("/login"), action_url=site.url("/session"), fields=fields
    )
    assert "# Welcome, alice" in result.summary
    assert LOGIN_PASSWORD not in result.summary and "You typed *** and it worked." in result.summary
    assert {"user": "alice", "pass": LOGIN_PASSWORD} in site.posts
    # Another user has no login for the site: the same request needs that user.
    with pytest.raises(NeedsHuman, match="no login for it is saved"):
        submit(
            runners,
            778,
            "submit_sensitive_form",
            url=site.url("/login"),
            action_url=site.url("/session"),
            fields=fields,
        )
