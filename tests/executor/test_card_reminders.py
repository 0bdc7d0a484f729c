"""A month before a connected card expires, the user hears about it, even with nothing bought."""

from __future__ import annotations

import calendar
import time
from datetime import timezone

from pydantic import SecretStr
from redis import Redis
from rq import Queue, SimpleWorker
from rq.registry import ScheduledJobRegistry
from rq.serializers import JSONSerializer

from deputy.credential_page.card_reminders import card_reminders
from deputy.core.records.outbox import OUTBOX_STREAM, OutboxMessage
from deputy.core.records.payloads import ACTIONS_QUEUE
from deputy.executor.card_reminders import CardReminder, send_reminder
from deputy.vault import CredentialKind, KdfCost, Vault

USER = 9
MAY_2027 = calendar.timegm((2027, 5, 10, 12, 0, 0))


def connect_card(redis: Redis, expiry: str) -> None:
    vault = Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1))
    vault.put(USER, "cred:card/main", SecretStr("4111111111111111"), CredentialKind.card, "Everyday Visa",
              {"holder": "D", "expiry": expiry})


def sent(redis: Redis) -> list[str]:
    return [OutboxMessage.model_validate_json(f[b"json"]).text for _, f in redis.xrange(OUTBOX_STREAM)]


def test_connecting_a_card_schedules_the_heads_up_for_its_last_month(redis: Redis) -> None:
    card_reminders(redis, clock=lambda: MAY_2027)(USER, USER, "cred:card/main", "11/27")
    queue = Queue(ACTIONS_QUEUE, connection=redis, serializer=JSONSerializer)
    [job_id] = ScheduledJobRegistry(queue=queue).get_job_ids()
    when = ScheduledJobRegistry(queue=queue).get_scheduled_time(job_id).replace(tzinfo=timezone.utc)
    assert (when.year, when.month, when.day) == (2027, 11, 1)


def test_the_reminder_job_tells_the_user_once_and_not_about_a_replaced_card(redis: Redis) -> None:
    connect_card(redis, "06/27")
    reminder = CardReminder(user_id=USER, chat_id=USER, handle="cred:card/main", expiry="06/27")
    assert send_reminder(redis, reminder, MAY_2027) == "sent"
    [text] = sent(redis)
    assert "Everyday Visa" in text and "expires at the end of 06/2027" in text and "4111" not in text
    connect_card(redis, "06/31")  # the new card came and was connected
    assert send_reminder(redis, reminder, MAY_2027) == "card changed"


def test_a_card_expiring_this_month_is_reminded_at_once_by_the_executor_queue(redis: Redis) -> None:
    today = time.gmtime()
    expiry = f"{today.tm_mon:02d}/{today.tm_year % 100:02d}"
    connect_card(redis, expiry)
    card_reminders(redis)(USER, USER, "cred:card/main", expiry)
    queue = Queue(ACTIONS_QUEUE, connection=redis, serializer=JSONSerializer)
    SimpleWorker([queue], connection=redis, serializer=JSONSerializer).work(burst=True)
    assert any("Heads-up" in text and "Everyday Visa" in text for text in sent(redis))
