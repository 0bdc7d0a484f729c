"""One suggestion round: new listings matched against opted-in users' interests, by code and meaning.

The round reads each service's listings once for everyone and keeps the ids it has seen. While
nothing new appears and no user is waiting for listings (below) it stops there: no embedding, no
user record read, no model call, ever (the language model is never called by this job; meaning
comes from the local embedding model in `deputy.memory.meaning`). When listings are new and someone
has opted in, their meaning is read once (one batch) and kept for a week (with no one opted in they
are only marked seen), and each opted-in user whose turn it is
(`every`) and whose weekly cap is not reached gets at most one card: the best listing above the
threshold in a service they chose, among those new since their last look, that they were not shown
before, and that is not like one they said "Not interested" to. A user whose turn is not due when
listings arrive has them held (ids only) and looked at on their next turn, so a daily or weekly
user sees what came in between rounds too. Each round also compares every shop listing with the items of checkout cards
still waiting for the user (`pending_buys`): the same item listed for less is offered once, as a
change the user decides on. "Less like this" lowers the score of
similar listings. Cards are unprompted news, held in the user's quiet hours, and each counts as one
background check of the user's plan (`CheckBudget`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

import numpy as np
from pydantic import BaseModel
from redis import Redis

from deputy.agent.suggestions.interests import DIMENSIONS, InterestPrefs, InterestStore
from deputy.agent.goals import GoalStore
from deputy.agent.suggestions.listings import GOODS, Listing
from deputy.agent.suggestions.pending_buys import PendingBuys, offer_message
from deputy.agent.time.local_time import moment_words
from deputy.agent.watch.check_budget import CheckBudget
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.core.records.ids import new_id
from deputy.core.records.outbox import Button, Outbox, OutboxMessage
from deputy.core.records.actions import ActionState
from deputy.memory.meaning import Embedder
from deputy.sentinel.stores.action_store import ActionStore

SEEN = "deputy:listings:seen"
RECENT = "deputy:listings:recent"
"""Listing id -> the listing and its meaning, for users who look at it on a later turn."""
RECENT_AT = "deputy:listings:recent_at"
WAITING = "deputy:interests:waiting"
"""Users with listings held for their next turn: the only users a round with nothing new reads."""
_HELD = "deputy:user:{}:held_listings"
KEEP_RECENT = 8 * 86400.0
MAX_HELD = 200
_VECTORS = "deputy:user:{}:interest_vectors:{}"
_SUGGESTION = "deputy:user:{}:suggestion:{}"
THRESHOLD = 0.45
WORD_BONUS = 0.25
NOT_NEAR = 0.8
LESS_PENALTY = 0.3
GAPS = {"daily": 20 * 3600.0, "weekly": 6.5 * 86400.0}
"""The least time between two cards for a user (a little under the period, so rounds may drift)."""
KINDS = {"xb": "book", "xn": "not interested", "xl": "less like this"}
_WORD = re.compile(r"[a-zà-ÿ]{4,}")
_SAFE_ID = re.compile(r"[^a-z0-9:_-]", re.IGNORECASE)
_SAFE_PRICE = re.compile(r"\d{1,6}(?:\.\d{1,2})?")


class Suggestion(BaseModel):
    """A card shown: the listing, its meaning (for teaching), and the interest it matched."""

    id: str
    user_id: int
    chat_id: int
    listing: Listing
    line: str
    interest: str
    vector: str
    """The listing's meaning vector, base64 float32: "Not interested" teaches with it, no model needed."""

    def meaning(self) -> np.ndarray:
        return np.frombuffer(base64.b64decode(self.vector), dtype=np.float32)


@dataclass
class RoundReport:
    listings: int = 0
    new: int = 0
    embedded: int = 0
    users: int = 0
    cards: int = 0
    model_calls: int = 0
    seconds: float = 0.0
    capped: int = 0
    cheaper: int = 0
    """Offers of a cheaper listing for an item a waiting card would buy."""
    held: int = 0
    """Users whose turn was not due: the new listings were held for their next turn."""
    suggested: list[str] = field(default_factory=list)


