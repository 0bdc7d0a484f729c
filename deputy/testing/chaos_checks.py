"""What a fault run is asked to do (`FaultPlan`), what it saw (`GoalTrack`), and the verdict.

`check` holds the promises a fault run verifies, read from the sandbox mail server and
each user's chat; `FaultReport` says what was injected and what was checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel
from redis import Redis

from deputy.agent.goals import GoalStore
from deputy.queue.dispatch import goal_unit
from deputy.queue.inflight import Inflight, lease_held
from deputy.testing.stack import ChatUser
from deputy.sandbox.mail import LocalMailServer

KILLABLE = ("worker", "executor", "gateway", "bot")


class FaultPlan(BaseModel):
    seed: int
    users: int = 6
    kills: int = 6
    targets: tuple[str, ...] = KILLABLE
    # Kills at chosen moments, each timed on a real approval: "dequeue" (executor paused while
    # waiting for a job, Approve pressed, job taken, executor killed before starting it),
    # "smtp_before" / "smtp_after" (Approve pressed, mail server hangs in DATA having kept
    # nothing / the email, executor killed midway); "bot_write_confirm" (a user texts a goal while
    # Redis stalls; the bot is killed once its record of the update waits in Redis, before
    # its next getUpdates confirms it, so the restarted bot has the update twice).
    chosen: tuple[str, ...] = ("dequeue", "smtp_before", "smtp_after")
    model_refusals: int = 1  # windows of a few seconds where the model answers 503
    redis_restart: Literal["none", "appendonly", "plain"] = "none"
    goals_per_user: int = 3  # each user texts the next goal when the last one is answered, while faults go on
    # Whether the bot may refuse a message once Redis is back ("I can't reach my storage"):
    # a person sends it again, and nothing was acknowledged, so nothing is lost either way.
    refusals_after_restart_ok: bool = True
    settle: float = 60.0  # a goal may take this long to finish once the system is whole again
    active: float = 40.0  # seconds over which the faults are spread


@dataclass
class GoalTrack:
    """One goal of one user (one email to its own address): what the user saw and did."""

    user: ChatUser
    address: str
    send_after: float = 0.0  # seconds into the run when the user texts the goal
    sent_at: int = 0  # the goal message's id (0: not sent yet)
    approved: set[int] = field(default_factory=set)
    pressed_at: dict[int, float] = field(default_factory=dict)
    unknown_cards: int = 0
    retries: int = 0
    drops: int = 0
    seen_unknown: set[int] = field(default_factory=set)
    final: str | None = None
    done_claims: list[str] = field(default_factory=list)
    sent_time: float = 0.0  # when the goal was last texted (seconds into the run)
    refusals: list[float] = field(default_factory=list)  # when goal messages the bot refused were texted
    next_goal: bool = True  # the user will text another goal once this one is answered


@dataclass
class FaultReport:
    plan: FaultPlan
    injected: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    seconds: float = 0.0
    redis_back_at: float | None = None
    goals: int = 0
    doubled_goals: int = 0
    logs: str = ""

    @property
    def ok(self) -> bool:
        return not self.violations

    def text(self) -> str:
        lines = [f"fault run {self.plan.model_dump()} in {self.seconds:.0f} s", "injected:"]
        lines += [f"  {line}" for line in self.injected]
        lines.append("checked:")
        lines += [f"  {line}" for line in self.checked]
        if self.violations:
            lines.append("VIOLATIONS:")
            lines += [f"  {line}" for line in self.violations]
            lines.append(self.logs)
        return "\n".join(lines)


def check(report: FaultReport, tracks: list[GoalTrack], mail: LocalMailServer) -> None:
    """Add what was checked, and every broken promise, to `report`."""
    for track in tracks:
        who = f"user {track.user.user_id} ({track.address})"
        sent = len(mail.messages(track.address))
        allowed = 1 + track.retries
        summary = (f"{who}: {sent} email(s) sent, {track.unknown_cards} outcome-unknown card(s), "
                   f"{track.retries} Try again, {track.drops} Drop it; final: {track.final!r}")
        report.checked.append(summary)
        late = [at for at in track.refusals if report.redis_back_at is not None and at > report.redis_back_at + 1]
        if track.refusals:
            report.checked.append(f"{who}: the bot refused the goal {len(track.refusals)} time(s) "
                                  f"(texted at {', '.join(f'{at:.0f}' for at in track.refusals)} s); it was texted again")
        if late and not report.plan.refusals_after_restart_ok:
            report.violations.append(f"{who}: a goal texted at {late[0]:.0f} s was refused although Redis was back at "
                                     f"{report.redis_back_at:.0f} s")
        if track.final is None:
            try:
                chat = [m["text"][:80] for m in track.user.bot_messages(after=track.sent_at)] if track.sent_at else []
            except Exception as exc:  # the report must come out even if the chat cannot be read
                chat = [f"(chat unreadable: {type(exc).__name__})"]
            report.violations.append(f"{who}: no final answer within {report.plan.settle:.0f} s of the system being "
                                     f"whole again (silently stuck); goal texted at {track.sent_time:.0f} s, "
                                     f"the chat since: {chat}")
        if sent > allowed:
            report.violations.append(f"{who}: {sent} emails for {allowed} permitted run(s)")
        if track.unknown_cards == 0 and sent != 1 and not (sent == 0 and track.final
                                                           and track.final.startswith("That didn't work")):
            report.violations.append(f"{who}: {sent} emails sent without any outcome-unknown card (expected exactly 1)")
        if track.done_claims and sent == 0:
            report.violations.append(f"{who}: told {track.done_claims[0]!r} but nothing was sent")
        if track.final and track.final.startswith("That didn't work") and sent and track.unknown_cards == 0:
            report.violations.append(f"{who}: told it didn't work, but the email went out")
    report.checked.append(
        "invariants: each approved email sent exactly once or its card said the outcome is unknown; "
        "never more emails than the runs the user allowed; never 'Done' without an email; every goal answered"
    )


def count_goals(report: FaultReport, tracks: list[GoalTrack], goals: GoalStore) -> None:
    """One goal texted is at most one goal stored (Redis restarted empty may have lost some)."""
    doubled = 0
    for user in {id(t.user): t.user for t in tracks}.values():
        texted = sum(1 for t in tracks if t.user is user and t.sent_at)
        stored = len(goals.recent(user.user_id, limit=100))
        if stored > texted:
            doubled += stored - texted
            report.violations.append(f"user {user.user_id}: {stored} goals stored for {texted} texted")
    report.doubled_goals = doubled
    report.checked.append(f"goals stored vs texted: {doubled} doubled")


def goal_states(redis: Redis, user_ids: list[int]) -> list[str]:
    """For a failed run's report: each goal's status and step, what it waits on, and the job that should move it."""
    goals, inflight, lines = GoalStore(redis), Inflight(redis), []
    for user_id in user_ids:
        for goal in goals.recent(user_id, limit=100):
            registration = inflight.get(goal_unit(goal.id))
            job = (f"unit names {registration.job_id} (step {registration.payload.get('step')}, "
                   f"attempt {registration.attempts}, RQ status {redis.hget(f'rq:job:{registration.job_id}', 'status')!r}, "
                   f"lease {'held' if lease_held(redis, goal_unit(goal.id)) else 'free'})"
                   if registration is not None else "no unit registered")
            waits = (f"model request {goal.waiting_model.request_id} (step {goal.waiting_model.step})"
                     if goal.waiting_model is not None else f"action {goal.pending_action_id}"
                     if goal.pending_action_id else "nothing")
            lines.append(f"user {user_id} goal {goal.id}: {goal.status.value}, step {goal.step}, waits on {waits}; {job}")
    return lines
