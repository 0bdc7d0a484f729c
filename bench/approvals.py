"""Approval round trip: from the user's press to the approved action starting.

    python -m bench.approvals [--samples 25]

The whole of Deputy runs as real processes (`DeputyStack`: emulator, bot, agent worker,
executor) with the scripted model asking to email Alice and a local SMTP server. For each
sample a new user texts the goal and waits for the approval card; then the clock starts
and the user presses Approve. Timestamps come from Deputy's own audit trail (written by
the bot and the executor with the machine's clock): the bot recording the decision, and
the executor's second review clearing exactly the approved action, right before it runs.
That is our overhead; the email's delivery after it is the connector's time.

Baseline in the same run: a raw RQ no-op round trip with a bare forking worker on the
same Redis, the floor under the one queue hop between the bot and the executor.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, last_message, message_text, tool_call
from bench import rq_floor
from bench.procs import Processes
from bench.stats import Summary, ratio, table
from deputy.testing.stack import DeputyStack, RedisServer, wait_for
from deputy.sandbox.mail import LocalMailServer
from deputy.sentinel.stores.audit import AuditEntry, AuditLog

GOAL = "email alice@example.org that I'll be 10 minutes late"
FLOOR_QUEUE = "bench-floor"


def email_model(request: ChatRequest) -> ModelReply:
    """Emails Alice, then reports what happened."""
    last = last_message(request.messages) or {}
    if last.get("role") == "tool":
        return tool_call("reply", text=f"Done: {message_text(last)[:80]}")
    return tool_call("send_email", to=["alice@example.org"], subject="Running late",
                     body="Hi Alice, I'll be 10 minutes late. Sorry!")


@dataclass
class ApprovalReport:
    card: Summary  # goal texted -> card visible to the user (informational, polled every 5 ms)
    to_bot: Summary  # press -> the bot recorded the decision and enqueued the action
    to_start: Summary  # press -> the executor cleared the approved action (it starts)
    to_sent: Summary  # press -> the email was handed to SMTP
    floor: Summary  # raw RQ no-op round trip, forking worker

    def print(self) -> None:
        print("(6) Approval round trip after the press (our overhead), ms")
        rows = [("press -> bot recorded the decision", self.to_bot),
                ("press -> approved action starts (executor cleared it)", self.to_start),
                ("press -> email handed to SMTP (includes the send)", self.to_sent),
                ("raw RQ no-op round trip, rq.Worker (floor)", self.floor),
                ("goal texted -> card on screen (informational)", self.card)]
        print(table(["what", "n", "median", "p99", "median vs floor", "p99 vs floor"],
                    [(name, s.n, s.median_ms, s.p99_ms, ratio(s.median, self.floor.median), ratio(s.p99, self.floor.p99))
                     for name, s in rows]))


def _entry(audit: AuditLog, user_id: int, match) -> AuditEntry | None:
    return next((e for e in audit.entries(user_id) if match(e)), None)


def run(workdir: Path, samples: int = 25, warmups: int = 2) -> ApprovalReport:
    redis_server = RedisServer(workdir / "redis").start()
    mail = LocalMailServer(maildir_root=workdir / "mail", username="deputy", password="bench-smtp-password")
    mail.start()
    model = ScriptedModelServer(email_model).start()
    processes = Processes(workdir / "procs")
    smtp = {"DEPUTY_SMTP_HOST": "127.0.0.1", "DEPUTY_SMTP_PORT": str(mail.port), "DEPUTY_SMTP_USERNAME": "deputy",
            "DEPUTY_SMTP_PASSWORD": "bench-smtp-password", "DEPUTY_SMTP_FROM": "me@deputy.test",
            "DEPUTY_SMTP_STARTTLS": "false"}
    stack = DeputyStack(redis_server.url, model.base_url, workdir / "stack", smtp=smtp)
    try:
        stack.start()
        redis = redis_server.client()
        audit = AuditLog(redis)
        processes.start("floor", "bench.rq_floor", [FLOOR_QUEUE], {**os.environ, "REDIS_URL": redis_server.url})
        card_times, to_bot, to_start, to_sent = [], [], [], []
        for i in range(samples + warmups):  # the first ones warm the processes up
            user = stack.user(60_000 + i, asks_before_sending=True)
            started = time.perf_counter()
            sent = user.send(GOAL)
            card = wait_for(lambda user=user, sent=sent: next(
                (m for m in user.bot_messages(sent) if m["buttons"] and m["buttons"][0][0]["text"] == "Approve"), None),
                timeout=60, interval=0.005, what="the approval card")
            shown = time.perf_counter() - started
            pressed = time.time()
            assert user.press(card["message_id"], button="Approve").status_code == 200
            cleared = wait_for(lambda user=user: _entry(audit, user.user_id, lambda e: e.kind == "review"
                                                        and e.detail.get("verdict") == "allow"),
                               timeout=60, interval=0.005, what="the approved action to start")
            decided = _entry(audit, user.user_id, lambda e: e.kind == "approval_decided")
            done = wait_for(lambda user=user: _entry(audit, user.user_id, lambda e: e.kind == "action_succeeded"),
                            timeout=60, interval=0.005, what="the email to be sent")
            if i >= warmups:
                card_times.append(shown)
                to_bot.append(decided.at - pressed if decided else float("nan"))
                to_start.append(cleared.at - pressed)
                to_sent.append(done.at - pressed)
        rq_floor.round_trips(redis, FLOOR_QUEUE, 5)
        floor = rq_floor.round_trips(redis, FLOOR_QUEUE, max(samples * 2, 10))
        return ApprovalReport(Summary.of(card_times), Summary.of(to_bot), Summary.of(to_start), Summary.of(to_sent),
                              Summary.of(floor))
    finally:
        processes.stop()
        stack.stop()
        model.stop()
        mail.stop()
        redis_server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.approvals", description=__doc__)
    parser.add_argument("--samples", type=int, default=25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        run(Path(tmp), args.samples).print()


if __name__ == "__main__":
    main()
