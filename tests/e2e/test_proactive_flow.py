"""The agent comes to you, through the real bot and the local chat: a dated event said in passing
gets one small check-in card whose "Check in after" sets a reminder goal, and a long watch's goal
card in /goals shows its digest and changes it with one tap."""

from __future__ import annotations

import time

from redis import Redis

from deputy.agent.goals import GoalStore, GoalStatus
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, message_text, tool_call
from deputy.agent.suggestions.listings import Listing
from deputy.agent.suggestions.suggestion_round import SuggestionRound
from deputy.core.records.outbox import OUTBOX_HELD, Outbox
from deputy.memory.meaning import load_embedder
from deputy.memory.store import MemoryItem, MemoryKind, MemoryStore
from deputy.testing.stack import DeputyStack, wait_for


def test_a_check_in_card_and_a_digest_choice_through_the_chat(
    stack: DeputyStack, model_server: ScriptedModelServer, redis: Redis
) -> None:
    def respond(request: ChatRequest) -> ModelReply:
        goal = message_text(next(m for m in request.messages if m.get("role") == "user"))
        if goal.startswith("Book 2 seats for me: the suggested tickets listing tickets:jazz-e2e"):
            return tool_call("reply", text="I found the event; buying the seats will need your OK.")
        if "tie" in goal:
            return tool_call("reply", text="Here are three ties for an interview.")
        return tool_call("schedule_check", what="Lisbon fares under 400 USD", every_minutes=24 * 60, max_checks=30)

    model_server.responder = respond
    user = stack.user(651)
    sent = user.send("find me a tie, I have a job interview the day after tomorrow at 10")
    card = user.wait_for_bot(lambda m: m["text"].startswith("📅 You mentioned"), after=sent)
    assert "“find me a tie, I have a job interview the day after tomorrow at 10”" in card["text"]
    assert [b["text"] for b in card["buttons"][0]] == ["Check in after", "Remind me before", "No thanks"]
    user.wait_for_bot(lambda m: "three ties" in m["text"], after=sent)
    user.press(card["message_id"], button="Check in after")
    assert user.wait_for_answer(1)["text"] == "I'll check in."
    edited = user.wait_for_bot(lambda m: "I'll check in with you" in m["text"], after=sent)
    in_two_days = time.gmtime(time.time() + 2 * 86400)
    assert f"{in_two_days.tm_mday} " in edited["text"] and "12:00 UTC" in edited["text"], edited["text"]
    goals = GoalStore(redis).recent(651)
    [check_in] = [g for g in goals if g.monitor is not None and g.monitor.reminder]
    assert check_in.status is GoalStatus.scheduled and check_in.monitor.max_checks == 1

    sent = user.send("watch the fares to Lisbon for the next month")
    wait_for(lambda: any(g.status is GoalStatus.scheduled and g.text.startswith("watch the fares")
                         for g in GoalStore(redis).recent(651)), timeout=20, what="the watch to be set")
    listed = user.send("/goals")
    goal_card = user.wait_for_bot(lambda m: m["text"].startswith("🎯 watch the fares"), after=listed)
    assert "🗞 Digest: weekly (the default)" in goal_card["text"]
    assert [b["text"] for b in goal_card["buttons"][1]] == ["Daily digest", "No digest"]
    user.press(goal_card["message_id"], button="Daily digest")
    assert user.wait_for_answer(2)["text"] == "Digest changed."
    watch = next(g for g in GoalStore(redis).recent(651) if g.text.startswith("watch the fares"))
    wait_for(lambda: GoalStore(redis).get(watch.id).monitor.digest == "daily", timeout=5, what="the choice kept")

    # Interests, opt-in, through the chat; a new listing that matches becomes a card; Book starts the goal.
    MemoryStore(redis).add(651, MemoryItem(text="The user loves jazz.", kind=MemoryKind.preference,
                                           said=["I love jazz"], created_at=time.time(), updated_at=time.time()))
    sent = user.send("/interests")
    proposal = user.wait_for_bot(lambda m: "I could also look out for" in m["text"], after=sent)
    assert proposal["text"].startswith("I'm not looking out for anything for you.")
    user.press(proposal["message_id"], button="Add: jazz")
    assert user.wait_for_answer(3)["text"] == "Added."
    sent = user.send("/interests max 2")
    assert "I look out for: jazz." in user.wait_for_bot(lambda m: "look out" in m["text"], after=sent)["text"]
    suggest = SuggestionRound(redis, load_embedder(), Outbox(redis))
    listing = Listing(id="tickets:jazz-e2e", service="tickets", title="Jazz Trio", place="The Blue Room",
                      starts_at=time.time() + 3 * 86400, price="40.00", about="concert piano trio standards")
    assert suggest.run([listing]).cards == 1
    offer = user.wait_for_bot(lambda m: m["text"].startswith("💡 Jazz Trio at The Blue Room"), after=sent)
    assert [b["text"] for b in offer["buttons"][0]] == ["Book", "Not interested", "Less like this"]
    user.press(offer["message_id"], button="Book")
    assert user.wait_for_answer(4)["text"] == "Starting the booking."
    user.wait_for_bot(lambda m: "buying the seats will need your OK" in m["text"], after=sent)
    assert suggest.run([listing]).cards == 0, "a listing is new once"

    # Quiet hours hold a suggestion like any unprompted news.
    night = stack.user(652)
    now = time.gmtime()
    sent = night.send(f"/quiet {(now.tm_hour + 23) % 24:02d}:00 {(now.tm_hour + 1) % 24:02d}:59 UTC")
    night.wait_for_bot(lambda m: "Quiet hours" in m["text"], after=sent)
    sent = night.send("/interests jazz")
    night.wait_for_bot(lambda m: "I look out for: jazz." in m["text"], after=sent)
    late = Listing(id="tickets:jazz-late", service="tickets", title="Midnight Jazz Session", place="The Blue Room",
                   about="late night jazz jam")
    held_before = redis.zcard(OUTBOX_HELD)
    assert suggest.run([late]).cards == 1
    wait_for(lambda: redis.zcard(OUTBOX_HELD) == held_before + 1, timeout=10, what="the card to be held")
    assert [m for m in night.bot_messages(after=sent) if m["text"].startswith("💡")] == []
