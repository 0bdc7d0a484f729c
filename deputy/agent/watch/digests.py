"""Digests of long-running goals, written by code from the goal's record.

A watch that runs for more than a week gets a weekly digest unless the user chose otherwise
in /goals (daily, weekly or off). The digest tells what happened since the last one: checks
run, what they found, how a watched figure moved, the cards shown and how the user answered,
what was done, the money spent, and what comes next. Every figure comes from the goal's
record (`Monitor` counters and `GoalTally`), never from the model, and no model is called.

A digest goes out when the goal parks after the first check at or past its time, so it costs
no job of its own and no check the plan did not allow; it is unprompted news, held through the
user's quiet hours like any other. When the watch's figure has come close to the limit the
user set, the digest says so and offers the change (the user decides).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Sequence

from deputy.agent.goal_tally import DigestChoice, DigestMark
from deputy.agent.goals import Goal, Monitor
from deputy.agent.time.local_time import day_words, moment_words
from deputy.core.records.outbox import Button, OutboxMessage

DAY = 86400.0
WEEK = 7 * DAY
PERIODS: dict[str, float] = {"daily": DAY, "weekly": WEEK}
SLACK = 3600.0
"""A check up to an hour early still carries the digest (checks drift a little from the mark's moment)."""
NEAR = 0.05
"""A watched figure within 5 % of its limit is near enough to offer the change."""
CHOICE_KINDS: dict[str, DigestChoice] = {"gdd": "daily", "gdw": "weekly", "gdo": "off"}
"""The /goals buttons that set a goal's digest."""


def runs_over_a_week(goal: Goal) -> bool:
    """Whether the goal's watch is set to run for more than a week (reminders never count)."""
    monitor = goal.monitor
    if monitor is None or monitor.reminder is not None:
        return False
    if monitor.until is not None:
        return monitor.until - goal.created_at > WEEK
    interval = monitor.every_seconds or (30 * DAY if monitor.every_months else 0.0)
    return interval * monitor.max_checks > WEEK


def digest_choice(goal: Goal) -> DigestChoice:
    """The user's choice, else the default: weekly for a goal running over a week, otherwise off."""
    monitor = goal.monitor
    if monitor is None:
        return "off"
    if monitor.digest is not None:
        return monitor.digest
    return "weekly" if runs_over_a_week(goal) else "off"


def mark_now(goal: Goal, now: float, sent: int | None = None) -> DigestMark:
    """Where the goal stands now, as the start of the next digest's period."""
    monitor = goal.monitor
    assert monitor is not None
    previous = monitor.digest_mark
    return DigestMark(at=now, checks_done=monitor.checks_done, news=monitor.news,
                      reminders=monitor.probe_state.reminders, value=monitor.probe_state.value,
                      tally=goal.tally.model_copy(deep=True),
                      sent=sent if sent is not None else (previous.sent if previous else 0))


def due(goal: Goal, now: float) -> bool:
    """A digest is due: the user gets one and the period since the last one has passed."""
    monitor = goal.monitor
    choice = digest_choice(goal)
    if monitor is None or monitor.digest_mark is None or choice == "off":
        return False
    return now + SLACK >= monitor.digest_mark.at + PERIODS[choice]


def digest_text(goal: Goal, now: float, extra: Sequence[str] = ()) -> str:
    """The digest, from the record: what happened since the mark, and what is next. `extra`: lines the
    goal's other records add (a negotiation's rounds and offers)."""
    monitor = goal.monitor
    assert monitor is not None and monitor.digest_mark is not None
    mark, zone, tally = monitor.digest_mark, monitor.timezone, goal.tally
    title = "Daily" if digest_choice(goal) == "daily" else "Weekly"
    lines = [f"🗞 {title} digest: “{monitor.what}”", f"Since {day_words(mark.at, zone)}:"]
    checks, news = monitor.checks_done - mark.checks_done, monitor.news - mark.news
    found = f"{news} found something new" if news else "nothing new found"
    lines.append(f"• {_count(checks, 'check')} run ({monitor.checks_done} in all); {found}")
    reminders = monitor.probe_state.reminders - mark.reminders
    if reminders:
        lines.append(f"• {_count(reminders, 'reminder')} sent to you")
    lines += _figure_lines(monitor, mark.value)
    cards = tally.cards - mark.tally.cards
    if cards:
        answered = tally.approved - mark.tally.approved
        declined = tally.declined - mark.tally.declined
        lines.append(f"• {_count(cards, 'card')} for you: {answered} approved, {declined} declined or expired")
    done = tally.actions_done - mark.tally.actions_done
    if done:
        lines.append(f"• {_count(done, 'action')} done:")
        lines += [f"   – {line}" for line in goal.done[-min(done, 5):]]
    for currency in sorted(tally.spent):
        spent = tally.spent_amount(currency) - mark.tally.spent_amount(currency)
        if spent:
            lines.append(f"• Spent: {_money(spent)} {currency}")
    lines += extra
    lines.append("Next: " + _next_words(monitor))
    suggestion = stale_plan(monitor)
    if suggestion:
        lines.append("💡 " + suggestion)
    lines.append("Change how often you get this in /goals.")
    return "\n".join(lines)


def stale_plan(monitor: Monitor) -> str | None:
    """A change to offer when the watched figure has come within reach of the user's limit."""
    probe, value = monitor.probe, monitor.probe_state.value
    if probe is None or probe.compare != "threshold" or value is None:
        return None
    if probe.below is not None and probe.below < value <= probe.below * (1 + NEAR):
        gap = value - probe.below
        return (f"{probe.field} is {value:g}, only {gap:g} above your limit of {probe.below:g}. "
                f"If {value:g} is good enough, press Edit on this goal in /goals and say so; I'll go on as it is "
                "otherwise.")
    if probe.above is not None and probe.above * (1 - NEAR) <= value < probe.above:
        gap = probe.above - value
        return (f"{probe.field} is {value:g}, only {gap:g} below your mark of {probe.above:g}. "
                f"If {value:g} is good enough, press Edit on this goal in /goals and say so; I'll go on as it is "
                "otherwise.")
    return None


def digest_message(goal: Goal, now: float, extra: Sequence[str] = ()) -> OutboxMessage:
    """The digest as an unprompted message (held in quiet hours), with buttons to change how often."""
    monitor = goal.monitor
    assert monitor is not None and monitor.digest_mark is not None
    return OutboxMessage(
        chat_id=goal.chat_id, text=digest_text(goal, now, extra), proactive=True, goal_id=goal.id,
        dedupe_key=f"{goal.id}:digest:{monitor.digest_mark.sent + 1}", buttons=[choice_buttons(goal)])


def change_message(goal: Goal, change: str) -> OutboxMessage:
    """The one-time offer of a change to the goal, with Edit (the goal's own button) to make it."""
    monitor = goal.monitor
    assert monitor is not None
    return OutboxMessage(chat_id=goal.chat_id, proactive=True, goal_id=goal.id,
                         dedupe_key=f"{goal.id}:change-offered", buttons=[[Button(text="Edit", sign=f"ge:{goal.id}"), Button(text="Keep", sign=f"gk:{goal.id}")]],
                         text=f"💡 “{monitor.what}”: {change.replace('press Edit on this goal in /goals', 'press Edit')}")


def choice_buttons(goal: Goal) -> list[Button]:
    """Buttons for the two digest choices the goal does not have now."""
    current = digest_choice(goal)
    words = {"daily": "Daily digest", "weekly": "Weekly digest", "off": "No digest"}
    return [Button(text=words[choice], sign=f"{kind}:{goal.id}")
            for kind, choice in CHOICE_KINDS.items() if choice != current]


def choice_line(goal: Goal) -> str:
    """The goal's digest as the goal card says it."""
    choice = digest_choice(goal)
    default = " (the default)" if goal.monitor is not None and goal.monitor.digest is None else ""
    return "🗞 Digest: off" + default if choice == "off" else f"🗞 Digest: {choice}{default}"


def _figure_lines(monitor: Monitor, before: float | None) -> list[str]:
    probe, value = monitor.probe, monitor.probe_state.value
    if probe is None or probe.compare != "threshold" or value is None:
        return []
    line = f"• {probe.field} now {value:g}"
    if before is not None and before != value:
        line += f" (was {before:g} at the last digest)"
    first = monitor.first_value
    if first is not None and first != value:
        better = first - value if probe.below is not None else value - first
        if better > 0:
            line += f"; {better:g} better than when I started ({first:g})"
        else:
            line += f"; {-better:g} worse than when I started ({first:g})"
    return [line]


def _next_words(monitor: Monitor) -> str:
    left = monitor.max_checks - monitor.checks_done
    until = f", watching until {day_words(monitor.until, monitor.timezone)}" if monitor.until else ""
    return f"next check {moment_words(monitor.next_at, monitor.timezone)} ({_count(left, 'check')} left{until})."


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _money(amount: Decimal) -> str:
    return f"{amount:.2f}"


__all__ = ["CHOICE_KINDS", "change_message", "choice_buttons", "choice_line", "digest_choice", "digest_message", "digest_text", "due",
           "mark_now", "runs_over_a_week", "stale_plan"]
