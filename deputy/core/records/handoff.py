"""Hand-offs: a page needs the human (a one-time code, a CAPTCHA, a sign-in), so Deputy asks them.

The web connector detects the page (`deputy.connectors.web.NeedsHuman`); the executor's
`HandOffRecorder` keeps a `HandOff` here with a screenshot; the goal runner sends the
question with the picture and the goal waits for the user (`waiting_user`).

When the page has a field for the answer (`entry`), the user may simply reply with the code:
the bot deletes that message at once, keeps the code for a few minutes under a one-time key,
and the executor types it into that field and sends the form. The code never enters a
prompt, the goal's transcript, a log line or the audit trail; the agent only learns that the
step is done. Any other reply is an ordinary answer to the goal.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field
from redis import Redis

from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.records.ids import new_id
from deputy.core.records.outbox import Outbox, OutboxMessage

HANDOFF_TTL = 30 * 60
"""How long a hand-off can be answered; the pages behind one-time codes rarely wait longer."""
CODE_TTL = 5 * 60
"""A code the user sent waits this long for the executor, then it is gone."""
MAX_ATTEMPTS = 3
_KEY = "deputy:user:{uid}:handoff:{id}"
_BY_ACTION = "deputy:user:{uid}:handoff:action:{action_id}"
_OPEN = "deputy:user:{uid}:handoff:open"
_CODE = "deputy:user:{uid}:handoff:code:{id}"
# A code or a CAPTCHA's answer: one short token (digit groups may be spaced or dashed).
_CODE_LIKE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9]|[ -](?=[A-Za-z0-9])){0,15}$")
_PLAIN_WORDS = {"yes", "no", "ok", "okay", "skip", "stop", "cancel", "done", "continue", "later", "wait", "thanks"}

Reason = Literal["captcha", "two_factor", "login"]


class CodeField(BaseModel):
    """Where the user's answer is typed: found by the connector on the live page."""

    form: int = Field(ge=1)
    field: str = Field(min_length=1, max_length=300)
    label: str = Field(default="", max_length=80)


class HandOff(BaseModel):
    schema_version: int = 1
    id: str
    user_id: int
    chat_id: int
    goal_id: str
    action_id: str | None = None
    reason: Reason
    url: str
    site: str
    photo: str | None = None
    """Redis key of the page's screenshot (`Outbox.store_photo`)."""
    entry: CodeField | None = None
    attempts: int = 0
    retry: bool = False
    """Asked again because the page did not take the previous answer."""
    created_at: float
    expires_at: float


def open_key(user_id: int) -> str:
    """Where the id of the page waiting for this user is kept (the bot's intake reads it with the rest)."""
    return _OPEN.format(uid=user_id)


class HandOffStore:
    """Hand-offs per user, under `deputy:user:<id>:` so erasing a user erases them."""

    def __init__(self, redis: Redis, clock: Callable[[], float] = time.time,
                 keys: ConfidentialKeys | None = None) -> None:
        self._redis = redis
        self._clock = clock
        # A confidential user's hand-offs and codes are sealed to their key.
        self._keys = keys if keys is not None else confidential_keys(redis)

    def save(self, handoff: HandOff) -> None:
        ttl = max(1, int(handoff.expires_at - self._clock()) + 60)
        uid = handoff.user_id
        pipe = self._redis.pipeline()
        pipe.set(_KEY.format(uid=uid, id=handoff.id), self._keys.seal_text(uid, handoff.model_dump_json()), ex=ttl)
        if handoff.action_id:
            pipe.set(_BY_ACTION.format(uid=uid, action_id=handoff.action_id), handoff.id, ex=ttl)
        # One open question per user: the latest page that needs them.
        pipe.set(_OPEN.format(uid=uid), handoff.id, ex=ttl)
        pipe.execute()

    def get(self, user_id: int, handoff_id: str) -> HandOff | None:
        raw = self._redis.get(_KEY.format(uid=user_id, id=handoff_id))
        if raw is None:
            return None
        handoff = HandOff.model_validate_json(self._keys.open_text(user_id, raw))
        return handoff if handoff.expires_at > self._clock() else None

    def for_action(self, user_id: int, action_id: str | None) -> HandOff | None:
        """The hand-off an action ended in, if it did."""
        if not action_id:
            return None
        handoff_id = self._redis.get(_BY_ACTION.format(uid=user_id, action_id=action_id))
        return self.get(user_id, handoff_id.decode()) if handoff_id else None

    def open(self, user_id: int) -> HandOff | None:
        """The page still waiting for this user, if any."""
        handoff_id = self._redis.get(_OPEN.format(uid=user_id))
        return self.get(user_id, handoff_id.decode()) if handoff_id else None

    def close(self, user_id: int, handoff_id: str) -> None:
        """Nothing more is expected for this hand-off (answered in words, done, or given up)."""
        key = _OPEN.format(uid=user_id)
        current = self._redis.get(key)
        if current is not None and current.decode() == handoff_id:
            self._redis.delete(key)
        self._redis.delete(_CODE.format(uid=user_id, id=handoff_id))

    def put_code(self, handoff: HandOff, code: str) -> None:
        """Keep the user's code for the executor, briefly and for one use only."""
        self._redis.set(_CODE.format(uid=handoff.user_id, id=handoff.id), self._keys.seal_text(handoff.user_id, code),
                        ex=CODE_TTL)

    def take_code(self, user_id: int, handoff_id: str) -> str | None:
        """The code, removed as it is read: it can be used once."""
        raw = self._redis.getdel(_CODE.format(uid=user_id, id=handoff_id))
        return self._keys.open_text(user_id, raw) if raw is not None else None