class SuggestionRound:
    def __init__(self, redis: Redis, embedder: Embedder, outbox: Outbox, clock: Callable[[], float] = time.time,
                 budget: CheckBudget | None = None) -> None:
        """`budget`: each card counts as one background check of the user's plan (refused: no card)."""
        self._redis = redis
        self._budget = budget
        self._embedder = embedder
        self._outbox = outbox
        self._clock = clock
        self._store = InterestStore(redis)
        self._settings = UserSettingsStore(redis)
        self._pending = PendingBuys(redis)
        self._actions = ActionStore(redis)
        self._goals = GoalStore(redis)

    def run(self, listings: list[Listing]) -> RoundReport:
        started = time.perf_counter()
        report = RoundReport(listings=len(listings))
        report.cheaper = self._offer_cheaper(listings)
        new = self._new(listings)
        report.new = len(new)
        # With listings new, everyone who opted in looks; with none, only those something is held for.
        users = self._store.opted_in() if new else [int(u) for u in self._redis.smembers(WAITING)]
        if users:  # nobody to look (no one opted in yet): the listings are only marked seen
            vectors = np.zeros((0, DIMENSIONS), dtype=np.float32)
            if new:
                vectors = np.asarray(self._embedder.embed([listing.meaning_text() for listing in new]), dtype=np.float32)
                report.embedded = len(new)
                self._remember(new, vectors)
            for user_id in users:
                report.users += 1
                self._for_user(user_id, new, vectors, report)
        report.seconds = time.perf_counter() - started
        return report

    def _offer_cheaper(self, listings: list[Listing]) -> int:
        """Offer once each: an item a waiting card would buy, listed for less (one set read when none waits)."""
        def waiting(action_id: str) -> bool:
            record = self._actions.get(action_id)
            return record is not None and record.state is ActionState.awaiting_approval

        offered = 0
        for buy, listing in self._pending.cheaper(listings, waiting):
            goal = self._goals.get(buy.goal_id)
            self._outbox.put(offer_message(buy, listing, goal.text if goal is not None else "your purchase"))
            offered += 1
        return offered

    def _new(self, listings: list[Listing]) -> list[Listing]:
        if not listings:
            return []
        pipe = self._redis.pipeline(transaction=False)
        for listing in listings:
            pipe.sadd(SEEN, listing.id)
        return [listing for listing, added in zip(listings, pipe.execute()) if added]

    def _remember(self, new: list[Listing], vectors: np.ndarray) -> None:
        """Keep the new listings and their meaning a week, for users who look at them on a later turn."""
        now = self._clock()
        pipe = self._redis.pipeline(transaction=False)
        for listing, vector in zip(new, vectors):
            pipe.hset(RECENT, listing.id, json.dumps({"listing": listing.model_dump(mode="json"),
                                                      "vector": base64.b64encode(vector.tobytes()).decode()}))
            pipe.zadd(RECENT_AT, {listing.id: now})
        pipe.execute()
        old = self._redis.zrangebyscore(RECENT_AT, "-inf", now - KEEP_RECENT)
        if old:
            self._redis.hdel(RECENT, *old)
            self._redis.zrem(RECENT_AT, *old)

    def _hold(self, user_id: int, listing_ids: list[str]) -> None:
        """The user's turn is not due: keep these ids for it (a week at most)."""
        if not listing_ids:
            return
        key = _HELD.format(user_id)
        pipe = self._redis.pipeline(transaction=False)
        pipe.rpush(key, *listing_ids)
        pipe.ltrim(key, -MAX_HELD, -1)
        pipe.expire(key, int(KEEP_RECENT))
        pipe.sadd(WAITING, user_id)
        pipe.execute()

    def _take_held(self, user_id: int) -> tuple[list[Listing], np.ndarray]:
        """The listings held for the user since their last turn (those still kept), and their meaning."""
        pipe = self._redis.pipeline(transaction=False)
        pipe.lrange(_HELD.format(user_id), 0, -1)
        pipe.delete(_HELD.format(user_id))
        pipe.srem(WAITING, user_id)
        ids = list(dict.fromkeys(i.decode() if isinstance(i, bytes) else i for i in pipe.execute()[0]))
        listings, vectors = [], []
        for raw in (self._redis.hmget(RECENT, ids) if ids else []):
            if raw:
                kept = json.loads(raw)
                listings.append(Listing.model_validate(kept["listing"]))
                vectors.append(np.frombuffer(base64.b64decode(kept["vector"]), dtype=np.float32))
        return listings, (np.stack(vectors) if vectors else np.zeros((0, DIMENSIONS), dtype=np.float32))

    def _for_user(self, user_id: int, new: list[Listing], vectors: np.ndarray, report: RoundReport) -> None:
        prefs = self._store.get(user_id)
        now = self._clock()
        if not prefs.interests:
            return
        if now - prefs.last_at < GAPS[prefs.every]:
            held = [listing.id for listing in new if listing.service in prefs.services]
            self._hold(user_id, held)
            report.held += bool(held)
            return
        earlier, earlier_vectors = self._take_held(user_id)
        if earlier:
            new, vectors = [*earlier, *new], np.vstack([earlier_vectors, vectors])
        week = _week(now)
        if self._store.sent_this_week(user_id, week) >= prefs.per_week:
            report.capped += 1
            return
        chosen = [i for i, listing in enumerate(new) if listing.service in prefs.services]
        shown = self._store.already_suggested(user_id, [new[i].id for i in chosen])
        chosen = [i for i in chosen if new[i].id not in shown]
        if not chosen:
            return
        best = self._best(user_id, prefs, [new[i] for i in chosen], vectors[chosen])
        if best is None:
            return
        index, interest = best
        if self._budget is not None and not self._budget.take(user_id, now):
            report.capped += 1  # the plan's background work is used up: no card this time
            return
        listing = new[chosen[index]]
        self._send(user_id, prefs, listing, vectors[chosen[index]], interest)
        self._store.count_sent(user_id, week, listing.id)
        prefs.last_at = now
        self._store.save(user_id, prefs)
        report.cards += 1
        report.suggested.append(f"{user_id}:{listing.id}")

    def _best(self, user_id: int, prefs: InterestPrefs, listings: list[Listing],
              vectors: np.ndarray) -> tuple[int, str] | None:
        wanted = self._interest_vectors(user_id, prefs.interests)
        similarity = vectors @ wanted.T  # listings x interests
        words = [set(_WORD.findall(interest.lower())) for interest in prefs.interests]
        for row, listing in enumerate(listings):
            text = set(_WORD.findall(listing.meaning_text().lower()))
            for column, said in enumerate(words):
                if said & text:
                    similarity[row, column] += WORD_BONUS  # the user's own word is in the listing
        score = similarity.max(axis=1)
        nots, less = self._store.taught(user_id)
        if len(nots):
            score[(vectors @ nots.T).max(axis=1) >= NOT_NEAR] = -1.0
        if len(less):
            score -= LESS_PENALTY * np.clip((vectors @ less.T).max(axis=1), 0, 1)
        row = int(score.argmax())
        if score[row] < THRESHOLD:
            return None
        return row, prefs.interests[int(similarity[row].argmax())]

    def _interest_vectors(self, user_id: int, interests: list[str]) -> np.ndarray:
        """The interests' meaning, kept until the user changes them (embedded once per change)."""
        digest = hashlib.sha256("\x00".join(interests).encode()).hexdigest()[:16]
        key = _VECTORS.format(user_id, digest)
        raw = self._redis.get(key)
        if raw:
            return np.frombuffer(raw, dtype=np.float32).reshape(len(interests), -1)
        vectors = np.asarray(self._embedder.embed(interests), dtype=np.float32)
        self._redis.set(key, vectors.tobytes(), ex=90 * 86400)
        return vectors

    def _send(self, user_id: int, prefs: InterestPrefs, listing: Listing, vector: np.ndarray, interest: str) -> None:
        zone = self._settings.get(user_id).timezone
        suggestion = Suggestion(id=new_id("sg"), user_id=user_id, chat_id=prefs.chat_id or user_id, listing=listing,
                                line=listing.card_line(zone), interest=interest,
                                vector=base64.b64encode(np.asarray(vector, dtype=np.float32).tobytes()).decode())
        keep_suggestion(self._redis, suggestion)
        take = "Buy" if listing.service in GOODS else "Book"
        buttons = [Button(text=text, sign=f"{kind}:{suggestion.id}")
                   for kind, text in (("xb", take), ("xn", "Not interested"), ("xl", "Less like this"))]
        self._outbox.put(OutboxMessage(
            chat_id=suggestion.chat_id, proactive=True, buttons=[buttons], dedupe_key=f"suggestion:{suggestion.id}",
            text=f"💡 {suggestion.line}\nYou asked me to look out for “{interest}”."))


