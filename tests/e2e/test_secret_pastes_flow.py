"""Secrets typed into the chat are taken out before anything stores them, and the goal goes on.

Through the local chat and the whole stack: a provider key, a wallet's recovery phrase, a
password in a sentence and a password split over two messages are each deleted from the
chat, never reach the model (the scripted model records every request), and are nowhere in
Redis, in clear or base64. The goal goes on with a handle in place of the value; a login is
offered the vault's private page; a look-alike taken wrongly is released with one tap, once.
"""

from __future__ import annotations

import secrets

import httpx

from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, tool_call
from deputy.testing.stack import DeputyStack, wait_for
from tests.e2e.test_confidential_flow import leaks
from deputy.core.secret_scan.words import bip39

USER = 7404031301


def _reply(request: ChatRequest) -> ModelReply:
    return tool_call("reply", text="On my way.")


def test_pasted_secrets_are_deleted_kept_from_the_model_and_the_goal_goes_on(
    stack: DeputyStack, model_server: ScriptedModelServer, redis: Redis
) -> None:
    model_server.responder = _reply
    user = stack.user(USER)
    key = "ghp_" + secrets.token_hex(18)
    phrase = " ".join(sorted(bip39())[i] for i in secrets.SystemRandom().sample(range(2048), 12))
    password, wifi = "Tr0ub4dor&" + secrets.token_hex(3), "Wifi" + secrets.token_hex(4) + "!"

    sent = user.send(f"deploy the blog with my github key {key} tonight")
    notice = user.wait_for_bot(lambda m: "deleted your message" in m["text"], after=sent)
    assert "an access key" in notice["text"] and "carrying on" in notice["text"]
    user.wait_for_bot(lambda m: m["text"].startswith("On my way."), after=sent, timeout=30)

    sent = user.send(f"my wallet words: {phrase}")
    assert "a recovery phrase" in user.wait_for_bot(lambda m: "deleted your message" in m["text"], after=sent)["text"]

    sent = user.send(f"log in to the library site, the password is {password}, and renew my books")
    notice = user.wait_for_bot(lambda m: "deleted your message" in m["text"], after=sent)["text"]
    assert "a password" in notice and "/connect/" in notice and "logging in" in notice, notice
    user.wait_for_bot(lambda m: m["text"].startswith("On my way."), after=sent, timeout=30)

    sent = user.send("the wifi password is")
    user.wait_for_bot(lambda m: True, after=sent)
    sent = user.send(wifi)
    assert "a password" in user.wait_for_bot(lambda m: "deleted your message" in m["text"], after=sent)["text"]

    everything = [key, phrase, password, wifi]
    seen_by_model = repr([r.model_dump() for r in model_server.requests])
    assert "renew my books" in seen_by_model and "deploy the blog" in seen_by_model, "the goals went on"
    assert not [s for s in everything if s in seen_by_model]
    assert not [s for s in everything if s in stack.logs()]
    assert not [s for s in everything for m in user.messages() if s in m["text"]], "deleted from the chat"
    assert not (found := leaks(redis, [key, password, wifi, phrase.split()[0] + " " + phrase.split()[1]])), found


def test_a_look_alike_taken_for_a_secret_is_released_with_one_tap_and_only_once(
    stack: DeputyStack, model_server: ScriptedModelServer, redis: Redis
) -> None:
    model_server.responder = _reply
    user = stack.user(USER + 1)
    sent = user.send("the code is 4471")  # the user's locker number, say: taken for a door code
    notice = user.wait_for_bot(lambda m: "deleted your message" in m["text"], after=sent)
    assert not [r for r in model_server.requests if "4471" in repr(r.model_dump())]
    assert not leaks(redis, ["the code is 4471"])

    [release] = [b["data"] for row in notice["buttons"] for b in row if b["text"] == "It's not a secret: use it"]
    user.press(notice["message_id"], data=release)
    user.wait_for_bot(lambda m: m["text"].startswith("On my way."), after=notice["message_id"], timeout=30)
    assert any("the code is 4471" in repr(r.model_dump()) for r in model_server.requests)
    answered = len(user.answers())
    user.press(notice["message_id"], data=release)  # pressed again (a second device, a double tap)
    assert "no longer have" in user.wait_for_answer(answered + 1)["text"]
    wait_for(lambda: not redis.keys(f"deputy:user:{USER + 1}:held_message:*"), what="the held message to be gone")


def test_commands_captions_file_names_and_text_files_are_read_too(
    stack: DeputyStack, model_server: ScriptedModelServer, redis: Redis
) -> None:
    model_server.responder = _reply
    user = stack.user(USER + 2)
    card, login, key = "4111 1111 1111 1111", "Adm1n-" + secrets.token_hex(4), "sk_live_" + secrets.token_hex(12)
    files = f"{stack.chat_url}/api/users/{USER + 2}/files"

    sent = user.send(f"/rules never spend more than 50 dollars with card {card}")
    notice = user.wait_for_bot(lambda m: "deleted your message" in m["text"], after=sent)["text"]
    assert "send /rules again without it" in notice
    sent = user.send(f"/connect api https://admin:{login}@api.example.com/openapi.json")
    notice = user.wait_for_bot(lambda m: "deleted your message" in m["text"], after=sent)["text"]
    assert "/connect key" in notice and login not in notice
    sent = httpx.post(files, files={"file": ("door.jpg", b"\xff\xd8\xff\xe0 not really a photo", "image/jpeg")},
                      data={"caption": f"the alarm password is {login}"}).json()["message_id"]
    user.wait_for_bot(lambda m: "deleted your message" in m["text"], after=sent)
    sent = httpx.post(files, files={"file": ("keys.txt", f"stripe: {key}\n".encode(), "text/plain")}).json()["message_id"]
    user.wait_for_bot(lambda m: "didn't keep it" in m["text"], after=sent)

    seen_by_model = repr([r.model_dump() for r in model_server.requests])
    assert not [s for s in (card, login, key) if s in seen_by_model or s in stack.logs()]
    assert not redis.keys(f"deputy:upload:{USER + 2}:*"), "neither file was kept"
    assert not (found := leaks(redis, [card, login, key])), found
