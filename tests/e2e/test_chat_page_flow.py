"""The whole spine from the web chat page, in real headless Chromium."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect, sync_playwright
from tests_support import BODY, GOAL

from deputy.testing.stack import DeputyStack
from deputy.sandbox.mail import LocalMailServer

pytestmark = pytest.mark.browser

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
]


def test_type_a_goal_approve_the_card_and_see_the_result(stack: DeputyStack, mail_server: LocalMailServer) -> None:
    stack.user(1, "Demo", asks_before_sending=True)  # the page's first user wants a card before every message
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(stack.chat_url)
            page.fill("#composer", GOAL)
            page.click("#send")

            bot = page.locator('.message[data-from="bot"]')
            expect(bot.filter(has_text="background").first).to_be_visible(timeout=15_000)
            card = bot.filter(has_text="Why I'm asking")
            expect(card).to_have_count(1, timeout=15_000)
            expect(card).to_contain_text("To: alice@example.org")
            expect(card).to_contain_text(BODY)

            card.locator("button.inline-button", has_text="Approve").click()
            expect(bot.filter(has_text="Done: I emailed Alice")).to_be_visible(timeout=15_000)
            expect(card).to_contain_text("Approved")
            expect(card.locator("button.inline-button")).to_have_count(0)
        finally:
            browser.close()
    assert len(mail_server.wait_for(1, address="alice@example.org")) == 1
