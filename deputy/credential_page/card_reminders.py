"""Scheduling the heads-up a month before a newly connected card expires (sent by the
executor's `remind_card_expiry` job, named here by its `JobPath` only: this page never loads the executor)."""

from __future__ import annotations

import hashlib
import time
from datetime import datetime, timezone
from typing import Callable

from redis import Redis
from rq import Queue
from rq.serializers import JSONSerializer

from deputy.core.records.card_expiry import parse_expiry, reminder_at
from deputy.core.records.payloads import ACTIONS_QUEUE
from deputy.queue.job_paths import REMIND_CARD_EXPIRY

CardConnected = Callable[[int, int, str, str], None]
"""(user id, chat id, card handle, expiry "MM/YY") after a card was stored."""


def card_reminders(redis: Redis, clock: Callable[[], float] = time.time) -> CardConnected:
    queue = Queue(ACTIONS_QUEUE, connection=redis, serializer=JSONSerializer)

    def schedule(user_id: int, chat_id: int, handle: str, expiry: str) -> None:
        parsed = parse_expiry(expiry)
        if parsed is None:
            return
        when = reminder_at(parsed)
        payload = {"user_id": user_id, "chat_id": chat_id, "handle": handle, "expiry": expiry}
        # One reminder per card and expiry: connecting the same card again replaces it.
        job_id = "card-reminder-" + hashlib.sha256(f"{user_id}:{handle}:{expiry}".encode()).hexdigest()[:24]
        options = {"job_id": job_id, "result_ttl": 86400, "failure_ttl": 7 * 86400}
        if when <= clock():  # already in its last month (or the one before): tell them now
            queue.enqueue(REMIND_CARD_EXPIRY.path, payload, **options)
        else:
            queue.enqueue_at(datetime.fromtimestamp(when, tz=timezone.utc), REMIND_CARD_EXPIRY.path, payload, **options)

    return schedule