def keep_suggestion(redis: Redis, suggestion: Suggestion) -> None:
    """Keep the card's suggestion for its buttons (two weeks); also puts back one taken but not acted on."""
    redis.set(_SUGGESTION.format(suggestion.user_id, suggestion.id), suggestion.model_dump_json(), ex=14 * 86400)


def take_suggestion(redis: Redis, user_id: int, suggestion_id: str) -> Suggestion | None:
    """The card's suggestion, removed: one answer per card, by its user only."""
    raw = redis.getdel(_SUGGESTION.format(user_id, suggestion_id))
    return Suggestion.model_validate_json(raw) if raw else None


def booking_words(suggestion: Suggestion) -> str:
    """What the user asked for by tapping Book, in code's words only: the listing's id, when and price.

    The listing's title and place came from the service (outside content): they are not the user's
    words, so they reach the goal separately, labelled as outside (`booking_details`)."""
    listing = suggestion.listing
    ident = _SAFE_ID.sub("", listing.id)[:80]
    price = listing.price if listing.price and _SAFE_PRICE.fullmatch(listing.price) else None
    when = f", on {moment_words(listing.starts_at, 'UTC')}" if listing.starts_at is not None else ""
    if listing.service in GOODS:
        cost = f", at {price} {listing.currency[:3]}" if price else ""
        return f"Buy one for me: the suggested {listing.service} listing {ident}{cost}."
    seats = "2 seats" if listing.service == "tickets" else "a table for 2"
    cost = f", at {price} {listing.currency[:3]} each" if price and listing.service == "tickets" else ""
    return f"Book {seats} for me: the suggested {listing.service} listing {ident}{when}{cost}."


def booking_details(suggestion: Suggestion) -> str:
    """The listing as the service described it, for the goal as outside content."""
    listing = suggestion.listing
    return f"The suggested listing, as {listing.service} describes it: {listing.title}; {listing.place}; {listing.about}"


def _week(now: float) -> str:
    year, week, _ = datetime.fromtimestamp(now, timezone.utc).isocalendar()
    return f"{year}-W{week:02d}"


__all__ = ["KINDS", "RoundReport", "Suggestion", "SuggestionRound", "booking_details", "booking_words",
           "keep_suggestion", "take_suggestion"]
