"""Rules from the chat: "Always allow this", rules in plain words, /rules, /audit, /activity."""

from __future__ import annotations

from tests_support import email_script

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, tool_call
from deputy.testing.stack import DeputyStack
from deputy.sandbox.mail import LocalMailServer


def rule_or_email_script(request: ChatRequest) -> ModelReply:
    """Reads rule sentences as "allow emailing alice@example.org"; otherwise emails Alice."""
    if any(tool["function"]["name"] == "define_rule" for tool in request.tools or []):
        return tool_call(
            "define_rule",
            verdict="allow",
            scope={"effects": ["communicate"], "operations": ["send_email"]},
            conditions={"target_in": ["alice@example.org"]},
        )
    return email_script(request)


def done(user, after: int) -> dict:
    return user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=after)


# The user never says to email Alice: writing to her is Deputy's idea, so by default it asks.
UNSAID = "alice@example.org is waiting for me: I'll be 10 minutes late"


def test_always_allow_stops_asking_for_exactly_that_and_can_be_removed(
    stack: DeputyStack, mail_server: LocalMailServer
) -> None:
    user = stack.user(301)
    sent = user.send(UNSAID)
    card = user.wait_for_card(after=sent)
    assert [b["text"] for row in card["buttons"] for b in row] == ["Approve", "Deny", "Always allow this"]
    user.press(card["message_id"], button="Always allow this")
    assert "won't ask again" in user.wait_for_answer(1)["text"]
    first_done = done(user, card["message_id"])
    mail_server.wait_for(1)

    sent = user.send(UNSAID)
    second_done = done(user, sent)
    assert len(mail_server.wait_for(2)) == 2
    assert not [m for m in user.bot_messages(after=sent) if m["buttons"] and m["message_id"] < second_done["message_id"]]

    sent = user.send("/rules")
    listing = user.wait_for_bot(lambda m: "Your rules" in m["text"], after=sent)
    assert "alice@example.org" in listing["text"]
    user.press(listing["message_id"], button="Remove 1")
    assert "removed" in user.wait_for_answer(2)["text"].lower()

    sent = user.send(UNSAID)
    assert user.wait_for_card(after=sent)
    assert len(mail_server.messages()) == 2
    assert first_done["message_id"] < second_done["message_id"]


def test_a_rule_in_plain_words_is_confirmed_then_enforced(
    stack: DeputyStack, mail_server: LocalMailServer, model_server
) -> None:
    model_server.responder = rule_or_email_script
    user = stack.user(302)
    sent = user.send("/rules you may email alice@example.org without asking")
    proposal = user.wait_for_bot(lambda m: "I read your rule as" in m["text"], after=sent)
    assert "alice@example.org" in proposal["text"]
    assert [b["text"] for row in proposal["buttons"] for b in row] == ["Save rule", "Cancel"]

    # A stranger replaying the Save button's data is refused; the rule is not saved by it.
    stranger = stack.user(303)
    hello = stranger.send("/start")
    greeting = stranger.wait_for_bot(lambda m: True, after=hello)
    stranger.press(greeting["message_id"], data=proposal["buttons"][0][0]["data"])
    assert "isn't valid" in stranger.wait_for_answer(1)["text"]

    user.press(proposal["message_id"], button="Save rule")
    assert "saved" in user.wait_for_answer(1)["text"].lower()

    sent = user.send(UNSAID)  # without the rule this would ask (see the test above)
    done(user, sent)
    assert len(mail_server.wait_for(1)) == 1
    assert not [m for m in user.bot_messages(after=sent) if m["buttons"]]

    sent = user.send("/audit")
    audit = user.wait_for_bot(lambda m: "Recent decisions" in m["text"], after=sent)
    assert "rule added" in audit["text"] and "email.send_email" in audit["text"] and "intact" in audit["text"]

    sent = user.send("/activity")
    activity = user.wait_for_bot(lambda m: "Done:" in m["text"], after=sent)
    assert "alice@example.org" in activity["text"]
