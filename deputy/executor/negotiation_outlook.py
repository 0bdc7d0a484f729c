"""After each recorded round of a negotiation: offer a change when a stopping point comes near, and
send the weekly digest when one is due.

Both are decided by code from the mandate and the recorded state (`deputy.sentinel.negotiation.outlook`),
with no model call. A change is offered once per counterpart and stopping point, with Edit (change the
mandate, `/negotiate change …`, confirmed with a tap as always) and Keep (go on as it is): the user
decides. The digest goes out at the first round a week or more after the last one (or after the first
round), so a negotiation gets one without any watch; a negotiation that also watches gets the same
lines in its watch's digest (`deputy.agent.watch.watch_steps`), which moves the same mark.
Both messages state the user's own figures to the user only; a counterpart's words never appear.
"""

from __future__ import annotations

import hashlib
from typing import Callable

from deputy.agent.time.local_time import day_words
from deputy.core.records.outbox import Button, Outbox, OutboxMessage
from deputy.sentinel.negotiation.mandate import Mandate
from deputy.sentinel.negotiation.outlook import digest_lines, nearing, offer_text
from deputy.sentinel.negotiation.state import NegotiationState
from deputy.sentinel.stores.mandates import MandateStore

WEEK = 7 * 86400.0
SLACK = 3600.0


class NegotiationOutlook:
    def __init__(self, store: MandateStore, outbox: Outbox, clock: Callable[[], float]) -> None:
        self._store = store
        self._outbox = outbox
        self._clock = clock

    def after_round(self, user_id: int, chat_id: int, goal_id: str, mandate: Mandate, state: NegotiationState,
                    counterpart: str) -> None:
        now = self._clock()
        for near in nearing(mandate, state, counterpart, now):
            # Kept as a digest: a confidential user's counterparts are sealed with the mandate, never plain here.
            said = hashlib.sha256(f"{counterpart.strip().lower()}|{near.kind}".encode()).hexdigest()[:20]
            if not self._store.first_offer_of(user_id, goal_id, said):
                continue
            self._outbox.put(OutboxMessage(
                chat_id=chat_id, goal_id=goal_id, proactive=True, text=offer_text(mandate, counterpart, near),
                dedupe_key=f"{goal_id}:nearing:{said}",
                buttons=[[Button(text="Edit", sign=f"na:{goal_id}"), Button(text="Keep", sign=f"gk:{goal_id}")]]))
        since = self._store.digest_mark(user_id, goal_id, now)
        if now + SLACK >= since + WEEK:
            self._outbox.put(digest_message(chat_id, goal_id, mandate, state, since, now))
            self._store.mark_digest(user_id, goal_id, now)


def digest_message(chat_id: int, goal_id: str, mandate: Mandate, state: NegotiationState, since: float,
                   now: float) -> OutboxMessage:
    lines = [f"🗞 Weekly digest: negotiating {mandate.subject}", f"Since {day_words(since, mandate.zone)}:",
             *digest_lines(mandate, state, since), "Change the mandate with /negotiate change, or stop it from /goals."]
    return OutboxMessage(chat_id=chat_id, goal_id=goal_id, proactive=True, text="\n".join(lines),
                         dedupe_key=f"{goal_id}:negotiation-digest:{int(now)}")


__all__ = ["NegotiationOutlook", "digest_message"]
