"""WhatsApp end to end: the local WhatsApp emulator delivers signed webhooks to the WhatsApp
surface, which runs the bot's own handlers; real Redis, workers, executor and SMTP.

A goal becomes a card with reply buttons and Approve sends exactly one email; a forged
signature is refused and nothing happens; a delivery made twice is answered once; news after
a day of silence goes out as the approved template; linking Telegram and WhatsApp shares
goals and memory.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import pytest
from redis import Redis
from tests_support import BODY, GOAL, SUBJECT, email_script, tiny_pdf

from deputy.agent.goals import GoalStore
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, goal_text, tool_call
from deputy.core.records.outbox import Outbox
from deputy.core.accounts.surfaces import default_account
from deputy.testing.stack import DeputyStack, RedisServer, ask_before_sending
from deputy.testing.whatsapp_stack import WhatsAppUser
from deputy.sandbox.mail import LocalMailServer
from deputy.whatsapp.sender import FIRST_CONTACT_NOTICE


@pytest.fixture
def wa_stack(redis_server: RedisServer, redis: Redis, model_server: ScriptedModelServer,
             smtp_env: dict[str, str], tmp_path: Path) -> Iterator[DeputyStack]:
    model_server.responder = email_script
    deputy = DeputyStack(redis_server.url, model_server.base_url, tmp_path / "stack", smtp=smtp_env,
                         whatsapp=True).start()
    yield deputy
    deputy.stop()


def wa_user(stack: DeputyStack, wa_id: str, name: str = "Wanda") -> WhatsAppUser:
    return WhatsAppUser(stack.wa_chat_url, wa_id, name)


def test_a_goal_becomes_a_card_with_reply_buttons_and_approve_sends_one_email(
        wa_stack: DeputyStack, redis: Redis, mail_server: LocalMailServer) -> None:
    wa_id = "15550001001"
    ask_before_sending(redis, default_account(wa_id))
    user = wa_user(wa_stack, wa_id)
    sent = user.send(GOAL)
    assert sent["status"] == 200
    user.wait_for_bot(lambda m: "background" in m["text"])  # handled after the webhook answered
    first, ack = user.bot_messages()[:2]
    assert first["text"] == FIRST_CONTACT_NOTICE, "told once, on first contact, how news comes after a day"
    assert "background" in ack["text"]

    card = user.wait_for_card(timeout=40)
    assert card["type"] == "interactive" and f"Subject: {SUBJECT}" in card["text"]
    assert [b["title"] for b in card["buttons"]][:2] == ["Approve", "Deny"]
    assert all(len(b["title"]) <= 20 for b in card["buttons"]) and len(card["buttons"]) <= 3
    assert mail_server.messages() == []

    assert user.press(card, "Approve")["status"] == 200
    done = user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=card["seq"], timeout=40)
    assert "Alice" in done["text"]
    received = mail_server.wait_for(1, address="alice@example.org")
    assert received[0].subject == SUBJECT and BODY in received[0].body
    said = [m["text"] for m in user.bot_messages(after=card["seq"])]
    assert any("Approved" in text for text in said), "the decision is said in the chat (WhatsApp cannot edit)"

    again = user.bot_messages()[-1]["seq"]
    assert user.press(card, "Approve")["status"] == 200  # a second tap on the same card
    user.wait_for_bot(lambda m: True, after=again)  # whatever it answers, it answers
    assert len(mail_server.messages()) == 1, "the approved action ran exactly once"
    assert len([m for m in user.bot_messages() if m["text"] == FIRST_CONTACT_NOTICE]) == 1


def test_a_forged_or_missing_signature_is_refused_and_nothing_happens(wa_stack: DeputyStack, redis: Redis) -> None:
    wa_id = "15550001002"
    user = wa_user(wa_stack, wa_id)
    assert user.send(GOAL, signature="bad")["statuses"] == [403]
    assert user.send(GOAL, signature="none")["statuses"] == [401]
    assert user.bot_messages() == []
    assert GoalStore(redis).recent(default_account(wa_id)) == []
    assert redis.get(f"deputy:wa:number:{default_account(wa_id)}") is None, "not even the sender was recorded"


def test_a_delivery_made_twice_is_answered_once(wa_stack: DeputyStack, redis: Redis) -> None:
    wa_id = "15550001003"
    user = wa_user(wa_stack, wa_id)
    assert user.send(GOAL, duplicate=True)["statuses"] == [200, 200]
    user.wait_for_bot(lambda m: "background" in m["text"])
    user.send("/goals")  # handled after the duplicate, in order: once it is answered, the duplicate would be too
    user.wait_for_bot(lambda m: "Your recent goals" in m["text"])
    acks = [m for m in user.bot_messages() if "background" in m["text"]]
    assert len(acks) == 1
    assert len(GoalStore(redis).recent(default_account(wa_id))) == 1


def test_news_after_a_day_of_silence_goes_out_as_the_approved_template(wa_stack: DeputyStack, redis: Redis) -> None:
    wa_id = "15550001004"
    user = wa_user(wa_stack, wa_id)
    user.send("/goals")
    user.wait_for_bot(lambda m: "goals" in m["text"].lower())
    within = user.last_seq()
    Outbox(redis).send(default_account(wa_id), "Check-in: the price you watch is unchanged.", proactive=True)
    news = user.wait_for_bot(lambda m: "Check-in" in m["text"], after=within)
    assert news["type"] == "text" and news["template"] is None, "within the window: a plain message"

    user.fall_silent(hours=25, redis=redis)
    silent = user.last_seq()
    Outbox(redis).send(default_account(wa_id), "Check-in: the price dropped to 80 EUR.\nWant me to buy?",
                       proactive=True)
    news = user.wait_for_bot(lambda m: "dropped" in m["text"], after=silent)
    assert news["type"] == "template" and news["template"] == "deputy_checkin"
    assert news["status"] != "failed" and "80 EUR" in news["text"]
    assert not [m for m in user.bot_messages(after=silent) if m["status"] == "failed"]


def link_script(request: ChatRequest) -> ModelReply:
    goal = goal_text(request.messages)
    if request.messages[-1].get("role") == "tool":
        return tool_call("reply", text="Noted.")
    if goal.startswith("remember"):
        return tool_call("remember", text=goal.removeprefix("remember ").strip(), kind="preference")
    return tool_call("reply", text="Hello from Deputy!")


def test_linking_telegram_and_whatsapp_shares_goals_and_memory(
        wa_stack: DeputyStack, redis: Redis, model_server: ScriptedModelServer) -> None:
    model_server.responder = link_script
    telegram = wa_stack.user(905, "Tess")
    whatsapp = wa_user(wa_stack, "15550001005", "Tess")
    whatsapp.send("hi")  # WhatsApp knows the number now
    whatsapp.wait_for_bot(lambda m: m["text"].startswith("Hello from Deputy"), timeout=40)

    sent = telegram.send("/link")
    shown = telegram.wait_for_bot(lambda m: "link code" in m["text"], after=sent)
    code = re.search(r"/link ([A-Z0-9]+)", shown["text"]).group(1)
    before = whatsapp.last_seq()
    whatsapp.send(f"/link {code}")
    assert "Linked" in whatsapp.wait_for_bot(lambda m: True, after=before)["text"]

    before = whatsapp.last_seq()
    whatsapp.send("remember I'm vegetarian")
    noted = whatsapp.wait_for_bot(lambda m: m["text"].startswith("Noted."), after=before, timeout=40)
    assert "vegetarian" in noted["text"], "news goes to the app the user last wrote from"

    sent = telegram.send("/goals")
    goals = telegram.wait_for_bot(lambda m: "Your recent goals" in m["text"], after=sent)
    assert "remember I'm vegetarian" in goals["text"], "a goal started on WhatsApp shows on Telegram"
    sent = telegram.send("/memory")
    memory = telegram.wait_for_bot(lambda m: "What I remember" in m["text"], after=sent)
    assert "I'm vegetarian" in memory["text"]

    # The user last wrote on Telegram: news goes there now, and only there.
    wa_before = whatsapp.last_seq()
    Outbox(redis).send(905, "News: the table for two is booked.", proactive=True)
    telegram.wait_for_bot(lambda m: m["text"].startswith("News: the table"), after=sent)
    whatsapp.send("/activity")
    assert not [m for m in whatsapp.bot_messages(after=wa_before) if "the table" in m["text"]]

    # The code was single use.
    other = wa_user(wa_stack, "15550001006")
    other.send("hi")
    other.wait_for_bot(lambda m: m["text"].startswith("Hello from Deputy"), timeout=40)
    before = other.last_seq()
    other.send(f"/link {code}")
    assert "unknown or has expired" in other.wait_for_bot(lambda m: True, after=before)["text"]


def test_files_in_and_out_and_the_command_menu(
        wa_stack: DeputyStack, redis: Redis, model_server: ScriptedModelServer) -> None:
    model_server.responder = lambda request: tool_call("reply", text="Shopping list: pasta, basil.")
    user = wa_user(wa_stack, "15550001007")
    user.send_file("recipe.pdf", "application/pdf", tiny_pdf("Pesto pasta: basil, pine nuts"), "a shopping list please")
    user.wait_for_bot(lambda m: m["text"].startswith("Shopping list"), timeout=40)
    [request] = model_server.requests
    assert "pine nuts" in request.prompt_text(), "the file was downloaded through the Graph API and read"

    before = user.last_seq()
    user.send("/export")
    export = user.wait_for_bot(lambda m: m["type"] == "document", after=before)
    assert export["media"]["filename"] == "deputy-export.json" and "Everything I store" in export["text"]

    before = user.last_seq()
    user.send("menu")
    menu = user.wait_for_bot(lambda m: m["list"] is not None, after=before)
    rows = [r["title"] for m in user.bot_messages(after=before) if m["list"] for r in m["list"]["rows"]]
    assert "/goals" in rows and "/link" in rows
    before = user.last_seq()
    user.press(menu, "/goals")
    goals = user.wait_for_bot(lambda m: "Your recent goals" in m["text"], after=before)
    assert "a shopping list please" in goals["text"]


def test_a_message_whatsapp_refuses_as_outside_the_window_goes_again_as_the_template(
        wa_stack: DeputyStack, redis: Redis) -> None:
    wa_id = "15550001008"
    user = wa_user(wa_stack, wa_id)
    user.send("/goals")
    user.wait_for_bot(lambda m: "goals" in m["text"].lower())
    user.fall_silent(hours=30)  # WhatsApp's clock says a day passed; Deputy's does not know
    before = user.last_seq()
    Outbox(redis).send(default_account(wa_id), "Check-in: your parcel arrived.", proactive=True)
    again = user.wait_for_bot(lambda m: m["type"] == "template", after=before)
    assert "parcel arrived" in again["text"]
    refused = [m for m in user.bot_messages(after=before) if m["status"] == "failed"]
    assert len(refused) == 1 and refused[0]["type"] == "text"
    assert redis.get(f"deputy:wa:last_in:{wa_id}") is None, "from now on, news goes as the template at once"


def test_a_pasted_password_is_kept_from_the_model_and_the_user_is_told_truly_it_stays_in_their_chat(
        wa_stack: DeputyStack, redis: Redis, model_server: ScriptedModelServer) -> None:
    user = wa_user(wa_stack, "15550001009")
    sent = user.send("my netflix password is Gr33nTea-4417!")
    assert sent["status"] == 200
    notice = user.wait_for_bot(lambda m: "password" in m["text"])["text"]
    assert "I deleted" not in notice and "does not let me delete it" in notice and "delete it yourself" in notice
    assert "Gr33nTea-4417!" not in repr([r.model_dump() for r in model_server.requests])
    assert not [k for k in redis.scan_iter("*") if redis.type(k) == b"string" and b"Gr33nTea" in redis.get(k)]


def test_a_username_user_without_a_phone_number_gets_their_goal_handled(wa_stack: DeputyStack, redis: Redis) -> None:
    user = wa_user(wa_stack, "US.13491208655302741918", "Una")
    assert user.send(GOAL)["status"] == 200
    ack = user.wait_for_bot(lambda m: "background" in m["text"])
    assert ack["status"] != "failed", "answered through the user id (WhatsApp's `recipient`)"
    account = int(redis.get("deputy:wa:account:US.13491208655302741918"))
    assert len(GoalStore(redis).recent(account)) == 1
    user.send("/goals")
    user.wait_for_bot(lambda m: "Your recent goals" in m["text"])
    assert int(redis.get("deputy:wa:account:US.13491208655302741918")) == account, "one account, every time"
