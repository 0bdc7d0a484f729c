"""What a user reads about their plan: refusals, "you are near a limit", and the /plan summary."""

from __future__ import annotations

from deputy.core.accounts.plans import CAPABILITIES
from deputy.core.accounts.quota_periods import reset_words

_WHAT = {
    "goals": "new goals",
    "checks": "background checks",
    "tokens": "model use",
    "active_goals": "goals in progress at once",
    "services": "connected services",
    "files": "stored files",
    "memories": "memories",
}


def what(counter: str) -> str:
    """A counter in words: `tokens:gpt-4.1-mini` is "use of the model gpt-4.1-mini"."""
    if counter.startswith("tokens:"):
        return f"use of the model {counter.partition(':')[2]}"
    return _WHAT.get(counter, counter)


_MAKE_ROOM = {
    "memories": " Forget one in /memory first to make room.",
    "files": " Files are kept for a week, so there will be room again soon.",
    "services": " Disconnect one in /connections first to make room.",
}


def _period(period: str) -> str:
    return {"day": "today's", "month": "this month's"}.get(period, "your")


def refusal_text(refusal, now: float, zone: str | None, upgrade: str, doing: str = "start this goal") -> str:
    """Which limit, when it resets, and how to get more: the answer to a goal the plan has no room for."""
    if refusal.period == "suspended":
        return ("Your account is on hold, so I can't " + doing + " right now. Nothing you already approved is "
                "lost. Please contact the person who runs this Deputy.")
    if refusal.period == "plan":
        return (f"Your {refusal.plan} plan doesn't include {CAPABILITIES.get(refusal.counter, refusal.counter)}, "
                f"so I can't {doing}. {upgrade}")
    if refusal.period == "held":
        extra = (" When one of them finishes (or you cancel one with /goals) there will be room again."
                 if refusal.counter == "active_goals" else _MAKE_ROOM.get(refusal.counter, ""))
        return (f"You have reached your {refusal.plan} plan's limit of {refusal.limit:,} {what(refusal.counter)}, "
                f"so I can't {doing}.{extra} {upgrade}")
    when = reset_words(refusal.resets, now, zone) if refusal.resets is not None else "later"
    return (f"You have used {_period(refusal.period)} {what(refusal.counter)} on your {refusal.plan} plan "
            f"(limit {refusal.limit:,}), so I can't {doing}. It resets {when}. {upgrade} /plan shows what you have used.")


def near_text(near, now: float, zone: str | None) -> str:
    left = max(0, near.limit - near.used)
    when = reset_words(near.resets, now, zone)
    if near.counter.startswith("tokens"):
        share = round(100 * near.used / near.limit) if near.limit else 100
        return (f"Heads up: you have used {share}% of {_period(near.period)} {what(near.counter)}. "
                f"It resets {when}. /plan shows the details.")
    return (f"Heads up: {left:,} of {_period(near.period)} {near.limit:,} {what(near.counter)} left. "
            f"It resets {when}.")


def plan_text(usage, now: float, upgrade: str) -> str:
    """/plan: the plan, what is used today and this month, and when each resets."""
    plan, span = usage.plan, usage.periods
    lines = [f"Your plan: {plan.title}" + (" (on hold)" if usage.suspended else "")]
    for period, title in (("day", "Today"), ("month", "This month")):
        window = plan.window(period)
        used = usage.used.get(period, {})
        counters = list(dict.fromkeys(["goals", "checks", "tokens", *window.counters()]))
        parts = []
        for counter in counters:
            limit = window.limit(counter)
            value = used.get(counter, 0)
            parts.append(f"• {what(counter)}: {value:,}" + (f" of {limit:,}" if limit is not None else " (no limit)"))
        lines.append(f"\n{title} (resets {reset_words(span.resets(period), now, span.zone)}):")
        lines += parts
    held = f"{usage.held:,} of {plan.active_goals:,}" if plan.active_goals is not None else f"{usage.held:,}"
    lines.append(f"\nGoals in progress: {held}")
    included = "everything" if "*" in plan.capabilities else ", ".join(plan.capabilities) or "nothing extra"
    lines.append(f"Included: {included}")
    lines.append(f"\n{upgrade}")
    return "\n".join(lines)
