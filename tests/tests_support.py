"""Scripts and helpers shared by several tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, last_message, message_text, tool_call
from deputy.sandbox.mail import LocalMailServer
from deputy.sandbox.mailstore import DEMO_PASSWORD, MailStore

GOAL = "email alice@example.org that I'll be 10 minutes late"
SUBJECT = "Running late"
BODY = "Hi Alice, I'll be 10 minutes late. Sorry!"


def email_script(request: ChatRequest) -> ModelReply:
    """A model that emails Alice, then reports what happened to the email."""
    last = last_message(request.messages) or {}
    if last.get("role") == "tool":
        outcome = message_text(last)
        if outcome.startswith("Email sent"):
            return tool_call("reply", text="Done: I emailed Alice that you'll be 10 minutes late.")
        if "declined" in outcome:
            return tool_call("reply", text="OK, I did not send the email to Alice.")
        if "expired" in outcome:
            return tool_call("reply", text="Your approval request expired, so I did not send the email.")
        return tool_call("reply", text=f"That didn't work: {outcome}")
    return tool_call("send_email", to=["alice@example.org"], subject=SUBJECT, body=BODY)


def mailbox_env(mail: LocalMailServer, store: MailStore, address: str) -> dict[str, str]:
    """Deputy's settings for `address`'s mailbox: sending through `mail`, reading `store` over IMAP."""
    return {
        "DEPUTY_SMTP_HOST": "127.0.0.1", "DEPUTY_SMTP_PORT": str(mail.port), "DEPUTY_SMTP_FROM": address,
        "DEPUTY_SMTP_STARTTLS": "false", "DEPUTY_IMAP_HOST": store.host, "DEPUTY_IMAP_PORT": str(store.port),
        "DEPUTY_IMAP_USERNAME": address, "DEPUTY_IMAP_PASSWORD": DEMO_PASSWORD, "DEPUTY_IMAP_SSL": "false",
        "DEPUTY_IMAP_STARTTLS": "false",
    }


def tiny_pdf(text: str) -> bytes:
    """A minimal valid one-page PDF showing `text` (ASCII), for file-upload tests."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def everything_in_redis(redis: Redis) -> str:
    """Every key and every value in Redis as text, to search for what should be gone."""
    parts: list[str] = []
    for key in redis.scan_iter("*"):
        kind = redis.type(key)
        parts.append(key.decode(errors="replace"))
        if kind == b"string":
            parts.append(redis.get(key).decode(errors="replace"))
        elif kind == b"hash":
            parts += [f"{k!r}{v!r}" for k, v in redis.hgetall(key).items()]
        elif kind == b"zset":
            parts += [repr(m) for m in redis.zrange(key, 0, -1)]
        elif kind == b"set":
            parts += [repr(m) for m in redis.smembers(key)]
        elif kind == b"list":
            parts += [repr(m) for m in redis.lrange(key, 0, -1)]
        elif kind == b"stream":
            parts += [repr(f) for _, f in redis.xrange(key)]
    return "\n".join(parts)


class OutsideNetworkCall(ConnectionRefusedError):
    """A test tried to connect beyond this machine (see `no_outside_network` in conftest.py)."""


def wait_until_nothing_runs(redis: Redis, user_id: int, timeout: float = 20.0) -> None:
    """Wait until none of the user's goals has a step queued, scheduled or running.

    Stronger than sleeping "long enough" and then seeing nothing happen: a goal whose next step
    is registered anywhere (RQ's queue, its scheduled jobs, a worker) never gets here, so a
    monitor that failed to stop or a paused goal that kept a step fails the wait.
    """
    from deputy.agent.goals import GoalStore
    from deputy.testing.stack import wait_for
    from deputy.queue.dispatch import goal_unit
    from deputy.queue.inflight import Inflight

    def idle() -> bool:
        goals = GoalStore(redis).recent(user_id, 50)
        return bool(goals) and all(Inflight(redis).get(goal_unit(goal.id)) is None for goal in goals)

    wait_for(idle, timeout=timeout, what=f"user {user_id}'s goals to have no step queued or running")


def picture_with_text(*lines: str, size: tuple[int, int] = (1000, 420)) -> bytes:
    """A PNG with `lines` written on it in black, one under the other, as a screenshot or a note shows them."""
    from io import BytesIO

    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", size, "white")
    draw, font = ImageDraw.Draw(image), ImageFont.load_default(size=40)
    for index, line in enumerate(lines):
        draw.text((40, 40 + 80 * index), line, font=font, fill="black")
    out = BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


async def eventually(check: Callable[[], Any], timeout: float = 30.0) -> Any:
    """Await until `check()` is truthy (its value), polling the event loop; fail after `timeout` s."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not (value := check()):
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)
    return value
