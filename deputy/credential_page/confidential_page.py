"""The private pages behind `/confidential` and `/unlock` links: where the passphrase is typed.

Turning on needs the passphrase twice and a ticked box saying the user understands a forgotten
passphrase means their data is gone; then the data they already have is sealed and they
are unlocked for the period they chose. Unlocking needs the passphrase and a period. A wrong
passphrase is refused politely and the link stays usable for a few more tries; the
passphrase itself goes nowhere but the key derivation (no log, no Redis, no chat).
"""

from __future__ import annotations

import html
import logging
from dataclasses import dataclass
from typing import Callable

from deputy.core.accounts.connect_links import CONFIDENTIAL_ON, CONFIDENTIAL_UNLOCK
from deputy.core.confidential import PERIODS, ConfidentialKeys, WrongPassphrase
from deputy.core.confidential.keys import MIN_PASSPHRASE
from deputy.core.records.outbox import Button, Outbox, OutboxMessage

log = logging.getLogger(__name__)

TURN_ON = CONFIDENTIAL_ON
UNLOCK = CONFIDENTIAL_UNLOCK
SERVICES = (TURN_ON, UNLOCK)
MAX_TRIES = 5
_FAILURES = "deputy:user:{}:confidential:failures"
_DEFAULT_PERIOD = "8 hours"


@dataclass(frozen=True)
class Outcome:
    """What the page shows: a title, HTML body, status; `done` when the link is used up."""

    title: str
    body: str
    status: int = 200
    done: bool = False


def _period_select(chosen: str) -> str:
    options = "".join(f"<option{' selected' if p == chosen else ''}>{html.escape(p)}</option>" for p in PERIODS)
    return f"<label for='period'>Keep it unlocked for</label><select id='period' name='period'>{options}</select>"


def _problems(problems: list[str]) -> str:
    return "<ul class='problems'>" + "".join(f"<li>{html.escape(p)}</li>" for p in problems) + "</ul>" if problems else ""


def form(service: str, problems: list[str] | None = None, period: str = _DEFAULT_PERIOD) -> Outcome:
    if service == TURN_ON:
        body = (
            "<p class='note'>Your goals, memory, files, rules, settings and approvals will be encrypted with a key "
            "that only this passphrase opens. Choose a long one you will remember (a few words).</p>"
            "<p class='problems'><strong>If you forget it, your data is gone for good: nobody, not even the "
            "people running this Deputy, can recover it.</strong></p>"
            f"{_problems(problems or [])}<form method='post' autocomplete='off'>"
            "<label for='passphrase'>Passphrase</label><input id='passphrase' name='passphrase' type='password'>"
            "<label for='again'>The same passphrase again</label><input id='again' name='again' type='password'>"
            f"{_period_select(period)}"
            "<label><input type='checkbox' name='understood' value='yes' style='width:auto'> I understand that a "
            "forgotten passphrase means my data is lost.</label>"
            "<button type='submit'>Turn on confidential mode</button></form>")
        return Outcome("Turn on confidential mode", body, 400 if problems else 200)
    body = (f"{_problems(problems or [])}<form method='post' autocomplete='off'>"
            "<label for='passphrase'>Passphrase</label><input id='passphrase' name='passphrase' type='password'>"
            f"{_period_select(period)}<button type='submit'>Unlock</button></form>")
    return Outcome("Unlock your data", body, 400 if problems else 200)


class ConfidentialPage:
    """Turning on and unlocking, given the user's keys, the outbox and what to do on unlock."""

    def __init__(self, keys: ConfidentialKeys, outbox: Outbox, audit: Callable[..., None],
                 on_unlock: Callable[[int], None], seal_existing: Callable[[int], None],
                 clock: Callable[[], float]) -> None:
        self._keys = keys
        self._outbox = outbox
        self._audit = audit
        self._on_unlock = on_unlock
        self._seal_existing = seal_existing
        self._clock = clock

    def submit(self, service: str, user_id: int, chat_id: int, values: dict[str, str]) -> Outcome:
        period = values.get("period", _DEFAULT_PERIOD)
        if period not in PERIODS:
            return form(service, ["Please choose one of the periods offered."])
        passphrase = values.get("passphrase", "")
        if service == TURN_ON:
            return self._turn_on(user_id, chat_id, passphrase, values, period)
        return self._unlock(user_id, chat_id, passphrase, period)

    def _turn_on(self, user_id: int, chat_id: int, passphrase: str, values: dict[str, str], period: str) -> Outcome:
        problems = []
        if len(passphrase) < MIN_PASSPHRASE:
            problems.append(f"The passphrase needs at least {MIN_PASSPHRASE} characters.")
        elif passphrase != values.get("again", ""):
            problems.append("The two passphrases are not the same.")
        if values.get("understood") != "yes":
            problems.append("Please tick the box: a forgotten passphrase cannot be recovered.")
        if problems:
            return form(TURN_ON, problems, period)
        if not self._keys.turn_on(user_id, passphrase):
            return Outcome("Already on", "<p>Confidential mode is already on. Use /unlock in the chat.</p>", done=True)
        self._keys.unlock(user_id, passphrase, PERIODS[period])
        self._seal_existing(user_id)
        self._audit(user_id, "confidential_on", self._clock(), period=period)
        self._outbox.put(OutboxMessage(
            chat_id=chat_id, buttons=[[Button(text="🔒 Lock now", sign="lk:me")]],
            text=f"🔐 Confidential mode is on. Your data is unlocked for {period}; then it locks by itself. "
                 "/unlock opens it again, /lock (or the button) locks it now."))
        return Outcome("Confidential mode is on", "<p>Done. Your data is encrypted; it is unlocked for "
                       f"{html.escape(period)}. You can close this page and go back to the chat.</p>", done=True)

    def _unlock(self, user_id: int, chat_id: int, passphrase: str, period: str) -> Outcome:
        failures = _FAILURES.format(int(user_id))
        redis = self._keys.redis
        if int(redis.get(failures) or 0) >= MAX_TRIES:
            return Outcome("Too many tries", "<p>That was too many wrong passphrases. Please wait 15 minutes, then "
                           "send /unlock again.</p>", status=429, done=True)
        try:
            self._keys.unlock(user_id, passphrase, PERIODS[period])
        except WrongPassphrase as exc:
            pipe = redis.pipeline()
            pipe.incr(failures)
            pipe.expire(failures, 15 * 60)
            pipe.execute()
            self._audit(user_id, "confidential_unlock_refused", self._clock())
            return form(UNLOCK, [exc.user_message], period)
        redis.delete(failures)
        self._audit(user_id, "confidential_unlocked", self._clock(), period=period)
        self._on_unlock(user_id)
        self._outbox.put(OutboxMessage(
            chat_id=chat_id, buttons=[[Button(text="🔒 Lock now", sign="lk:me")]],
            text=f"🔓 Unlocked for {period}. Anything that waited carries on now. /lock (or the button) locks it "
                 "again."))
        return Outcome("Unlocked", f"<p>Unlocked for {html.escape(period)}. You can close this page and go back to "
                       "the chat.</p>", done=True)
