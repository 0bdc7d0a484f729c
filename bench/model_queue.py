"""Twenty users at once on the real local model: time to the last card vs twenty goals one by one.

    python -m bench.model_queue [--users 20]

Starts the local model as `deputy run` does (llama.cpp, one slot; built and fetched into
the cache on first use) and the whole of Deputy with the model gateway. After one goal
that warms the model's prompt cache, one user's goal alone: the time from texting it to its approval card (or answer) is one goal's time.
Then twenty users text the same kind of goal at the same moment. The gateway sends the
model one call at a time and queues the rest round robin, so the last card should come
after about twenty goals' time, and no goal should be stopped by a timeout. Prints the
time to each user's first waiting notice, to the last card, the ratio to 20 x one goal,
and how many goals were stopped or told they were waiting. Takes many minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from deputy.local_model.model import MODEL_TIMEOUT, ensure_local_model
from deputy.settings import Settings
from deputy.testing.stack import ChatUser, DeputyStack, Message, RedisServer, wait_for
from deputy.sandbox.mail import LocalMailServer

GOAL = "email {name}@example.org that I'll be 10 minutes late"
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "nina",
         "oscar", "peggy", "quinn", "rupert", "sybil", "trent", "ursula", "victor"]


def reached(message: Message) -> bool:
    """The goal's card, or its answer: anything but the acknowledgement and the waiting notices."""
    text = message["text"]
    if any(b.get("text") == "Approve" for row in message["buttons"] for b in row):
        return True
    return not (text.startswith("On it.") or text.startswith("Waiting for the model:")
                or text == "The model is working on your goal now.")


@dataclass
class QueueReport:
    users: int
    one_goal_s: float
    last_card_s: float
    first_notice_s: float | None
    told: int
    stopped: int
    cards: int

    def print(self) -> None:
        expected = self.users * self.one_goal_s
        print(f"one goal alone: {self.one_goal_s:.0f} s to its card (or answer)")
        print(f"{self.users} users at once: last card after {self.last_card_s:.0f} s; "
              f"{self.users} x one goal = {expected:.0f} s; ratio {self.last_card_s / expected:.2f}")
        print(f"goals that reached their card: {self.cards}/{self.users}; answered with something else: "
              f"{self.users - self.cards - self.stopped}; stopped by the model failing: {self.stopped}")
        notice = f"{self.first_notice_s:.0f} s" if self.first_notice_s is not None else "never"
        print(f"users told they were waiting: {self.told}/{self.users} (first notice after {notice})")


def sandbox_mail(workdir: Path) -> tuple[LocalMailServer, dict[str, str]]:
    """A started local mail server and the executor's settings to send through it."""
    mail = LocalMailServer(maildir_root=workdir / "mail", username="deputy", password="bench-smtp-password")
    mail.start()
    return mail, {"DEPUTY_SMTP_HOST": "127.0.0.1", "DEPUTY_SMTP_PORT": str(mail.port),
                  "DEPUTY_SMTP_USERNAME": "deputy", "DEPUTY_SMTP_PASSWORD": "bench-smtp-password",
                  "DEPUTY_SMTP_FROM": "me@deputy.test", "DEPUTY_SMTP_STARTTLS": "false"}


def run(workdir: Path, users: int = 20) -> QueueReport:
    settings = Settings()
    local = ensure_local_model(settings.cache_path(), lambda line: print(line, flush=True),
                               gguf=settings.local_gguf, threads=settings.local_threads)
    redis = RedisServer(workdir / "redis", appendonly=True).start()
    mail, smtp = sandbox_mail(workdir)
    # Exactly the settings `deputy run` gives Deputy for the local model (one slot, its timeout).
    stack = DeputyStack(redis.url, local.base_url, workdir / "stack", smtp=smtp, extra_env=local.env(), gateway=True)
    try:
        stack.start()
        # A first goal warms llama-server's prompt cache (the system prompt and tools every goal shares).
        warm = stack.user(69_999, "Warm", asks_before_sending=True)
        warm.wait_for_bot(reached, after=warm.send(GOAL.format(name="yves")), timeout=4 * MODEL_TIMEOUT)
        solo = stack.user(70_000, "Solo", asks_before_sending=True)
        started = time.monotonic()
        sent = solo.send(GOAL.format(name="zoe"))
        solo.wait_for_bot(reached, after=sent, timeout=4 * MODEL_TIMEOUT)
        one_goal = time.monotonic() - started

        crowd = [stack.user(70_001 + i, NAMES[i % len(NAMES)].title(), asks_before_sending=True) for i in range(users)]
        started = time.monotonic()
        for i, user in enumerate(crowd):
            user.send(GOAL.format(name=NAMES[i % len(NAMES)]))
        first_notice: float | None = None
        done: dict[int, Message] = {}

        def all_reached() -> bool:
            nonlocal first_notice
            for user in crowd:
                messages = user.bot_messages()
                if first_notice is None and any(m["text"].startswith("Waiting for the model:") or
                                                m["text"] == "The model is working on your goal now."
                                                for m in messages):
                    first_notice = time.monotonic() - started
                if user.user_id not in done:
                    found = next((m for m in messages if reached(m)), None)
                    if found is not None:
                        done[user.user_id] = found
            return len(done) == len(crowd)

        wait_for(all_reached, timeout=users * 4 * MODEL_TIMEOUT, interval=1.0, what="every user's card or answer")
        last = time.monotonic() - started
        return QueueReport(
            users=users, one_goal_s=one_goal, last_card_s=last, first_notice_s=first_notice,
            told=sum(1 for u in crowd if _was_told(u)),
            stopped=sum(1 for m in done.values() if "language model" in m["text"]),
            cards=sum(1 for m in done.values() if m["buttons"]),
        )
    finally:
        stack.stop()
        mail.stop()
        redis.stop()
        local.stop()


def _was_told(user: ChatUser) -> bool:
    return any(m["text"].startswith("Waiting for the model:") or m["text"] == "The model is working on your goal now."
               for m in user.bot_messages())


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.model_queue", description=__doc__)
    parser.add_argument("--users", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        run(Path(tmp), args.users).print()


if __name__ == "__main__":
    main()
