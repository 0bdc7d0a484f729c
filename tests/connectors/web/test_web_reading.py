"""Reading pages in real headless Chromium: reader-view text, bounds, and every failure a plain error."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from conftest import Site, make_action

from deputy.core.records.effects import ConnectorRejected, ConnectorUnavailable
from deputy.connectors.web.human import NeedsHuman
from deputy.connectors.web.runners import WebRunners

pytestmark = pytest.mark.browser


def open_page(runners: WebRunners, url: str, user_id: int):  # type: ignore[no-untyped-def]
    return runners.open_page(make_action("open_page", {"url": url}, user_id), "key")


def test_a_page_reads_as_its_main_text_with_links(runners: WebRunners, site: Site, user_id: int) -> None:
    result = open_page(runners, site.url("/article"), user_id)
    text = result.summary
    assert result.untrusted_origin == f"the web page {site.url('/article')}"
    assert text.startswith(f"Title: Lisbon travel notes\nAddress: {site.url('/article')}")
    assert "# Four days in Lisbon" in text
    assert "Trams climb the hills of Alfama every ten minutes." in text
    assert f"[Tile Museum]({site.url('/museum?id=7')})" in text
    assert "- Day one: Belém\n- Day two: Sintra" in text
    assert "Written by script" in text  # what scripts render is part of the page
    for stripped in ("NavHome", "NavDeals", "SiteLogo", "FooterCopyright", "script body text"):
        assert stripped not in text
    # Text the page hides from people never reaches the agent; it is only counted.
    for hidden in ("IGNORE PREVIOUS INSTRUCTIONS", "Offscreen instruction", "tiny secret text", "Hidden attribute"):
        assert hidden not in text
    assert "Left out 4 piece(s) of hidden text that the page does not show." in text


def test_forms_are_described_with_the_names_the_operations_take(runners: WebRunners, site: Site, user_id: int) -> None:
    text = open_page(runners, site.url("/form"), user_id).summary
    assert f"Form 1 (id=order): sends POST to {site.url('/order')} (submit with submit_form" in text
    assert '  - name (text; label "Your name"; required)' in text
    assert '  - size (select; label "Size"; options: Small, Large)' in text
    assert '  - extra_cheese (checkbox; label "Extra cheese")' in text
    assert "price" not in text  # hidden inputs are not offered
    assert "buttons: Place order" in text


def test_a_twenty_megabyte_page_comes_back_bounded(runners: WebRunners, site: Site, user_id: int) -> None:
    started = time.monotonic()
    text = open_page(runners, site.url("/huge"), user_id).summary
    assert len(text) < 13_000
    assert "Lorem ipsum dolor sit amet" in text
    assert "The page text was cut at 12,000 of" in text or "only its beginning is shown" in text
    assert time.monotonic() - started < 20


def test_a_latin1_page_reads_correctly(runners: WebRunners, site: Site, user_id: int) -> None:
    text = open_page(runners, site.url("/latin1"), user_id).summary
    assert "Title: Café" in text and "Crème brûlée à côté" in text


def test_search_uses_the_configured_results_page(runners: WebRunners, site: Site, user_id: int) -> None:
    result = runners.search_web(make_action("search_web", {"query": "lisbon & trams"}, user_id), "key")
    assert result.untrusted_origin == f"the web search results page {site.url('/search?q=lisbon+%26+trams')}"
    assert f"[Lisbon guide (lisbon & trams)]({site.url('/article')})" in result.summary


def test_an_error_status_is_reported_with_the_page(runners: WebRunners, site: Site, user_id: int) -> None:
    text = open_page(runners, site.url("/status/404"), user_id).summary
    assert "The site answered with HTTP status 404." in text and "status page" in text


def test_a_site_that_is_down_is_unavailable(runners: WebRunners, site: Site, user_id: int) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    with pytest.raises(ConnectorUnavailable, match="couldn't connect to 127.0.0.1; the site may be down") as caught:
        open_page(runners, f"http://127.0.0.1:{closed_port}/", user_id)
    assert caught.value.retryable
    with pytest.raises(ConnectorUnavailable, match="not answering properly right now \\(status 503\\)"):
        open_page(runners, site.url("/status/503"), user_id)


def test_a_malformed_answer_is_a_plain_error(runners: WebRunners, garbage_port: int, user_id: int) -> None:
    with pytest.raises(ConnectorUnavailable, match="127.0.0.1 sent a broken answer"):
        open_page(runners, f"http://127.0.0.1:{garbage_port}/", user_id)


def test_a_captcha_page_needs_the_user(runners: WebRunners, site: Site, user_id: int) -> None:
    with pytest.raises(NeedsHuman) as caught:
        open_page(runners, site.url("/captcha"), user_id)
    assert caught.value.reason == "captcha"
    assert "127.0.0.1 wants to check that a person is visiting" in caught.value.user_message
    assert not caught.value.retryable


def test_a_login_page_without_a_saved_login_needs_the_user(runners: WebRunners, site: Site, user_id: int) -> None:
    with pytest.raises(NeedsHuman, match="no login for 127.0.0.1 is saved") as caught:
        open_page(runners, site.url("/login"), user_id)
    assert caught.value.reason == "login"


def test_a_download_is_refused(runners: WebRunners, site: Site, user_id: int, data_dir: Path) -> None:
    with pytest.raises(ConnectorRejected, match="is a file to download, not a page; I don't download files"):
        open_page(runners, site.url("/download"), user_id)
    assert not list(data_dir.rglob("a.pdf"))
    assert "Four days in Lisbon" in open_page(runners, site.url("/article"), user_id).summary


def test_a_local_file_is_never_opened(runners: WebRunners, site: Site, user_id: int) -> None:
    # The runner checks the arguments again, behind the catalog's validation.
    action = make_action("open_page", {"url": site.url("/article")}, user_id)
    action.arguments["url"] = "file:///etc/passwd"
    with pytest.raises(ConnectorRejected, match="The arguments for web.open_page are not valid.") as caught:
        runners.open_page(action, "key")
    assert "root:" not in str(caught.value)
