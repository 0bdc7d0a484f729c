"""Memory and settings from the chat: /memory lists and forgets, Undo takes back what the agent remembered
or forgot, /settings renames the agent."""

from __future__ import annotations

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, goal_text, tool_call
from deputy.testing.stack import DeputyStack


def script(request: ChatRequest) -> ModelReply:
    goal = goal_text(request.messages)
    if request.messages[-1].get("role") == "tool":
        return tool_call("reply", text="Noted.")
    if goal.startswith("remember"):
        return tool_call("remember", text=goal.removeprefix("remember ").strip(), kind="preference")
    if goal.startswith("forget"):
        return tool_call("forget_memory", description=goal.removeprefix("forget ").strip())
    return tool_call("reply", text="Hello!")


def test_memory_listed_and_forgotten_from_the_chat_and_the_agent_renamed(
    stack: DeputyStack, model_server
) -> None:
    model_server.responder = script
    user = stack.user(701)
    sent = user.send("remember I'm vegetarian")
    noted = user.wait_for_bot(lambda m: m["text"].startswith("Noted."), after=sent)
    # The model's "Noted." alone would not let the user catch a mistake: Deputy says what it remembered.
    assert noted["text"] == "Noted.\n\n📝 Remembered: “I'm vegetarian”"

    sent = user.send("/memory")
    listing = user.wait_for_bot(lambda m: "What I remember" in m["text"], after=sent)
    assert "I'm vegetarian (you said so" in listing["text"]
    user.press(listing["message_id"], button="Edit 1")
    assert "corrected version" in user.wait_for_answer(1)["text"]
    sent = user.send("I'm vegan")
    assert "I now remember “I'm vegan”" in user.wait_for_bot(lambda m: True, after=sent)["text"]
    sent = user.send("/memory")
    listing = user.wait_for_bot(lambda m: "What I remember" in m["text"], after=sent)
    assert "I'm vegan (you corrected it" in listing["text"] and "vegetarian" not in listing["text"]
    user.press(listing["message_id"], button="Forget 1")
    assert "Forgotten" in user.wait_for_answer(2)["text"]
    sent = user.send("/memory")
    assert "don't remember anything" in user.wait_for_bot(lambda m: True, after=sent)["text"]

    sent = user.send("/settings name Jarvis")
    assert "Name: Jarvis" in user.wait_for_bot(lambda m: True, after=sent)["text"]
    sent = user.send("/start")
    assert "I'm Jarvis" in user.wait_for_bot(lambda m: True, after=sent)["text"]
    # A fresh start: the goal "I'm vegetarian" was sent minutes ago and a follow-up would carry its words.
    sent = user.send("/new")
    user.wait_for_bot(lambda m: "Fresh start" in m["text"], after=sent)
    sent = user.send("say hi")
    user.wait_for_bot(lambda m: m["text"] == "Hello!", after=sent)
    assert "You are Jarvis" in model_server.requests[-1].prompt_text()
    assert "vegetarian" not in model_server.requests[-1].prompt_text()


def buttons(message: dict) -> list[str]:
    return [b["text"] for row in message["buttons"] for b in row]


def test_undo_takes_back_a_memory_remembered_or_forgotten(stack: DeputyStack, model_server) -> None:
    model_server.responder = script
    user = stack.user(702)

    def memory() -> str:
        sent = user.send("/memory")
        return user.wait_for_bot(lambda m: "remember" in m["text"], after=sent)["text"]

    sent = user.send("remember I'm vegetarian")
    noted = user.wait_for_bot(lambda m: m["text"].startswith("Noted."), after=sent)
    assert noted["text"] == "Noted.\n\n📝 Remembered: “I'm vegetarian”"
    assert buttons(noted) == ["Undo: Remembered: “I'm vegetarian”"]
    assert "I'm vegetarian (you said so" in memory()
    user.press(noted["message_id"], button="Undo: Remembered: “I'm vegetarian”")
    assert user.wait_for_answer(1)["text"] == "I no longer remember “I'm vegetarian”."
    assert "don't remember anything" in memory()

    sent = user.send("remember I'm vegan")
    user.wait_for_bot(lambda m: m["text"].startswith("Noted."), after=sent)
    sent = user.send("forget I'm vegan")
    forgot = user.wait_for_bot(lambda m: "🗑 Forgot" in m["text"], after=sent)
    assert "don't remember anything" in memory()
    [undo] = [b["data"] for row in forgot["buttons"] for b in row]
    user.press(forgot["message_id"], data=undo)
    assert user.wait_for_answer(2)["text"] == "I remember again: “I'm vegan”."
    assert "I'm vegan (you said so" in memory()
    user.press(forgot["message_id"], data=undo)  # the same press again (a double tap, a stale copy)
    assert user.wait_for_answer(3)["text"] == "It was already undone."
    assert "I'm vegan (you said so" in memory()


def two_at_once(request: ChatRequest) -> ModelReply:
    done = sum(1 for m in request.messages if m.get("role") == "tool")
    if done == 0:
        return tool_call("remember", text="I'm vegetarian", kind="preference")
    if done == 1:
        return tool_call("remember", text="I live in Lyon", kind="fact")
    return tool_call("reply", text="Noted both.")


def test_each_undo_on_an_answer_with_several_memory_changes_works_and_leaves_the_others(
    stack: DeputyStack, model_server
) -> None:
    model_server.responder = two_at_once
    user = stack.user(703)
    sent = user.send("remember that I'm vegetarian and that I live in Lyon")
    noted = user.wait_for_bot(lambda m: m["text"].startswith("Noted both."), after=sent)
    first, second = "Undo: Remembered: “I'm vegetarian”", "Undo: Remembered: “I live in Lyon”"
    assert buttons(noted) == [first, second]

    user.press(noted["message_id"], button=first)
    assert user.wait_for_answer(1)["text"] == "I no longer remember “I'm vegetarian”."
    edited = user.wait_for_bot(lambda m: m["message_id"] == noted["message_id"] and "Undone" in m["text"],
                               after=sent)
    assert buttons(edited) == [second], "the other change's Undo stays on the answer"

    user.press(noted["message_id"], button=second)
    assert user.wait_for_answer(2)["text"] == "I no longer remember “I live in Lyon”."
    sent = user.send("/memory")
    assert "don't remember anything" in user.wait_for_bot(lambda m: True, after=sent)["text"]
