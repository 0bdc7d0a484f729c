"""Plain-text views of goals (done / doing / next) and of the audit trail."""

from __future__ import annotations

from datetime import datetime, timezone

from deputy.agent.goals import Goal, GoalStatus, StepStatus
from deputy.agent.watch.digests import choice_line
from deputy.agent.watch.watch_card import watch_line
from deputy.bot.texts import shorten
from deputy.sentinel.stores.audit import AuditEntry
from deputy.sentinel.stores.audit_checkpoint import Checkpoint

_DOING = {GoalStatus.running, GoalStatus.acting}
STATUS_WORDS = {
    GoalStatus.running: "working on it",
    GoalStatus.acting: "carrying out an action",
    GoalStatus.waiting_approval: "waiting for your approval",
    GoalStatus.waiting_user: "waiting for your answer",
    GoalStatus.paused: "paused",
    GoalStatus.scheduled: "waiting for its next check",
    GoalStatus.waiting_children: "waiting for its parts to finish",
    GoalStatus.done: "done",
    GoalStatus.failed: "stopped (send /retry)",
    GoalStatus.cancelled: "cancelled",
}
"""A goal's state in the words of /goals."""
_WAITING = {
    GoalStatus.waiting_approval: "waiting for your approval",
    GoalStatus.waiting_user: "waiting for your answer",
    GoalStatus.paused: "paused",
    GoalStatus.scheduled: "waiting for its next check",
    GoalStatus.waiting_children: "waiting for its parts",
}


def goal_card(goal: Goal) -> str:
    """One goal: what it is, where it stands, its plan, what it has cost."""
    lines = [f"🎯 {shorten(goal.text, 120)}", f"Status: {goal.status.value.replace('_', ' ')}"]
    marks = {StepStatus.done: "✅", StepStatus.doing: "▶️", StepStatus.todo: "▫️"}
    if goal.monitor is not None and not goal.status.finished:
        lines.append("👀 " + watch_line(goal.monitor))
        if goal.monitor.reminder is None:
            lines.append(choice_line(goal))
    lines += [f"{marks[step.status]} {step.title}" for step in goal.plan]
    lines.append(f"Steps so far: {goal.step} · tokens: {goal.prompt_tokens + goal.completion_tokens:,}")
    return "\n".join(lines)


def format_activity(goals: list[Goal]) -> str:
    done = [g for g in goals if g.status is GoalStatus.done]
    doing = [g for g in goals if g.status in _DOING or g.status in _WAITING]
    stopped = [g for g in goals if g.status in (GoalStatus.failed, GoalStatus.cancelled)]
    lines: list[str] = []
    if doing:
        lines.append("Doing:")
        for goal in doing:
            state = _WAITING.get(goal.status, "working on it")
            lines.append(f"• {shorten(goal.text)} ({state})")
            if goal.monitor is not None:
                lines.append(f"   {watch_line(goal.monitor)}")
            upcoming = [s.title for s in goal.plan if s.status is not StepStatus.done]
            if upcoming:
                lines.append(f"   next: {upcoming[0]}")
    if done:
        lines.append("Done:")
        lines += [f"• {shorten(g.text)}" for g in done]
    if stopped:
        lines.append("Stopped:")
        lines += [f"• {shorten(g.text)} ({g.status.value}; /retry)" for g in stopped]
    return "\n".join(lines)


_KIND_WORDS = {
    "goal_created": "new goal",
    "review": "reviewed",
    "approval_requested": "asked you",
    "approval_decided": "you decided",
    "approval_expired": "request expired",
    "action_succeeded": "done",
    "send_window_undo": "you pressed Undo",
    "send_window_send_now": "you pressed Send now",
    "send_window_edit": "you pressed Edit",
    "send_window_edited": "you corrected a message",
    "action_failed": "failed",
    "action_denied": "blocked",
    "action_declined": "you declined",
    "action_expired": "expired",
    "action_uncertain": "outcome unknown",
    "action_outcome_unknown": "outcome unknown",
    "action_dropped": "dropped (outcome unknown)",
    "rule_added": "rule added",
    "rule_removed": "rule removed",
    "press_rejected": "ignored a button",
    "negotiation_review": "held to the mandate",
    "negotiation_round": "negotiation round",
    "mandate_confirmed": "mandate confirmed",
    "mandate_changed": "mandate changed",
    "mandate_paused": "negotiation paused",
    "mandate_active": "negotiation resumed",
    "mandate_stopped": "negotiation stopped",
    "web_link_issued": "web view link sent",
    "web_session_opened": "web view opened",
    "web_sessions_ended": "web view sessions ended",
}


def format_audit(entry: AuditEntry) -> str:
    when = datetime.fromtimestamp(entry.at, tz=timezone.utc).strftime("%d %b %H:%M")
    detail = entry.detail
    what = _KIND_WORDS.get(entry.kind, entry.kind)
    parts = [f"{when} {what}"]
    if "operation" in detail:
        parts.append(f"{detail['operation']} → {', '.join(detail.get('targets', [])) or '-'}")
    if "verdict" in detail:
        parts.append(f"{detail['verdict']}: {shorten(' '.join(detail.get('reasons', [])), 140)}")
    if "decision" in detail:
        parts.append(str(detail["decision"]))
    if "rule" in detail:
        parts.append(shorten(str(detail["rule"]), 100))
    if "counterpart" in detail:
        offers = f"theirs {detail['theirs']}, ours {detail['ours']}" if "ours" in detail else \
            f"offer {detail.get('offer') or 'none'}"
        parts.append(f"{detail['counterpart']}: {offers}")
    if "mandate" in detail:
        parts.append(shorten(str(detail["mandate"]), 160))
    if "outcome" in detail:
        parts.append(shorten(str(detail["outcome"]), 100))
    if "content" in detail:  # what went out or was written, exactly (cut to fit a page of ten)
        parts.append("what ran: " + shorten(str(detail["content"]), 260))
    return " · ".join(parts)


# How the summary of folded entries counts the common kinds; any other kind is named by its words.
_KIND_COUNTED = {
    "goal_created": "new goals",
    "review": "reviews",
    "approval_requested": "questions to you",
    "approval_decided": "decisions by you",
    "approval_expired": "expired requests",
    "action_succeeded": "actions done",
    "action_failed": "failures",
    "action_denied": "blocked actions",
    "memory_added": "memories added",
    "rule_added": "rules added",
    "settings_changed": "settings changes",
}
_SUMMARY_KINDS = 4


def format_checkpoint(checkpoint: Checkpoint) -> str:
    """The line /audit ends its oldest page with: what the folded entries were, from when to when."""
    first, last = (moment.strftime("%d %b %Y") for moment in checkpoint.span())
    ranked = sorted(checkpoint.kinds.items(), key=lambda item: (-item[1], item[0]))
    shown = ranked if len(ranked) <= _SUMMARY_KINDS + 1 else ranked[:_SUMMARY_KINDS]
    counts = [f"{n:,} {_KIND_COUNTED.get(kind) or _KIND_WORDS.get(kind, kind.replace('_', ' '))}"
              for kind, n in shown]
    if rest := ranked[len(shown):]:
        counts.append(f"{sum(n for _, n in rest):,} of {len(rest)} other kinds")
    entries = "entry" if checkpoint.folded == 1 else "entries"
    return (f"Earlier: {checkpoint.folded:,} {entries} ({', '.join(counts)}) from {first} to {last}, "
            "folded and sealed")
