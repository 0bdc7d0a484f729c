"""Fault injection against the whole of Deputy, for `tests/e2e/test_faults.py` and `make bench`.

`run_faults(plan, workdir)` starts Deputy as real processes (emulator, bot, agent worker,
executor, model gateway) around a private Redis, the sandbox mail server and a scripted
model. Each of `plan.users` users texts a goal that needs one approved email; a user
agent approves every card as it appears, as a person would. Meanwhile an injector
SIGKILLs (the whole process tree) the agent worker, the executor, the gateway or the bot
at seeded random moments, some of them chosen: the executor between taking a job and
starting it, the executor while the mail server hangs in the middle of the SMTP
conversation (before or after it kept the email); it makes the model refuse for a
while and, if asked, restarts Redis. Every killed process is restarted.

Afterwards it reads the mail server and each user's chat and checks the promises:
every approved email went out exactly once, or its card said its outcome was unknown
(then Try again sends it at most once more and Drop it sends nothing); no goal stays
silently stuck longer than `plan.settle` seconds once the system is whole again; the
chat never says "Done" for an email that did not go out. The report says what was
injected and what was checked.
"""

from __future__ import annotations

import random
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel
from redis import Redis

from agent.model import ModelReply
from agent.testing import ChatRequest, ScriptedModelServer, ScriptedResponse, last_message, message_text, tool_call
from deputy.testing import ChatUser, DeputyStack, Message, RedisServer, wait_for
from sandbox.mail import LocalMailServer

KILLABLE = ("worker", "executor", "gateway", "bot")
_ADDRESS = re.compile(r"friend\d+@example\.org")


class FaultPlan(BaseModel):
    seed: int
    users: int = 6
    kills: int = 6
    targets: tuple[str, ...] = KILLABLE
    model_refusals: int = 1  # windows of a few seconds where the model answers 503
    redis_restart: Literal["none", "appendonly", "plain"] = "none"
    settle: float = 60.0  # a goal may take this long to finish once the system is whole again
    active: float = 40.0  # seconds over which the faults are spread


def waiting_for_jobs(redis: Redis, queue: str) -> bool:
    """Whether the workers of `queue` are idle, blocked in BLMOVE waiting for the next job.

    RQ marks a worker `idle` just before it blocks; the blocked connections are counted too
    (every idle worker of any queue has one).
    """
    keys = list(redis.smembers(f"rq:workers:{queue}"))
    if not keys or any(redis.hget(key, "state") != b"idle" for key in keys):
        return False
    idle = sum(1 for key in redis.smembers("rq:workers") if redis.hget(key, "state") == b"idle")
    return sum(1 for client in redis.client_list() if client.get("cmd") == "blmove") >= idle


def email_goal_script(request: ChatRequest) -> ModelReply:
    """Emails the address in the user's goal, then reports honestly what the tool said."""
    address = next((m for m in _ADDRESS.findall(request.prompt_text())), "friend0@example.org")
    last = last_message(request.messages) or {}
    if last.get("role") == "tool":
        outcome = message_text(last)
        if outcome.startswith("Email sent"):
            return tool_call("reply", text=f"Done: I emailed {address}.")
        return tool_call("reply", text=f"That didn't work: {outcome}")
    return tool_call("send_email", to=[address], subject="Running late", body="I'll be 10 minutes late.")


@dataclass
class UserTrack:
    """What one user saw and did."""

    user: ChatUser
    address: str
    sent_at: int = 0
    approved: set[int] = field(default_factory=set)
    pressed_at: dict[int, float] = field(default_factory=dict)
    unknown_cards: int = 0
    retries: int = 0
    drops: int = 0
    seen_unknown: set[int] = field(default_factory=set)
    final: str | None = None
    done_claims: list[str] = field(default_factory=list)


@dataclass
class FaultReport:
    plan: FaultPlan
    injected: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    seconds: float = 0.0
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


