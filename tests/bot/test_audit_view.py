"""/audit and /export once a trail has been folded: the oldest page ends with the sealed summary of the
entries before the kept ones, the integrity line counts them, and a changed summary is named."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from redis import Redis

from deputy.bot.activity import format_checkpoint
from deputy.bot.audit_view import audit_page
from deputy.bot.export import export_user
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.stores.audit_checkpoint import folded_into

USER = 515
T0 = 1_767_225_600.0  # 1 January 2026, 00:00 UTC
DAY = 86_400.0
CHECKPOINT = f"deputy:audit:{USER}:checkpoint"


def fill(audit: AuditLog, count: int) -> None:
    """A month of use: each day an approval asked and decided, two reviews and a goal, then a rule."""
    kinds = ["goal_created", "review", "approval_requested", "approval_decided", "review", "rule_added"]
    for i in range(count):
        audit.append(USER, kinds[i % len(kinds)], T0 + DAY * (i // len(kinds)) + i, rule=f"rule {i}")


def oldest_page(audit: AuditLog) -> str:
    page = audit_page(audit, USER)
    while page is not None and any(kind == "ao" for _, kind, _ in page.buttons):
        page = audit_page(audit, USER, before=next(ident for _, kind, ident in page.buttons if kind == "ao"))
    assert page is not None
    return page.text


def test_the_oldest_page_ends_with_the_sealed_summary_of_folded_entries(redis: Redis) -> None:
    audit = AuditLog(redis, keep=20)
    fill(audit, 180)
    checkpoint = audit.checkpoint(USER)
    assert checkpoint is not None and checkpoint.folded == 180 - audit.count(USER)

    newest = audit_page(audit, USER).text
    assert "Earlier:" not in newest, "the summary closes the oldest page only"
    assert newest.startswith(f"Recent decisions (10 of {audit.count(USER)} kept entries)")
    assert (f"The record is intact ({audit.count(USER)} entries checked, and the seal over the "
            f"{checkpoint.folded} before them).") in newest

    text = oldest_page(audit)
    summary = text.split("\n\n")[0].splitlines()[-1]
    last_day = datetime.fromtimestamp(T0 + DAY * ((checkpoint.folded - 1) // 6), tz=timezone.utc)
    assert summary.startswith(f"Earlier: {checkpoint.folded} entries ({checkpoint.kinds['review']} reviews, ")
    assert summary.endswith(f"from 01 Jan 2026 to {last_day:%d %b %Y}, folded and sealed")
    for words in (f"{checkpoint.kinds['approval_requested']} questions to you",
                  f"{checkpoint.kinds['approval_decided']} decisions by you",
                  f"{checkpoint.kinds['goal_created']} new goals", f"{checkpoint.kinds['rule_added']} rules added"):
        assert words in summary
    assert "rule 0" not in text and f"rule {checkpoint.folded}" in text, "the kept entries end where the summary starts"


def test_a_changed_or_deleted_summary_is_named_on_every_page(redis: Redis) -> None:
    audit = AuditLog(redis, keep=20)
    fill(audit, 60)
    folded = audit.checkpoint(USER).folded
    redis.hset(CHECKPOINT, "kinds", json.dumps({"review": folded}))  # hide the approvals
    page = audit_page(audit, USER).text
    assert ("⚠️ The record has been tampered with, from the sealed summary of earlier entries on: its seal does "
            "not match its content") in page

    redis.delete(CHECKPOINT)
    page = audit_page(audit, USER).text
    assert "⚠️ The record has been tampered with, from entry 1 on: it follows an entry that is not there" in page
    assert "Earlier:" not in oldest_page(audit)


def test_export_holds_the_kept_entries_and_the_checkpoint(redis: Redis) -> None:
    audit = AuditLog(redis, keep=20)
    fill(audit, 60)
    document = json.loads(export_user(redis, USER, T0 + 90 * DAY))
    checkpoint = audit.checkpoint(USER)
    assert document["activity_earlier"] == checkpoint.model_dump(mode="json")
    assert len(document["activity"]) == audit.count(USER) and document["activity"][0]["prev"] == checkpoint.last
    assert checkpoint.folded + len(document["activity"]) == 60
    assert json.loads(export_user(redis, USER + 1, T0))["activity_earlier"] is None


def test_a_summary_of_many_kinds_names_the_most_frequent_and_counts_the_rest() -> None:
    kinds = ["review"] * 5 + ["goal_created"] * 4 + ["action_succeeded"] * 3 + ["memory_added"] * 2 + \
        ["connection_added", "mandate_changed"]
    checkpoint = folded_into(b"k", USER, None, [(kind, T0 + i, f"{i:064x}") for i, kind in enumerate(kinds)])
    assert format_checkpoint(checkpoint) == (
        "Earlier: 16 entries (5 reviews, 4 new goals, 3 actions done, 2 memories added, 2 of 2 other kinds) "
        "from 01 Jan 2026 to 01 Jan 2026, folded and sealed")
