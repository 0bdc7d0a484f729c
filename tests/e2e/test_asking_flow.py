"""Ask instead of inventing, through the whole of Deputy: real bot, workers, executor and chat.

The user names a person only by their role; the scripted model makes up an address. The
user gets a question in the chat, never an approval card for the made-up address; their
answer resumes the goal, and the card that follows is for the address they gave.
"""

from __future__ import annotations

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, message_text, tool_call
from deputy.testing.stack import DeputyStack

INVENTED, REAL = "plumber@pipes-made-up.example", "joe@quickfix.example"
EMAIL = {"subject": "Leaking boiler", "body": "Hi, the boiler is leaking again. Could you come by?"}


def script(request: ChatRequest) -> ModelReply:
    said = " ".join(message_text(m) for m in request.messages if m.get("role") == "user")
    if REAL in said:
        return tool_call("send_email", to=[REAL], **EMAIL)
    if not any(m.get("role") == "tool" for m in request.messages):
        return tool_call("send_email", to=[INVENTED], **EMAIL)
    return tool_call("reply", text="I'll wait for the address.", expects_answer=True)


def test_a_made_up_recipient_becomes_a_question_and_the_answer_a_card(stack: DeputyStack, model_server) -> None:
    model_server.responder = script
    user = stack.user(731)
    sent = user.send("email my plumber that the boiler is leaking again")

    question = user.wait_for_bot(lambda m: m["text"].startswith("Who should this go to?"), after=sent, timeout=40)
    assert INVENTED in question["text"] and not question["buttons"]
    sent = user.send(f"his address is {REAL}")
    card = user.wait_for_card(after=sent, timeout=40)
    assert f"To: {REAL}" in card["text"]
    everything = " ".join(m["text"] for m in user.bot_messages())
    assert f"To: {INVENTED}" not in everything, "no card ever showed the made-up address"