class _Run:
    def __init__(self, plan: FaultPlan, workdir: Path) -> None:
        self.plan = plan
        self.workdir = workdir
        self.random = random.Random(plan.seed)
        self.report = FaultReport(plan=plan)
        self.began = time.monotonic()
        self.refusing = threading.Event()
        self.injecting_done = threading.Event()
        self.whole_at = 0.0

    def log(self, text: str) -> None:
        self.report.injected.append(f"{time.monotonic() - self.began:6.1f}s {text}")

    # -- the model -----------------------------------------------------------------------

    def respond(self, request: ChatRequest) -> ModelReply | ScriptedResponse:
        if self.refusing.is_set():
            return ScriptedResponse.http_error(503, "overloaded (injected)")
        return email_goal_script(request)

    # -- the injector ----------------------------------------------------------------------

    def inject(self, stack: DeputyStack, mail: LocalMailServer, redis_server: RedisServer,
               names: dict[str, str]) -> None:
        plan = self.plan
        events: list[tuple[float, str]] = [(self.random.uniform(2, plan.active), "kill") for _ in range(plan.kills)]
        events += [(self.random.uniform(2, plan.active), "refuse") for _ in range(plan.model_refusals)]
        if plan.redis_restart != "none":
            events.append((self.random.uniform(plan.active / 3, plan.active), "redis"))
        start = time.monotonic()
        try:
            for at, kind in sorted(events):
                time.sleep(max(0.0, start + at - time.monotonic()))
                if kind == "refuse":
                    self.refusing.set()
                    self.log("model endpoint refuses (503) for 4 s")
                    time.sleep(4)
                    self.refusing.clear()
                elif kind == "redis":
                    self._restart_redis(redis_server)
                else:
                    self._kill(stack, mail, redis_server, names, self.random.choice(plan.targets))
        finally:
            mail.set_mode("accept")
            self.refusing.clear()
            for name in names.values():
                if not stack.alive(name):
                    stack.restart(name)
            self.whole_at = time.monotonic()
            self.log("system whole again (every process running, mail server and model healthy)")
            self.injecting_done.set()

    def _kill(self, stack: DeputyStack, mail: LocalMailServer, redis_server: RedisServer, names: dict[str, str],
              target: str) -> None:
        name = names[target]
        moment = "at a random moment"
        if target == "executor":
            moment = self.random.choice(["at a random moment", "between dequeue and start", "during SMTP"])
        redis = redis_server.client()
        try:
            if moment == "between dequeue and start":
                # Paused while blocked in BLMOVE: Redis still hands it the next job, which it never starts.
                if waiting_for_jobs(redis, "actions"):
                    stack.pause(name)
                    got = _wait_quietly(lambda: redis.llen("rq:queue:actions:intermediate") > 0, 8)
                    moment += " (it held a dequeued job)" if got else " (no job came in 8 s)"
                else:
                    moment = "at a random moment (it was busy, not waiting for a job)"
            elif moment == "during SMTP":
                mode = self.random.choice(["hang_before", "hang_after"])
                before = mail.data_sessions
                mail.set_mode(mode)
                got = _wait_quietly(lambda: mail.data_sessions > before, 8)
                kept = "kept the email" if mode == "hang_after" else "kept nothing"
                moment += f" (mail server hung in DATA and {kept})" if got else " (no email was being sent in 8 s)"
        finally:
            redis.close()
        stack.kill(name)
        mail.set_mode("accept")
        self.log(f"SIGKILL {target} ({name}) {moment}")
        time.sleep(self.random.uniform(0.3, 2.0))
        stack.restart(name)
        self.log(f"restarted {target}")

    def _restart_redis(self, redis_server: RedisServer) -> None:
        redis_server.stop()
        self.log(f"redis-server stopped (appendonly={'yes' if redis_server.appendonly else 'no'})")
        time.sleep(1)
        redis_server.start()
        self.log("redis-server started again on the same port")

    # -- the users ---------------------------------------------------------------------------

    def drive_users(self, tracks: list[UserTrack]) -> None:
        """Act as the users until every goal finished or the settle time after whole runs out."""
        while True:
            pending = [t for t in tracks if t.final is None]
            for track in pending:
                try:
                    self._act(track)
                except Exception as exc:  # the emulator itself never dies; a blip is retried
                    self.log(f"user {track.user.user_id}: could not read the chat ({type(exc).__name__})")
            if not [t for t in tracks if t.final is None] and self.injecting_done.is_set():
                return
            if self.injecting_done.is_set() and time.monotonic() > self.whole_at + self.plan.settle:
                return
            time.sleep(0.3)

    def _act(self, track: UserTrack) -> None:
        messages = track.user.bot_messages(after=track.sent_at)
        now = time.monotonic()
        for message in messages:
            text = message["text"]
            if text.startswith("Done:"):
                track.done_claims.append(text)
            buttons = [b["text"] for row in message["buttons"] for b in row]
            if "Outcome unknown" in text and message["message_id"] not in track.seen_unknown:
                track.seen_unknown.add(message["message_id"])
                track.unknown_cards += 1
            if "Approve" in buttons:
                self._press(track, message, "Approve", now)
            elif "Try again" in buttons:
                choice = self.random.choice(["Try again", "Drop it"])
                if self._press(track, message, choice, now):
                    if choice == "Try again":
                        track.retries += 1
                    else:
                        track.drops += 1
        finals = [m["text"] for m in messages if m["text"].startswith(("Done:", "That didn't work"))]
        if finals:
            track.final = finals[-1]

    def _press(self, track: UserTrack, message: Message, button: str, now: float) -> bool:
        """Press once; again only if the card still shows its buttons much later (the press was lost)."""
        key = message["message_id"] * 10 + ("Approve", "Try again", "Drop it").index(button)
        last = track.pressed_at.get(key)
        if last is not None and now - last < 15:
            return False
        first = last is None
        track.pressed_at[key] = now
        track.user.press(message["message_id"], button=button)
        self.log(f"user {track.user.user_id} pressed {button}" + ("" if first else " again (card unchanged)"))
        return first


