"""A heads-up a month before a card expires, sent even if nothing is bought meanwhile.

The connect page schedules `remind_card_expiry` (`deputy.apps.executor`, an RQ job on the executor's queue) for the first day
of the card's last month when the card is connected; the job tells the user, unless the
card was removed or replaced since. Purchases give the same heads-up when they use a card
that runs out soon (`card_choice`).
"""

from __future__ import annotations


from pydantic import BaseModel
from redis import Redis

from deputy.core.records.card_expiry import months_left, parse_expiry
from deputy.core.records.outbox import Outbox, OutboxMessage
from deputy.executor.card_choice import nickname
from deputy.vault import CredentialKind, list_credentials


class CardReminder(BaseModel):
    schema_version: int = 1
    user_id: int
    chat_id: int
    handle: str
    expiry: str


def send_reminder(redis: Redis, reminder: CardReminder, now: float) -> str:
    """Tell the user their card runs out soon; what happened, in a word, for the job's result."""
    card = next((c for c in list_credentials(redis, reminder.user_id)
                 if c.handle == reminder.handle and c.kind is CredentialKind.card), None)
    if card is None or card.public.get("expiry") != reminder.expiry:
        return "card changed"
    expiry = parse_expiry(reminder.expiry)
    if expiry is None or not 0 <= months_left(expiry, now) <= 1:
        return "not due"
    Outbox(redis).put(OutboxMessage(
        chat_id=reminder.chat_id, proactive=True,
        dedupe_key=f"card-expiry:{reminder.user_id}:{reminder.handle}:{reminder.expiry}",
        text=f"💳 Heads-up: your card {nickname(card)} expires at the end of {expiry[1]:02d}/{expiry[0]}. "
             "Connect the new one with /connect card before then, so your purchases keep going through."))
    return "sent"


