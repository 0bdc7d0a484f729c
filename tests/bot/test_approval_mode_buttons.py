"""The one setting for messages, chosen with the buttons /settings (and /start) shows.

What the user notices: after "Ask before every message", the email they asked for to the
person they named waits for a card; after "Only when I didn't name the recipient" it goes
at once. Real bot press handling, records, runner, executor and guard on real Redis.
"""

from __future__ import annotations

from typing import Any

import pytest
from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import FunctionModel, message_text, tool_call
from deputy.bot.approval_mode_view import mode_buttons
from deputy.bot.presses import decide_press
from deputy.bot.services import BotServices
from deputy.connectors.default import default_catalog
from deputy.core.accounts.approval_mode import ApprovalMode
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.testing.inline import InlineDeputy

USER = 4401
NOW = 1_700_000_000.0
EMAIL = {"to": ["alice@example.org"], "subject": "Running late", "body": "Hi Alice, I'll be 10 minutes late."}


def email_then_report(messages: list[dict[str, Any]], tools: list) -> ModelReply:
    if messages[-1]["role"] == "tool":
        return tool_call("reply", text=f"Done: {message_text(messages[-1])}")
    return tool_call("send_email", **EMAIL)


@pytest.fixture
def services(redis: Redis) -> BotServices:
    services = BotServices.create(redis, "settings-test-secret", None)
    services.clock = lambda: NOW
    return services


def choose(services: BotServices, mode: ApprovalMode) -> str:
    """Press the button the user sees for `mode` under /settings."""
    rows = mode_buttons(services, USER, UserSettingsStore(services.redis).get(USER).approval_mode).inline_keyboard
    data = next(row[0].callback_data for row in rows if row[0].callback_data.split(":")[1] == mode.value)
    return decide_press(services, data, USER).card_suffix or ""


@pytest.mark.parametrize(("mode", "cards"), [(ApprovalMode.every_message, 1), (ApprovalMode.unnamed, 0)])
def test_the_chosen_setting_decides_whether_the_email_waits_for_a_card(
        redis: Redis, services: BotServices, mode: ApprovalMode, cards: int) -> None:
    said = choose(services, mode)
    assert "still wait for your OK" in said
    sent: list[str] = []
    deputy = InlineDeputy(redis, FunctionModel(email_then_report), default_catalog(),
                          {"email.send_email": lambda action, key: sent.append(key) or "sent"},
                          clock=ManualClock(NOW))
    deputy.start(USER, "email alice@example.org that I'll be 10 minutes late")
    assert len(deputy.cards()) == cards
    assert len(sent) == 1 - cards
    if cards:
        assert "You chose to be asked before every message" in deputy.cards()[0].text


def test_a_button_of_another_user_changes_nothing(services: BotServices) -> None:
    data = services.buttons.data("ap", ApprovalMode.every_message.value, USER + 1)
    decide_press(services, data, USER)
    assert UserSettingsStore(services.redis).get(USER).approval_mode is ApprovalMode.unnamed


@pytest.mark.parametrize(("mode", "offered"), [(ApprovalMode.every_message, False), (ApprovalMode.unnamed, True)])
def test_a_message_card_offers_always_allow_only_when_the_setting_does_not_ask_before_every_message(
        redis: Redis, services: BotServices, mode: ApprovalMode, offered: bool) -> None:
    # Writing to Alice is Deputy's idea here (she is not named as someone to write to): a card either way.
    choose(services, mode)
    deputy = InlineDeputy(redis, FunctionModel(email_then_report), default_catalog(),
                          {"email.send_email": lambda action, key: "sent"}, clock=ManualClock(NOW))
    deputy.start(USER, "alice@example.org is waiting for me: I'll be 10 minutes late")
    [card] = deputy.cards()
    labels = [button.text for row in card.buttons for button in row]
    assert labels[:2] == ["Approve", "Deny"]
    assert ("Always allow this" in labels) is offered, "a card before every message, and no rule that skips it"