def looks_like_code(text: str, handoff: HandOff) -> bool:
    """Whether a reply is the code (or CAPTCHA answer) itself, rather than words for the agent."""
    stripped = text.strip()
    if handoff.entry is None or not _CODE_LIKE.match(stripped) or stripped.lower() in _PLAIN_WORDS:
        return False
    # One-time codes have digits; a CAPTCHA's answer may be letters only.
    return handoff.reason == "captcha" or any(c.isdigit() for c in stripped)


def normalised_code(text: str) -> str:
    """Codes are often read out in groups ("123 456"): the page wants them together."""
    stripped = text.strip()
    return re.sub(r"[ -]", "", stripped) if re.fullmatch(r"[\d -]+", stripped) else stripped


def handoff_text(handoff: HandOff) -> str:
    """The question to the user: which page, what it needs, and how to answer."""
    retry = "The page didn't accept that. " if handoff.retry else ""
    if handoff.reason == "two_factor":
        need = f"{handoff.site} is asking for a verification code (two-factor sign-in)."
        how = (
            "Reply with just the code and I'll type it into the page for you. I delete your message at once, "
            "and the code never reaches the AI model or any log."
        )
    elif handoff.reason == "captcha":
        need = f'{handoff.site} wants to check that a person is visiting (a CAPTCHA, "verify you are human").'
        how = (
            "Reply with just the answer the picture asks for and I'll type it in for you (the AI model never "
            "sees it)."
        )
    else:
        need = f"{handoff.site} wants you to sign in, and no login for it is saved for me."
        how = "Save one with /connect web (I use it without ever seeing the password), then tell me to continue."
    if handoff.entry is None and handoff.reason != "login":
        how = f"I can't do that step for you: please do it yourself at {handoff.url}, then tell me how to continue."
    return f"{retry}{need}\nPage: {handoff.url}\n{how}\nAnything else you reply goes to me as usual."


def handoff_message(handoff: HandOff) -> OutboxMessage:
    """The question as a chat message, with the page's screenshot when there is one."""
    return OutboxMessage(
        chat_id=handoff.chat_id,
        text=handoff_text(handoff),
        photo=handoff.photo,
        dedupe_key=f"handoff:{handoff.id}",
    )


AGENT_NOTE = (
    "This page needs the user ({what}). Deputy has asked them in the chat, with a screenshot of the page. "
    "Do not try to get past it yourself; the goal continues when they answer."
)
_WHAT = {"two_factor": "a verification code", "captcha": "a CAPTCHA", "login": "a sign-in"}


class HandOffRecorder:
    """The executor's side: keep a hand-off (and the page's picture) for a page that needs the user."""

    def __init__(self, store: HandOffStore, outbox: Outbox, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._outbox = outbox
        self._clock = clock

    def record(
        self, *, user_id: int, chat_id: int, goal_id: str, action_id: str | None, reason: str, url: str, site: str,
        screenshot: bytes | None, entry: CodeField | None, attempts: int = 0, retry: bool = False,
    ) -> HandOff:
        now = self._clock()
        photo = None
        if screenshot:
            try:
                photo = self._outbox.store_photo(chat_id, screenshot)
            except ValueError:
                photo = None  # too large to show: the question still goes out
        handoff = HandOff(
            id=new_id("h"), user_id=user_id, chat_id=chat_id, goal_id=goal_id, action_id=action_id,
            reason=reason if reason in _WHAT else "captcha", url=url, site=site, photo=photo, entry=entry,
            attempts=attempts, retry=retry, created_at=now, expires_at=now + HANDOFF_TTL,
        )
        self._store.save(handoff)
        return handoff

    @staticmethod
    def agent_note(handoff: HandOff) -> str:
        return AGENT_NOTE.format(what=_WHAT[handoff.reason])
