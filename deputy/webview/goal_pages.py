"""The goals page (now / waiting / done) and one goal's page (its plan, its timeline, every action
with its full content, verdict, reasons, who decided, and where each value came from)."""

from __future__ import annotations

from html import escape

from deputy.agent.goals import Goal, GoalStatus, StepStatus
from deputy.agent.watch.watch_card import watch_line
from deputy.bot.activity import STATUS_WORDS, format_audit
from deputy.bot.texts import shorten
from deputy.core.records.actions import ActionState
from deputy.sentinel.shown import sent_text
from deputy.webview.flow_svg import flow_svg, legend
from deputy.webview.layout import when
from deputy.webview.story import ActionStory, Step, arguments_text

_NOW = {GoalStatus.running, GoalStatus.acting}
_WAITING = {GoalStatus.waiting_approval, GoalStatus.waiting_user, GoalStatus.paused, GoalStatus.scheduled,
            GoalStatus.waiting_children}
_MARKS = {StepStatus.done: ("✅", "done"), StepStatus.doing: ("▶️", "in progress"), StepStatus.todo: ("▫️", "to do")}
_WHO = {"user": "You said", "model": "Model step", "read": "Read", "deputy": "Deputy"}


def _badge(goal: Goal) -> str:
    kind = ("now" if goal.status in _NOW else "waiting" if goal.status in _WAITING else
            "done" if goal.status is GoalStatus.done else "stopped")
    return f"<span class='badge {kind}'>{escape(STATUS_WORDS[goal.status])}</span>"


def _plan(goal: Goal) -> str:
    if not goal.plan:
        return ""
    items = "".join(f"<li>{_MARKS[s.status][0]} <span class='visually'>{escape(s.title)}</span> "
                    f"<span class='muted'>({_MARKS[s.status][1]})</span></li>" for s in goal.plan)
    return f"<ul class='plan' aria-label='Plan'>{items}</ul>"


def _monitor(goal: Goal) -> str:
    if goal.monitor is None or goal.status.finished:
        return ""
    return (f"<p>👀 {escape(watch_line(goal.monitor))}<br><span class='muted'>Next check: "
            f"{when(goal.monitor.next_at)}</span></p>")


def goals_body(goals: list[Goal]) -> str:
    groups = (("Now", [g for g in goals if g.status in _NOW]),
              ("Waiting", [g for g in goals if g.status in _WAITING]),
              ("Done and stopped", [g for g in goals if g.status.finished]))
    if not goals:
        return "<p>No goals yet. Text Deputy a goal in the chat and it shows up here.</p>"
    parts = []
    for title, members in groups:
        if not members:
            continue
        parts.append(f"<h2>{title} ({len(members)})</h2>")
        for goal in members:
            parts.append(
                f"<section class='card'><h3><a href='/web/goal/{escape(goal.id)}'>{escape(shorten(goal.text, 140))}"
                f"</a>{_badge(goal)}</h3><p class='muted'>Started {when(goal.created_at)} · "
                f"{goal.step} steps</p>{_monitor(goal)}{_plan(goal)}</section>")
    return "".join(parts)


def _who_decided(story: ActionStory) -> str:
    kinds = [e.kind for e in story.entries]
    decided = next((e for e in reversed(story.entries) if e.kind == "approval_decided"), None)
    if decided is not None:
        return f"You decided, with a tap: {escape(str(decided.detail.get('decision', '')))}"
    review = next((e for e in story.entries if e.kind == "review"), None)
    if "approval_expired" in kinds:
        return "Nobody answered in time: the question expired"
    if review is None:
        return "Not reviewed yet"
    verdict = review.detail.get("verdict")
    if verdict == "allow":
        return "The guard allowed it by its rules and yours"
    if verdict == "deny":
        return "The guard refused it"
    return "The guard asked you" + (" — waiting for your answer" if story.pending else "")


def _content(story: ActionStory) -> str:
    """Exactly what goes (or went) out; the "Sent this..." headline only once it ran."""
    content = sent_text(story.record.action, whole=True)
    return content if story.record.state is ActionState.succeeded else content.split("\n\n", 1)[-1]


