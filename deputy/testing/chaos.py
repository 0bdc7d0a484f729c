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
from pathlib import Path

from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, ScriptedResponse, last_message, message_text, tool_call
from deputy.agent.goals import GoalStore
from deputy.testing.bot_crash import kill_bot_between_write_and_confirm
from deputy.testing.chaos_checks import FaultPlan, FaultReport, GoalTrack, check, count_goals, goal_states
from deputy.testing.stack import DeputyStack, Message, RedisServer, wait_for
from deputy.sandbox.mail import LocalMailServer

_ADDRESS = re.compile(r"friend[\d-]+@example\.org")


def waiting_for_jobs(redis: Redis, queue: str) -> bool:
    """Whether the worker of `queue` is idle, blocked in BLMOVE waiting for the next job.

    A killed worker's record stays behind until it expires, so only the newest worker of
    each queue counts (the tests run one per queue). RQ marks a worker `idle` just before
    it blocks; every idle worker's blocked connection must show too.
    """
    newest = {}
    for name in ("agent", "actions"):
        records = [redis.hgetall(key) for key in redis.smembers(f"rq:workers:{name}")]
        records = [r for r in records if r.get(b"birth")]
        if records:
            newest[name] = max(records, key=lambda r: r[b"birth"])
    if queue not in newest or newest[queue].get(b"state") != b"idle":
        return False
    idle = sum(1 for record in newest.values() if record.get(b"state") == b"idle")
    return sum(1 for client in redis.client_list() if client.get("cmd") == "blmove") >= idle


def email_goal_script(request: ChatRequest) -> ModelReply:
    """Emails the address in the user's goal, then reports honestly what the tool said."""
    said = [found for m in request.messages if m.get("role") == "user" for found in _ADDRESS.findall(message_text(m))]
    address = said[-1] if said else "friend0@example.org"  # the goal is the user's latest words
    last = last_message(request.messages) or {}
    if last.get("role") == "tool":
        outcome = message_text(last)
        if outcome.startswith("Email sent"):
            return tool_call("reply", text=f"Done: I emailed {address}.")
        return tool_call("reply", text=f"That didn't work: {outcome}")
    return tool_call("send_email", to=[address], subject="Running late", body="I'll be 10 minutes late.")