def _wait_quietly(check, timeout: float) -> bool:
    try:
        wait_for(check, timeout=timeout, interval=0.02)
        return True
    except TimeoutError:
        return False


def run_faults(plan: FaultPlan, workdir: Path) -> FaultReport:
    run = _Run(plan, workdir)
    redis_server = RedisServer(workdir / "redis", appendonly=plan.redis_restart == "appendonly").start()
    mail = LocalMailServer(maildir_root=workdir / "mail", username="deputy", password="smtp-fault-run")
    mail.start()
    model = ScriptedModelServer(run.respond).start()
    smtp = {
        "DEPUTY_SMTP_HOST": "127.0.0.1", "DEPUTY_SMTP_PORT": str(mail.port), "DEPUTY_SMTP_USERNAME": "deputy",
        "DEPUTY_SMTP_PASSWORD": "smtp-fault-run", "DEPUTY_SMTP_FROM": "me@deputy.test",
        "DEPUTY_SMTP_STARTTLS": "false",
    }
    stack = DeputyStack(redis_server.url, model.base_url, workdir / "stack", smtp=smtp, gateway=True,
                        extra_env={"DEPUTY_MODEL_RETRY_DELAYS": "1,2,4,8"})
    try:
        stack.start()
        names = {"worker": stack.workers()[0], "executor": "executor", "gateway": stack.gateways()[0], "bot": "bot"}
        tracks = []
        for i in range(plan.users):
            user = stack.user(7000 + i, f"User{i}")
            address = f"friend{i}@example.org"
            track = UserTrack(user=user, address=address)
            track.sent_at = user.send(f"email {address} that I'll be 10 minutes late")
            tracks.append(track)
        run.log(f"{plan.users} users texted a goal that needs one approved email each")
        injector = threading.Thread(target=run.inject, args=(stack, mail, redis_server, names), daemon=True)
        injector.start()
        run.drive_users(tracks)
        injector.join(timeout=60)
        _check(run, tracks, mail)
        if not run.report.ok:
            run.report.logs = stack.logs()
    finally:
        stack.stop()
        model.stop()
        mail.stop()
        redis_server.stop()
    run.report.seconds = time.monotonic() - run.began
    return run.report


def _check(run: _Run, tracks: list[UserTrack], mail: LocalMailServer) -> None:
    report = run.report
    for track in tracks:
        who = f"user {track.user.user_id} ({track.address})"
        sent = len(mail.messages(track.address))
        allowed = 1 + track.retries
        summary = (f"{who}: {sent} email(s) sent, {track.unknown_cards} outcome-unknown card(s), "
                   f"{track.retries} Try again, {track.drops} Drop it; final: {track.final!r}")
        report.checked.append(summary)
        if track.final is None:
            report.violations.append(f"{who}: no final answer within {run.plan.settle:.0f} s of the system being "
                                     f"whole again (silently stuck)")
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
