"""Marking a connected API's operations from the chat, end to end: the user's class is what the executor
and Sentinel use, and making an operation less guarded than its method implies takes an explicit confirmation."""

from __future__ import annotations

import re

import httpx
import pytest
from test_custom_connectors_flow import KEY, NotesService

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, message_text, tool_call
from deputy.testing.stack import ChatUser, DeputyStack
from deputy.sentinel.stores.audit import AuditLog


@pytest.fixture
def notes() -> NotesService:
    return NotesService().start()


@pytest.fixture
def stack_env(notes: NotesService) -> dict[str, str]:
    return {"DEPUTY_EGRESS_ALLOW": f"127.0.0.1:{notes.port}"}


def _script(operation: str, **arguments: object):  # type: ignore[no-untyped-def]
    def script(request: ChatRequest) -> ModelReply:
        tools = [m for m in request.messages if m.get("role") == "tool"]
        names = {t["function"]["name"].lower(): t["function"]["name"] for t in request.tools or []}
        if not tools:
            return tool_call(names[operation], **arguments)
        return tool_call("reply", text="Result: " + message_text(tools[-1])[:80])

    return script


def _connect(user: ChatUser, notes: NotesService) -> None:
    sent = user.send(f"/connect api http://127.0.0.1:{notes.port}/openapi.json")
    connected = user.wait_for_bot(lambda m: "Connected" in m["text"], after=sent, timeout=30)
    assert "/connections lists its operations" in connected["text"]
    sent = user.send("/connect key notes")
    link = re.search(r"http://\S+/connect/\S+", user.wait_for_bot(lambda m: "/connect/" in m["text"], after=sent)["text"])
    assert httpx.post(link.group(0), data={"secret": KEY}).status_code == 200
    user.wait_for_bot(lambda m: "key for notes is saved" in m["text"], after=sent)


def _operations(user: ChatUser) -> dict:
    sent = user.send("/connections")
    listing = user.wait_for_bot(lambda m: any(b["text"] == "Operations of notes" for r in m["buttons"] for b in r),
                                after=sent)
    user.press(listing["message_id"], button="Operations of notes")
    return user.wait_for_bot(lambda m: m["text"].startswith("Operations of notes"), after=listing["message_id"])


def _choose(user: ChatUser, operations: dict, number: int, effect: str) -> dict:
    user.press(operations["message_id"], button=f"Mark {number}")
    chooser = user.wait_for_bot(lambda m: "Mark it as:" in m["text"], after=operations["message_id"])
    user.press(chooser["message_id"], button=effect)
    return chooser


def test_marking_operations_changes_what_sentinel_asks(
    stack: DeputyStack, model_server, notes: NotesService, redis  # type: ignore[no-untyped-def]
) -> None:
    user = stack.user(961)
    _connect(user, notes)
    operations = _operations(user)
    assert re.search(r"1\. notes_listnotes \(GET /notes\): read", operations["text"], re.IGNORECASE)
    # Nothing shows that the POST speaks to nobody: until marked, it is reviewed as a message.
    assert re.search(r"2\. notes_addnote \(POST /notes\): communicate", operations["text"], re.IGNORECASE)

    # A read marked as spending money: more guarded, so no confirmation, and now Sentinel asks.
    chooser = _choose(user, operations, 1, "spend")
    where = user.wait_for_bot(lambda m: "holds the amount" in m["text"], after=chooser["message_id"])
    user.press(where["message_id"], button="It doesn't say")
    user.wait_for_bot(lambda m: m["message_id"] == where["message_id"] and "is now spend" in m["text"])
    model_server.responder = _script("notes_listnotes")
    sent = user.send("list my notes")
    card = user.wait_for_card(after=sent, timeout=40)
    assert "notes" in card["text"] and notes.keys == []  # nothing reached the service before the answer
    user.press(card["message_id"], button="Deny")
    user.wait_for_bot(lambda m: m["text"].startswith("Result:"), after=card["message_id"], timeout=40)
    assert notes.keys == []

    # A write marked as a read is less guarded: it must be confirmed, and Cancel keeps it.
    operations = _operations(user)
    assert re.search(r"1\. notes_listnotes \(GET /notes\): spend \(marked by you", operations["text"], re.IGNORECASE)
    chooser = _choose(user, operations, 2, "read")
    confirm = user.wait_for_bot(lambda m: m["text"].startswith("⚠️") and "less guarded" in m["text"],
                                after=chooser["message_id"])
    user.press(confirm["message_id"], button="Cancel")
    user.wait_for_bot(lambda m: m["message_id"] == confirm["message_id"] and "stays communicate" in m["text"])
    assert "notes_addNote" not in str(redis.hget("deputy:user:961:connectors", "notes"))

    chooser = _choose(user, _operations(user), 2, "read")
    confirm = user.wait_for_bot(lambda m: m["text"].startswith("⚠️"), after=chooser["message_id"])
    user.press(confirm["message_id"], button="Yes, mark it read")
    user.wait_for_bot(lambda m: m["message_id"] == confirm["message_id"] and "is now read" in m["text"])

    # The executor's catalog follows the user's class: the add now runs without a card.
    model_server.responder = _script("notes_addnote", body={"text": "water the plants"})
    sent = user.send("add 'water the plants' to my notes")
    done = user.wait_for_bot(lambda m: m["text"].startswith("Result:") or bool(m["buttons"]), after=sent, timeout=40)
    assert not done["buttons"] and notes.notes == ["buy milk", "water the plants"]
    marks = [e.detail for e in AuditLog(redis).entries(961) if e.kind == "operation_marked"]
    assert [(m["operation"].lower(), m["previous"], m["effect"], m["confirmed"]) for m in marks] == [
        ("notes_listnotes", "read", "spend", False), ("notes_addnote", "communicate", "read", True)]