class _Run:
    def __init__(self, plan: FaultPlan, workdir: Path) -> None:
        self.plan = plan
        self.workdir = workdir
        self.random = random.Random(plan.seed)
        self.report = FaultReport(plan=plan)
        self.began = time.monotonic()
        self.refusing = threading.Event()
        self.injecting_done = threading.Event()
        self.first_card = threading.Event()
        self.whole_at = 0.0
        self.seen_cards: dict[tuple[int, int], float] = {}  # (user, message) -> when the card was first seen
        self.hold = threading.Event()  # users keep their hands off the buttons while set
        self.unpressed: set[tuple[int, int]] = set()  # cards seen and not yet pressed
        self.tracks: list[GoalTrack] = []  # every goal texted (the injector adds the ones it texts itself)
        self.bot_kills: list[GoalTrack] = []

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
        events += [(self.random.uniform(0, plan.active), f"chosen:{moment}") for moment in plan.chosen]
        if plan.redis_restart != "none":
            events.append((self.random.uniform(plan.active / 3, plan.active), "redis"))
        # Faults are spread over the time approvals flow, not over start-up.
        self.first_card.wait(timeout=120)
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
                elif kind.startswith("chosen:"):
                    self._chosen(stack, mail, redis_server, kind.partition(":")[2])
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

    def _chosen(self, stack: DeputyStack, mail: LocalMailServer, redis_server: RedisServer, moment: str) -> None:
        """Kill the executor at `moment`, timed on the next Approve a user presses (or the bot, on a goal texted)."""
        if moment == "bot_write_confirm":
            self._kill_bot_on_a_goal(stack, redis_server)
            return
        self.hold.set()
        redis = redis_server.client()
        try:
            if not _wait_quietly(lambda: bool(self.unpressed), 40):
                self.log(f"chosen kill {moment}: no card to press within 40 s, skipped")
                return
            if moment == "dequeue":
                if not _wait_quietly(lambda: waiting_for_jobs(redis, "actions"), 20):
                    self.log("chosen kill dequeue: the executor never waited for a job, skipped")
                    return
                stack.pause("executor")
                self.hold.clear()
                got = _wait_quietly(lambda: redis.llen("rq:queue:actions:intermediate") > 0, 20)
                what = "paused executor took an approved job (BLMOVE) and never started it" if got else                     "executor paused, but no job reached it in 20 s"
            else:
                before = mail.data_sessions
                mail.set_mode("hang_before" if moment == "smtp_before" else "hang_after")
                self.hold.clear()
                got = _wait_quietly(lambda: mail.data_sessions > before, 30)
                kept = "kept nothing" if moment == "smtp_before" else "kept the email"
                what = f"mail server hung in DATA and {kept}" if got else "no email reached the mail server in 30 s"
            stack.kill("executor")
            mail.set_mode("accept")
            self.log(f"SIGKILL executor, chosen moment: {what}")
            time.sleep(self.random.uniform(0.3, 2.0))
            stack.restart("executor")
            self.log("restarted executor")
        finally:
            self.hold.clear()
            mail.set_mode("accept")
            redis.close()

    def _kill_bot_on_a_goal(self, stack: DeputyStack, redis_server: RedisServer) -> None:
        """A new user texts a goal while Redis stalls; the bot dies after recording it, before confirming it."""
        user_id = 7900 + len(self.bot_kills)
        track = GoalTrack(user=stack.user(user_id, f"Late{user_id}", asks_before_sending=True),
                          address=f"friend{user_id}@example.org", next_goal=False)

        def send() -> None:
            track.sent_time = time.monotonic() - self.began
            track.sent_at = track.user.send(f"email {track.address} that I'll be 10 minutes late")

        recorded = kill_bot_between_write_and_confirm(stack, redis_server, send)
        self.bot_kills.append(track)
        self.tracks.append(track)
        self.log(f"SIGKILL bot, chosen moment: user {user_id} texted a goal while Redis stalled; the bot "
                 + ("died with its record of the update in Redis, unconfirmed" if recorded else
                    "died before its record reached Redis") + "; restarted")

    def _restart_redis(self, redis_server: RedisServer) -> None:
        redis_server.stop()
        self.report.redis_back_at = None
        self.log(f"redis-server stopped (appendonly={'yes' if redis_server.appendonly else 'no'})")
        time.sleep(1)
        redis_server.start()
        self.report.redis_back_at = time.monotonic() - self.began
        self.log("redis-server started again on the same port")

    # -- the users ---------------------------------------------------------------------------

    def drive_users(self, tracks: list[GoalTrack]) -> None:
        """Act as the users until every goal finished or the settle time after whole runs out."""
        while True:
            pending = [t for t in tracks if t.final is None]
            for track in pending:
                try:
                    self._act(track)
                except Exception as exc:  # the emulator itself never dies; a blip is retried
                    self.log(f"user {track.user.user_id}: could not read the chat ({type(exc).__name__})")
            for track in list(tracks):
                if track.final is not None and track.next_goal and not self.injecting_done.is_set():
                    track.next_goal = False
                    user_goals = sum(1 for t in tracks if t.user is track.user)
                    if user_goals < self.plan.goals_per_user:
                        tracks.append(GoalTrack(user=track.user, address=track.address.replace(
                            "@", f"-{user_goals}@"), send_after=time.monotonic() - self.began + 1.0))
            if not [t for t in tracks if t.final is None] and self.injecting_done.is_set():
                return
            if self.injecting_done.is_set() and time.monotonic() > self.whole_at + self.plan.settle:
                return
            time.sleep(0.3)

    def _act(self, track: GoalTrack) -> None:
        now = time.monotonic()
        if not track.sent_at:
            if now - self.began >= track.send_after:
                track.sent_time = now - self.began
                track.sent_at = track.user.send(f"email {track.address} that I'll be 10 minutes late")
                self.log(f"user {track.user.user_id} texted a goal (to {track.address})")
            return
        messages = track.user.bot_messages(after=track.sent_at)
        if messages and _refused(messages[0]["text"]) and not messages[0]["buttons"]:
            # Not acknowledged ("nothing was started"): a person sends it again.
            track.refusals.append(track.sent_time)
            track.sent_time = time.monotonic() - self.began
            track.sent_at = track.user.send(f"email {track.address} that I'll be 10 minutes late")
            self.log(f"user {track.user.user_id}: the bot refused the goal ({messages[0]['text'][:40]}...); "
                     "texted it again")
            return
        for message in messages:
            text = message["text"]
            if text.startswith("Done:"):
                track.done_claims.append(text)
            buttons = [b["text"] for row in message["buttons"] for b in row]
            if "Outcome unknown" in text and message["message_id"] not in track.seen_unknown:
                track.seen_unknown.add(message["message_id"])
                track.unknown_cards += 1
            if not buttons:
                continue
            seen = self.seen_cards.setdefault((track.user.user_id, message["message_id"]), now)
            if not self.first_card.is_set():
                self.first_card.set()
                self.log("first card visible: faults start now")
            key = (track.user.user_id, message["message_id"])
            if not any(k // 10 == message["message_id"] for k in track.pressed_at):
                self.unpressed.add(key)
            if self.hold.is_set() or now - seen < self._think(track, message):
                continue  # a person takes a moment to read the card (and keeps off while told to)
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

    def _think(self, track: GoalTrack, message: Message) -> float:
        # Seeded per card, so a run is repeatable whatever the polling order.
        return random.Random(f"{self.plan.seed}:{track.user.user_id}:{message['message_id']}").uniform(0.5, 6.0)

    def _press(self, track: GoalTrack, message: Message, button: str, now: float) -> bool:
        """Press once; again only if the card still shows its buttons much later (the press was lost)."""
        key = message["message_id"] * 10 + ("Approve", "Try again", "Drop it").index(button)
        last = track.pressed_at.get(key)
        if last is not None and now - last < 15:
            return False
        first = last is None
        track.pressed_at[key] = now
        self.unpressed.discard((track.user.user_id, message["message_id"]))
        track.user.press(message["message_id"], button=button)
        self.log(f"user {track.user.user_id} pressed {button}" + ("" if first else " again (card unchanged)"))
        return first


def _refused(text: str) -> bool:
    return "couldn't save that" in text or "Something went wrong on my side" in text


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
        offset = time.monotonic() - run.began
        tracks = run.tracks
        tracks += [
            GoalTrack(user=stack.user(7000 + i, f"User{i}", asks_before_sending=True), address=f"friend{i}@example.org",
                      send_after=offset + (0 if i == 0 else run.random.uniform(0, plan.active / 2)))
            for i in range(plan.users)
        ]
        run.log(f"stack up; {plan.users} users will each text a goal that needs one approved email")
        injector = threading.Thread(target=run.inject, args=(stack, mail, redis_server, names), daemon=True)
        injector.start()
        run.drive_users(tracks)
        injector.join(timeout=60)
        run.log(f"{len(tracks)} goals in all")
        run.report.goals = len(tracks)
        check(run.report, tracks, mail)
        with redis_server.client() as redis:
            count_goals(run.report, tracks, GoalStore(redis))
        if not run.report.ok:
            with redis_server.client() as redis:
                states = goal_states(redis, sorted({t.user.user_id for t in tracks}))
            run.report.logs = "\n".join(["===== where each goal stands =====", *states, "", stack.logs()])
    finally:
        stack.stop()
        model.stop()
        mail.stop()
        redis_server.stop()
    run.report.seconds = time.monotonic() - run.began
    return run.report