def action_card(story: ActionStory, form_token: str) -> str:
    action = story.record.action
    review = next((e for e in story.entries if e.kind == "review"), None)
    verdict = str(review.detail.get("verdict", "")) if review else ""
    reasons = review.detail.get("reasons", []) if review else []
    untrusted = review.detail.get("untrusted", []) if review else []
    state = story.record.state
    css = "ok" if state is ActionState.succeeded else "bad" if state.terminal else ""
    parts = [f"<article class='card' id='action-{escape(action.id)}' aria-label='Action'>"
             f"<h3>{escape(action.connector)}.{escape(action.operation)} <span class='badge'>"
             f"{escape(action.effect.value)}</span></h3>",
             f"<p>State: <span class='verdict {css}'>{escape(state.value.replace('_', ' '))}</span>"
             + (f" · guard's verdict: <span class='verdict'>{escape(verdict)}</span>" if verdict else "") + "</p>",
             f"<p><span class='who'>Who decided:</span> {_who_decided(story)}</p>",
             f"<p class='muted'>Full content:</p><pre>{escape(_content(story))}</pre>"]
    if reasons:
        parts.append("<p class='who'>Reasons</p><ul>" + "".join(f"<li>{escape(str(r))}</li>" for r in reasons)
                     + "</ul>")
    if untrusted:
        parts.append("<p class='who'>Values from outside content</p><ul>"
                     + "".join(f"<li>{escape(str(u))}</li>" for u in untrusted) + "</ul>")
    if story.flows:
        when_traced = ("Traced now from what the goal holds today: this action's review kept no picture of its own."
                       if story.flows_now else "As the guard saw it when it reviewed this action.")
        parts.append(f"<h4>Where each value came from</h4><p class='muted'>{when_traced}</p>" + legend()
                     + flow_svg(story.flows, key=f"f{escape(action.id)}"))
    if story.record.outcome:
        parts.append(f"<details><summary>Outcome</summary><pre>{escape(story.record.outcome)}</pre></details>")
    if story.entries:
        parts.append("<details><summary>Its audit entries</summary><ul>"
                     + "".join(f"<li>{escape(format_audit(e))}</li>" for e in story.entries) + "</ul></details>")
    if story.pending is not None:
        pending = story.pending
        approve, deny = ("Try again", "Drop it") if pending.kind == "outcome_unknown" else ("Approve", "Deny")
        parts.append(
            f"<form class='decide' method='post' action='/web/decide/{escape(pending.id)}'>"
            f"<input type='hidden' name='form' value='{escape(form_token)}'>"
            f"<button class='approve' name='choice' value='approve'>{approve}</button>"
            f"<button class='deny' name='choice' value='deny'>{deny}</button></form>"
            f"<p class='muted'>Expires {when(pending.expires_at)}. The chat's card changes too; each answer "
            "counts once.</p>")
    if story.undo is not None:
        what = "Nothing is sent if you undo now." if story.undo == "send" else "Undo takes the change back."
        parts.append(
            f"<form class='decide' method='post' action='/web/undo/{escape(action.id)}'>"
            f"<input type='hidden' name='form' value='{escape(form_token)}'>"
            f"<button class='deny' type='submit'>Undo</button></form><p class='muted'>{what} The chat's Undo "
            "and this one count once.</p>")
    parts.append("</article>")
    return "".join(parts)


def _step(step: Step, form_token: str) -> str:
    if step.kind == "action" and step.action is not None:
        return f"<li class='action'>{action_card(step.action, form_token)}</li>"
    origin = step.kind if step.kind in ("user", "model") else "outside" if step.kind == "read" else "deputy"
    head = f"<span class='who'>{_WHO.get(step.kind, step.kind)}</span>"
    if step.kind == "read":
        head += f" <span class='badge untrusted'>untrusted</span> <span class='muted'>from {escape(step.origin or '')}" \
                "</span>"
        body = f"<details><summary>What was read ({len(step.text):,} characters)</summary><pre>{escape(step.text)}" \
               "</pre></details>"
    else:
        body = f"<pre>{escape(step.text)}</pre>" if step.text.strip() else ""
    calls = "".join(f"<p class='muted'>asks for <code>{escape(name)}</code></p><pre>{escape(arguments_text(args))}"
                    "</pre>" for name, args in step.calls)
    return f"<li class='{origin}'>{head}{body}{calls}</li>"


def goal_body(goal: Goal, steps: list[Step], form_token: str) -> str:
    head = (f"<section class='card'><p>{_badge(goal)}</p><p class='muted'>Started {when(goal.created_at)}, "
            f"last change {when(goal.updated_at)} · {goal.step} steps · "
            f"{goal.prompt_tokens + goal.completion_tokens:,} tokens</p>{_monitor(goal)}")
    if goal.plan:
        head += "<h2>Plan</h2>" + _plan(goal)
    if goal.done:
        head += "<h2>Done so far</h2><ul>" + "".join(f"<li>{escape(line)}</li>" for line in goal.done) + "</ul>"
    head += "</section>"
    timeline = "".join(_step(step, form_token) for step in steps)
    return (head + "<h2>Every step, in order</h2>"
            f"<ol class='timeline'>{timeline or '<li>Nothing has happened yet.</li>'}</ol>")
