"""Photos and documents as part of a goal: read, labelled as outside content, limits explained."""

from __future__ import annotations

import base64
import time

import httpx
from redis import Redis

from deputy.agent.model.testing import tool_call
from deputy.testing.stack import DeputyStack
from deputy.memory import MemoryItem, MemoryKind, MemoryStore
from tests_support import tiny_pdf

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def upload(stack: DeputyStack, user_id: int, name: str, content: bytes, mime: str, caption: str = "") -> int:
    response = httpx.post(f"{stack.chat_url}/api/users/{user_id}/files",
                          files={"file": (name, content, mime)}, data={"caption": caption})
    response.raise_for_status()
    return response.json()["message_id"]


def test_a_recipe_pdf_becomes_a_shopping_list_that_respects_a_friends_allergy(
    stack: DeputyStack, model_server, redis: Redis
) -> None:
    model_server.responder = lambda request: tool_call("reply", text="Shopping list: pasta, tomatoes, basil.")
    now = time.time()
    MemoryStore(redis).add(901, MemoryItem(text="My friend Ana is allergic to nuts", kind=MemoryKind.person,
                                           created_at=now, updated_at=now))
    user = stack.user(901)
    sent = upload(stack, 901, "recipe.pdf", tiny_pdf("Pesto pasta: basil, pine nuts, parmesan, garlic"),
                  "application/pdf", "make a shopping list from this recipe for dinner with Ana")
    user.wait_for_bot(lambda m: m["text"].startswith("Shopping list"), after=sent)
    [request] = model_server.requests
    prompt = request.prompt_text()
    assert "pine nuts" in prompt and 'untrusted source="the file recipe.pdf you sent"' in prompt
    assert "Ana is allergic to nuts" in prompt


def test_a_photo_reaches_the_model_as_an_image(stack: DeputyStack, model_server) -> None:
    model_server.responder = lambda request: tool_call("reply", text="A tiny white square.")
    user = stack.user(902)
    sent = upload(stack, 902, "square.png", PNG, "image/png", "what is in this picture?")
    user.wait_for_bot(lambda m: m["text"] == "A tiny white square.", after=sent)
    raw = model_server.requests[0].raw
    parts = [p for m in raw["messages"] if isinstance(m.get("content"), list) for p in m["content"]]
    assert any(p.get("type") == "image_url" and p["image_url"]["url"].startswith("data:image/png;base64,")
               for p in parts)


def test_unsupported_and_oversized_files_get_a_clear_answer(stack: DeputyStack, model_server) -> None:
    user = stack.user(903)
    sent = upload(stack, 903, "archive.zip", b"PK\x03\x04" + b"0" * 100, "application/zip")
    assert "can't read application/zip" in user.wait_for_bot(lambda m: True, after=sent)["text"]
    sent = upload(stack, 903, "huge.png", PNG + b"\0" * (11 * 1024 * 1024), "image/png")
    assert "up to 10 MB" in user.wait_for_bot(lambda m: True, after=sent)["text"]
    sent = upload(stack, 903, "scan.pdf", b"%PDF-1.4 broken", "application/pdf", "read this")
    answer = user.wait_for_bot(lambda m: "PDF" in m["text"], after=sent, timeout=30)["text"]
    assert "damaged" in answer or "couldn't find any text" in answer
    assert model_server.requests == []
