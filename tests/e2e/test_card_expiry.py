"""An unanswered card expires on its own: the card says so and the agent moves on."""

from __future__ import annotations

import pytest
from tests_support import GOAL

from deputy.testing.stack import DeputyStack
from deputy.sandbox.mail import LocalMailServer


@pytest.fixture
def stack_env() -> dict[str, str]:
    return {"DEPUTY_APPROVAL_TTL": "2"}


def test_an_unanswered_card_expires_and_nothing_is_sent(stack: DeputyStack, mail_server: LocalMailServer) -> None:
    user = stack.user(401, asks_before_sending=True)
    sent = user.send(GOAL)
    card = user.wait_for_card(after=sent)
    expired = user.wait_for_bot(lambda m: m["message_id"] == card["message_id"] and "expired" in m["text"],
                                timeout=30)
    assert expired["buttons"] == []
    told = user.wait_for_bot(lambda m: "expired" in m["text"] and m["message_id"] > card["message_id"], timeout=30)
    assert told is not None
    user.press(card["message_id"], data=card["buttons"][0][0]["data"])
    assert "expired" in user.wait_for_answer(1)["text"]
    assert mail_server.messages() == []
