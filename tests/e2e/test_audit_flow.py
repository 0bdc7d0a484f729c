"""/audit in the chat: the whole trail, page by page with signed Older / Newer buttons, and a warning
when someone who can write Redis has changed it."""

from __future__ import annotations

import re

from redis import Redis

from deputy.testing.stack import DeputyStack
from deputy.sentinel.stores.audit import AuditLog

T0 = 1_764_000_000.0


def _shown(text: str) -> list[str]:
    return re.findall(r"rule added · (rule number \d+)", text)


def test_audit_pages_through_everything_and_shows_tampering(stack: DeputyStack, redis: Redis) -> None:
    audit = AuditLog(redis, stack.audit_key)
    for i in range(23):
        audit.append(981, "rule_added", T0 + 60 * i, rule=f"rule number {i}")
    user = stack.user(981)

    sent = user.send("/audit")
    page = user.wait_for_bot(lambda m: "decisions" in m["text"], after=sent)
    assert page["text"].startswith("Recent decisions (10 of 23 entries)") and "The record is intact" in page["text"]
    assert [b["text"] for row in page["buttons"] for b in row] == ["⬅️ Older"]
    seen = _shown(page["text"])

    # Someone else pressing this user's Older button is refused and sees nothing of the trail.
    stranger = stack.user(982)
    hello = stranger.send("/start")
    greeting = stranger.wait_for_bot(lambda m: True, after=hello)
    stranger.press(greeting["message_id"], data=page["buttons"][0][0]["data"])
    assert "isn't valid" in stranger.wait_for_answer(1)["text"]
    assert not [m for m in stranger.bot_messages(after=greeting["message_id"]) if "rule number" in m["text"]]

    pages = [page]
    while any(b["text"] == "⬅️ Older" for row in pages[-1]["buttons"] for b in row):
        user.press(pages[-1]["message_id"], button="⬅️ Older")
        pages.append(user.wait_for_bot(lambda m: "Earlier decisions" in m["text"], after=pages[-1]["message_id"]))
        seen += _shown(pages[-1]["text"])
    assert [len(_shown(p["text"])) for p in pages] == [10, 10, 3]
    assert sorted(seen, key=lambda s: int(s.split()[-1])) == [f"rule number {i}" for i in range(23)]
    assert len(set(seen)) == 23  # every entry exactly once

    # Newer from the oldest page walks back up without repeating anything.
    user.press(pages[-1]["message_id"], button="Newer ➡️")
    newer = user.wait_for_bot(lambda m: "decisions" in m["text"], after=pages[-1]["message_id"])
    assert _shown(newer["text"]) == _shown(pages[1]["text"])

    # An entry edited in Redis: /audit says the record was tampered with, and from where.
    stream = "deputy:audit:981"
    rows = redis.xrange(stream)
    for entry_id, _ in rows[5:]:
        redis.xdel(stream, entry_id)
    for position, (_, fields) in enumerate(rows[5:]):
        fields = dict(fields)
        if position == 0:
            fields[b"detail"] = fields[b"detail"].replace(b"rule number 5", b"rule number 55")
        redis.xadd(stream, fields)
    sent = user.send("/audit")
    warned = user.wait_for_bot(lambda m: "decisions" in m["text"], after=sent)
    assert "⚠️ The record has been tampered with, from entry 6 on" in warned["text"]
