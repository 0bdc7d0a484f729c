"""Offers of a check-in, kept for their card: made once per mention, answered once.

The runner finds a mention in a new goal's words (`deputy.agent.check_ins`) and offers it here;
the same event (the same resolved time and words) is offered once, whatever retries or repeats
happen. The bot takes the offer when the user presses one of its buttons: yes turns it into a
reminder goal (a monitor that sends one message at its time, no model call), no drops it. All
keys live in the user's namespace, so erasing the user erases them.
"""

from __future__ import annotations

import hashlib

from pydantic import BaseModel
from redis import Redis

from deputy.agent.check_ins import Mention, check_in_text, find_mention, offer_text, reminder_words
from deputy.agent.goals import Goal, GoalStatus, Monitor
from deputy.agent.origins import user_message
from deputy.core.records.ids import new_id
from deputy.core.records.outbox import Button, Outbox, OutboxMessage

_OFFER = "deputy:user:{}:check_in:{}"
_ONCE = "deputy:user:{}:check_in_once:{}"
ONCE_DAYS = 90
KINDS = {"ka": "after", "kb": "before", "kn": "no"}
"""The card's buttons: check in after, remind before, no thanks."""


class CheckInOffer(BaseModel):
    id: str
    user_id: int
    chat_id: int
    words: str
    starts: float
    has_clock: bool
    zone: str
    after_at: float
    before_at: float | None = None


class CheckInOffers:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    def offer(self, user_id: int, chat_id: int, mention: Mention, now: float) -> OutboxMessage | None:
        """The card for `mention`, or None when this event was offered before."""
        said = f"{mention.starts:.0f}\x00{' '.join(mention.words.lower().split())}"
        once = _ONCE.format(user_id, hashlib.sha256(said.encode()).hexdigest()[:20])
        if not self._redis.set(once, 1, nx=True, ex=ONCE_DAYS * 86400):
            return None
        offer = CheckInOffer(id=new_id("ci"), user_id=user_id, chat_id=chat_id,
                             words=mention.words[:300], starts=mention.starts, has_clock=mention.has_clock,
                             zone=mention.when.zone, after_at=mention.check_in_at(), before_at=mention.remind_at(now))
        ttl = max(int(offer.after_at - now), 60) + 86400
        self._redis.set(_OFFER.format(user_id, offer.id), offer.model_dump_json(), ex=ttl)
        buttons = [Button(text="Check in after", sign=f"ka:{offer.id}")]
        if offer.before_at is not None:
            buttons.append(Button(text="Remind me before", sign=f"kb:{offer.id}"))
        buttons.append(Button(text="No thanks", sign=f"kn:{offer.id}"))
        return OutboxMessage(chat_id=chat_id, text="📅 " + offer_text(mention), buttons=[buttons],
                             dedupe_key=f"check-in-offer:{offer.id}", edit_ref=None, ref=f"check_in:{offer.id}")

    def put_back(self, offer: CheckInOffer, now: float) -> None:
        """An offer taken but not acted on (the plan had no room): its buttons work again."""
        ttl = max(int(offer.after_at - now), 60) + 86400
        self._redis.set(_OFFER.format(offer.user_id, offer.id), offer.model_dump_json(), ex=ttl)

    def take(self, user_id: int, offer_id: str) -> CheckInOffer | None:
        """The offer, removed: an answer counts once, and only its owner's."""
        raw = self._redis.getdel(_OFFER.format(user_id, offer_id))
        return CheckInOffer.model_validate_json(raw) if raw else None


def offer_check_in(redis: Redis, outbox: Outbox, goal: Goal, now: float, zone_name: str) -> bool:
    """Offer a check-in, once, when a new goal's words mention a dated event in passing; True if offered."""
    mention = find_mention(goal.text, now, zone_name)
    if mention is None:
        return False
    card = CheckInOffers(redis).offer(goal.user_id, goal.chat_id, mention, now)
    if card is not None:
        outbox.put(card)
    return card is not None


def reminder_goal(offer: CheckInOffer, choice: str, now: float) -> Goal | None:
    """The goal a yes creates: a one-time reminder at the chosen time (None if that time has passed)."""
    if choice == "after":
        at, text = offer.after_at, check_in_text(offer.words)
        what = f"check in after “{offer.words}”"
    elif choice == "before" and offer.before_at is not None:
        at, text = offer.before_at, reminder_words(offer.words, offer.starts, offer.zone, offer.has_clock)
        what = f"remind before “{offer.words}”"
    else:
        return None
    if at <= now:
        return None
    monitor = Monitor(what=what[:300], next_at=at, max_checks=1, reminder=text[:300], timezone=offer.zone)
    return Goal(id=new_id("g"), user_id=offer.user_id, chat_id=offer.chat_id, text=what, status=GoalStatus.scheduled,
                monitor=monitor, messages=[user_message(offer.words)],
                created_at=now, updated_at=now)


__all__ = ["KINDS", "CheckInOffer", "CheckInOffers", "offer_check_in", "reminder_goal"]
