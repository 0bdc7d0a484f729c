"""A photo whose text shows a secret, through the local chat and the whole stack.

The picture is rendered here (a screenshot of a card's details, a note with a password): the
bot reads its text before keeping it. A photo showing a card number is deleted from the
chat, not kept, never shown to the model, and its caption's goal goes on with a handle in the
photo's place; the user is told and offered the vault. A photo of an ordinary note is kept
and given to the goal as before.
"""

from __future__ import annotations

import httpx
from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, tool_call
from deputy.testing.stack import DeputyStack
from tests.e2e.test_confidential_flow import leaks
from tests_support import picture_with_text

USER = 7404031501
CARD = "4242 4242 4242 4242"


def _reply(request: ChatRequest) -> ModelReply:
    return tool_call("reply", text="On my way.")


def _send_photo(stack: DeputyStack, user_id: int, image: bytes, caption: str) -> int:
    response = httpx.post(f"{stack.chat_url}/api/users/{user_id}/files",
                          files={"file": ("IMG_2044.png", image, "image/png")}, data={"caption": caption, "as": "photo"})
    return response.json()["message_id"]


def test_a_photo_showing_a_card_is_deleted_not_kept_and_its_goal_goes_on_with_a_handle(
    stack: DeputyStack, model_server: ScriptedModelServer, redis: Redis
) -> None:
    model_server.responder = _reply
    user = stack.user(USER)
    picture = picture_with_text("VISA DEBIT", f"Card number {CARD}", "Valid thru 09/29   CVC 737")
    sent = _send_photo(stack, USER, picture, "book the hotel in Porto for Friday with this card")

    notice = user.wait_for_bot(lambda m: "deleted your photo" in m["text"], after=sent)["text"]
    assert "a card number" in notice and "/connect/" in notice, notice
    assert "[a photo that showed a card number, removed]" in notice
    user.wait_for_bot(lambda m: m["text"].startswith("On my way."), after=sent, timeout=30)

    assert sent not in [m["message_id"] for m in user.messages()], "the photo is gone from the chat"
    seen = repr([r.model_dump() for r in model_server.requests])
    assert "book the hotel in Porto" in seen and "[a photo that showed a card number, removed]" in seen
    assert "image_url" not in seen, "the picture never reached the model"
    assert not redis.keys(f"deputy:upload:{USER}:*"), "the photo was not kept"
    assert not (found := leaks(redis, [CARD, CARD.replace(" ", "")])), found
    assert CARD not in stack.logs() and CARD.replace(" ", "") not in stack.logs()


def test_a_photo_of_an_ordinary_note_is_kept_for_its_goal(
    stack: DeputyStack, model_server: ScriptedModelServer, redis: Redis
) -> None:
    model_server.responder = _reply
    user = stack.user(USER + 1)
    sent = _send_photo(stack, USER + 1, picture_with_text("Bins go out on Tuesday", "Dentist Thursday 3pm"),
                       "add these to my calendar")
    user.wait_for_bot(lambda m: m["text"].startswith("On my way."), after=sent, timeout=30)
    assert not [m for m in user.bot_messages(sent) if "deleted your photo" in m["text"]]
    assert redis.keys(f"deputy:upload:{USER + 1}:*"), "the photo was kept for the goal"
    assert "image_url" in repr([r.model_dump() for r in model_server.requests]), "the model saw the picture"
