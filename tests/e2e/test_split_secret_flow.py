"""A secret split over two messages, through the local chat and the whole stack.

"..., the password is" alone starts no goal: Deputy says it will read it with the next
message. The next message, the password, is deleted, and the goal goes on with a handle in
its place; the value never reaches a model request, the logs or Redis (in clear or base64).
A label followed by something that is not its value goes on with it, as one message.
"""

from __future__ import annotations

import secrets

from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, tool_call
from deputy.testing.stack import DeputyStack
from tests.e2e.test_confidential_flow import leaks

USER = 7404031401


def _reply(request: ChatRequest) -> ModelReply:
    return tool_call("reply", text="On my way.")


def _seen_by_model(model_server: ScriptedModelServer) -> str:
    return repr([r.model_dump() for r in model_server.requests])


def test_a_label_waits_for_its_value_which_is_taken_out_and_the_goal_goes_on_with_a_handle(
    stack: DeputyStack, model_server: ScriptedModelServer, redis: Redis
) -> None:
    model_server.responder = _reply
    user = stack.user(USER)
    password = "Tr0ub4dor&" + secrets.token_hex(4)

    sent = user.send("log in to the library site and renew my books, the password is")
    waiting = user.wait_for_bot(lambda m: True, after=sent)
    assert "together with your next message" in waiting["text"] and "/connect" in waiting["text"]
    assert "renew my books" not in _seen_by_model(model_server), "the label alone started a goal"

    sent = user.send(password)
    notice = user.wait_for_bot(lambda m: "deleted your message" in m["text"], after=sent)["text"]
    assert "a password" in notice and "[a password removed]" in notice and "/connect/" in notice, notice
    user.wait_for_bot(lambda m: m["text"].startswith("On my way."), after=sent, timeout=30)

    seen = _seen_by_model(model_server)
    assert "renew my books, the password is" in seen and "[a password removed]" in seen, "one goal, with a handle"
    assert password not in seen
    assert password not in stack.logs()
    assert not [m for m in user.messages() if password in m["text"]], "deleted from the chat"
    assert not (found := leaks(redis, [password])), found


def test_a_label_followed_by_no_value_goes_on_with_the_next_message(
    stack: DeputyStack, model_server: ScriptedModelServer, redis: Redis
) -> None:
    model_server.responder = _reply
    user = stack.user(USER + 1)
    sent = user.send("the code for the gym locker:")
    user.wait_for_bot(lambda m: "together with your next message" in m["text"], after=sent)
    sent = user.send("actually, just remind me to buy a new padlock tomorrow")
    user.wait_for_bot(lambda m: m["text"].startswith("On my way."), after=sent, timeout=30)
    assert not [m for m in user.bot_messages(sent) if "deleted your message" in m["text"]]
    assert "the code for the gym locker:\\nactually, just remind me to buy a new padlock" in _seen_by_model(model_server)
