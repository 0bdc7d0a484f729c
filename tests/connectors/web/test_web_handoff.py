"""Pages only the user can get past, on the sandbox shop, in real Chromium: detected, pictured, and the
user's code typed in by the executor without passing through the agent."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import POLICY, fresh_user_id, make_action

from deputy.connectors.web.browser import BrowserSessions
from deputy.connectors.web.human import NeedsHuman
from deputy.connectors.web.runners import WebRunners
from deputy.connectors.web.human import CodeEntry
from deputy.sandbox import shop
from deputy.sandbox.account_pages import ACCOUNT, AccountDesk
from deputy.sandbox.webapp_common import SiteServer
from deputy.sentinel.egress.policy import EgressContext, reviewer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def shop_site() -> Iterator[tuple[str, AccountDesk]]:
    app = shop.create_app()
    server = SiteServer(app)
    url = server.start()
    yield url, app[ACCOUNT]
    server.stop()


def _runners(sessions: BrowserSessions, data_dir, recorded: list | None = None) -> WebRunners:  # type: ignore[no-untyped-def]
    def record(action, needed):  # type: ignore[no-untyped-def]
        assert recorded is not None
        recorded.append((action.id, needed))
        return "This page needs the user (a verification code)."

    return WebRunners(sessions, lambda action: reviewer(POLICY, EgressContext()),
                      handoffs=record if recorded is not None else None)


def _sign_in_asks_for_a_code(runners: WebRunners, url: str, user_id: int) -> NeedsHuman:
    action = make_action("submit_form", {"url": f"{url}/account/login", "action_url": f"{url}/account/login",
                                         "fields": {"email": "demo@sandbox.local"}}, user_id)
    with pytest.raises(NeedsHuman) as caught:
        runners.submit_form(action, action.id)
    return caught.value


def test_a_code_sign_in_is_handed_to_the_user_and_their_code_is_typed_in(
    sessions: BrowserSessions, data_dir, shop_site: tuple[str, AccountDesk]  # type: ignore[no-untyped-def]
) -> None:
    url, desk = shop_site
    runners, user_id = _runners(sessions, data_dir), fresh_user_id()
    needed = _sign_in_asks_for_a_code(runners, url, user_id)
    assert needed.reason == "two_factor" and needed.url == f"{url}/account/verify"
    assert needed.entry == CodeEntry(form=1, field="otp", label="Verification code")
    assert needed.screenshot is not None and needed.screenshot.startswith(b"\x89PNG")

    # A wrong code: the page asks again, and says so.
    step = make_action("open_page", {"url": needed.url}, user_id)
    with pytest.raises(NeedsHuman) as again:
        runners.enter_code(step, needed.url, needed.entry, "000000" if desk.last_code() != "000000" else "111111")
    assert again.value.reason == "two_factor"

    # The code from the user's phone signs the browser in.
    code = desk.last_code()
    assert code is not None
    landed = runners.enter_code(step, needed.url, needed.entry, code)
    assert landed == f"{url}/account"
    page = runners.open_page(make_action("open_page", {"url": f"{url}/account"}, user_id), "k")
    assert "Signed in as demo@sandbox.local" in page.summary and code not in page.summary


def test_a_captcha_answer_is_typed_in_and_the_page_lets_the_browser_through(
    sessions: BrowserSessions, data_dir, shop_site: tuple[str, AccountDesk]  # type: ignore[no-untyped-def]
) -> None:
    url, desk = shop_site
    runners, user_id = _runners(sessions, data_dir), fresh_user_id()
    with pytest.raises(NeedsHuman) as caught:
        runners.open_page(make_action("open_page", {"url": f"{url}/deals"}, user_id), "k")
    needed = caught.value
    assert needed.reason == "captcha" and needed.url == f"{url}/human-check"
    assert needed.entry is not None and needed.entry.field == "captcha_answer"
    assert needed.screenshot is not None
    answer = list(desk.challenges.values())[-1]  # what the person reads in the picture
    step = make_action("open_page", {"url": needed.url}, user_id)
    assert runners.enter_code(step, needed.url, needed.entry, answer.lower()) == f"{url}/deals"
    assert "Espresso machine: 20% off" in runners.open_page(
        make_action("open_page", {"url": f"{url}/deals"}, user_id), "k2").summary


def test_with_a_hand_off_recorder_the_agent_is_told_to_wait_instead_of_failing(
    sessions: BrowserSessions, data_dir, shop_site: tuple[str, AccountDesk]  # type: ignore[no-untyped-def]
) -> None:
    url, _ = shop_site
    recorded: list = []
    runners, user_id = _runners(sessions, data_dir, recorded), fresh_user_id()
    action = make_action("open_page", {"url": f"{url}/deals"}, user_id)
    result = runners.runners()["web.open_page"](action, action.id)
    assert result.summary == "This page needs the user (a verification code)."
    assert result.untrusted_origin == f"the web page {url}/human-check"
    assert [(a, n.reason) for a, n in recorded] == [(action.id, "captcha")]
