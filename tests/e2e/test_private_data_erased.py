"""Nothing of a user outlives /delete_me, and nothing stored before confidential mode stays in clear.

Goals run through the model gateway, which keeps each model reply for days: a reply holds the
user's memory text and an email's recipient and body. After /delete_me a scan of the whole
of Redis finds nothing of the user (their id, their words, in clear or base64); after
confidential mode is turned on and locked, nothing stored earlier is readable either.
"""

from __future__ import annotations

import httpx
from redis import Redis

from deputy.testing.stack import ChatUser, DeputyStack, wait_for
from tests.e2e.test_confidential_flow import (  # noqa: F401 (fixtures)
    PASSPHRASE, gateway_stack, leaks, link, script, stack_env,
)
from tests_support import everything_in_redis, tiny_pdf

CAL, DEV = 7404031201, 7404031213
WORDS = ["persimmon-cal-5521", "carol@quince.example", "okapi-cal-0917", "tamarind-pdf-6620"]


def _goals_with_memory_and_email(user: ChatUser, redis: Redis, chat_url: str) -> None:
    sent = user.send("remember my favourite tea is persimmon-cal-5521")
    user.wait_for_bot(lambda m: m["text"].startswith("Noted."), after=sent, timeout=30)
    sent = user.send("email carol@quince.example that the okapi-cal-0917 parcel is here")
    user.wait_for_bot(lambda m: True, after=sent, timeout=30)
    # The test means something only if the model's stored replies hold the user's words.
    wait_for(lambda: any(b"persimmon-cal-5521" in (redis.get(k) or b"") for k in redis.keys("deputy:model:outcome:*")),
             timeout=20, what="the model's reply to be kept")
    # A file read by a goal: its text is kept for the guard in the goal's reads list, beside the record.
    sent = httpx.post(f"{chat_url}/api/users/{user.user_id}/files",
                      files={"file": ("note.pdf", tiny_pdf("tamarind-pdf-6620"), "application/pdf")},
                      data={"caption": "what does this say?"}).json()["message_id"]
    user.wait_for_bot(lambda m: m["text"].startswith("Read it."), after=sent, timeout=30)
    assert any(b"tamarind-pdf-6620" in e for k in redis.keys("deputy:goal:*:reads") for e in redis.lrange(k, 0, -1))


def test_delete_me_leaves_nothing_of_the_user_anywhere_in_redis(
    gateway_stack: DeputyStack, model_server, redis: Redis  # noqa: F811
) -> None:
    model_server.responder = script
    cal = gateway_stack.user(CAL)
    _goals_with_memory_and_email(cal, redis, gateway_stack.chat_url)

    sent = cal.send("/delete_me")
    warning = cal.wait_for_bot(lambda m: "can't be undone" in m["text"], after=sent)
    cal.press(warning["message_id"], button="Delete everything")
    cal.wait_for_bot(lambda m: "is erased" in m["text"], after=warning["message_id"], timeout=30)

    def traces() -> list[str]:
        return [line[:160] for line in everything_in_redis(redis).splitlines() if str(CAL) in line]

    wait_for(lambda: not traces() and not leaks(redis, WORDS), timeout=20,
             what=f"every trace of the user to be gone: {traces()} {leaks(redis, WORDS)}")


def test_turning_confidential_mode_on_seals_what_was_stored_before(
    gateway_stack: DeputyStack, model_server, redis: Redis  # noqa: F811
) -> None:
    model_server.responder = script
    dev = gateway_stack.user(DEV)
    _goals_with_memory_and_email(dev, redis, gateway_stack.chat_url)

    url = link(dev, "/confidential")
    page = httpx.post(url, data={"passphrase": PASSPHRASE, "again": PASSPHRASE, "period": "1 hour",
                                 "understood": "yes"}, timeout=30)
    assert page.status_code == 200 and "Confidential mode is on" in page.text
    sent = dev.send("/lock")
    dev.wait_for_bot(lambda m: m["text"].startswith("🔒 Locked."), after=sent)
    assert not (found := leaks(redis, WORDS)), "\n".join(found)
