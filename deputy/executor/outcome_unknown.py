"""The card of an action whose outcome is unknown: what Deputy knows, Try again / Drop it.

Posted by the executor when a run that may have begun was cut off (its executor died, or
the service went silent midway). The card is an approval request of kind
`outcome_unknown`: signed buttons, owner only, one choice counted, expiring like a card.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Callable

from deputy.agent.goal_lifecycle import GoalEvent, if_waiting_on
from deputy.agent.goals import GoalStatus, GoalStore
from deputy.core.records.outbox import Outbox, OutboxMessage
from deputy.sentinel.stores.action_store import ActionRecord
from deputy.core.records.actions import Action
from deputy.sentinel.stores.approvals import ApprovalRequest, ApprovalSigner, ApprovalStore
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.cards import card_text, unknown_outcome_buttons, unknown_outcome_text
from deputy.sentinel.policy import Decision, Risk, Verdict

Evidence = Callable[[Action, list[str]], "str | None"]
"""What the world shows about an action (given the idempotency keys its runs used), in a sentence."""

STARTED = "I had started carrying it out; I can't tell how far it got"


def unknown_summary(record: ActionRecord) -> str:
    """What the goal is told about an action whose outcome stays unknown."""
    known = (record.outcome or record.progress or STARTED).rstrip(".")
    return f"The executor stopped while carrying this out, so its outcome is unknown ({known})."


def card_text_for(action: Action) -> str:
    """What an action without an approval card would have shown (for its first card)."""
    return card_text(action, Decision(verdict=Verdict.allow, reasons=["It was allowed without asking."], risk=Risk.low))


def request_id_for(action: Action, claim: str) -> str:
    # One card per run that went wrong (its claim), so a retry that dies too asks again,
    # while the same run found twice (two watchdogs, a duplicate job) posts one card.
    digest = hashlib.sha256(f"unknown\x00{action.id}\x00{action.fingerprint()}\x00{claim}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:9]).decode()


class UnknownOutcomeCards:
    def __init__(
        self, approvals: ApprovalStore, goals: GoalStore, outbox: Outbox, audit: AuditLog, signer: ApprovalSigner,
        expire_at: Callable[[str, float], None], approval_ttl: float, clock: Callable[[], float],
        evidence: Evidence | None = None,
    ) -> None:
        self._approvals = approvals
        self._goals = goals
        self._outbox = outbox
        self._audit = audit
        self._signer = signer
        self._expire_at = expire_at
        self._approval_ttl = approval_ttl
        self._clock = clock
        self._evidence = evidence

    def post(self, record: ActionRecord, claim: str, known: str | None = None, sent: Action | None = None) -> None:
        """Tell the user, on the action's card, that it may or may not have happened; the goal waits.

        `sent` is the action as it was being carried out when that differs from the record (the
        user corrected its text in the send window): the card shows what may have gone out."""
        action = record.action
        shown = sent if sent is not None else action
        known = (known or record.progress or STARTED).rstrip(".")
        request_id = request_id_for(action, claim)
        earlier = self._approvals.get(record.approval_id) if record.approval_id else None
        # What the user can check for themselves (an email's copy in Sent), under the keys a run used.
        keys = list(dict.fromkeys(k for k in (record.approval_id, action.id) if k))
        evidence = self._evidence(shown, keys) if self._evidence is not None else None
        edited = shown.arguments != action.arguments
        before = earlier[0].card_text if earlier and not edited else card_text_for(shown)
        text = unknown_outcome_text(action, known, before, evidence=evidence)
        now = self._clock()
        request = ApprovalRequest(
            kind="outcome_unknown", id=request_id, action_id=action.id, goal_id=action.goal_id, user_id=action.user_id,
            chat_id=action.chat_id, fingerprint=action.fingerprint(), reasons=[known], created_at=now,
            expires_at=now + self._approval_ttl, card_text=text,
        )
        if self._approvals.create(request):
            self._expire_at(request_id, request.expires_at)
            self._audit.append(action.user_id, "action_outcome_unknown", now, action_id=action.id,
                               approval_id=request_id, known=known[:500])
        self._outbox.put(
            OutboxMessage(
                chat_id=action.chat_id,
                text=text,
                buttons=unknown_outcome_buttons(self._signer, request_id, action.user_id),
                dedupe_key=f"card:{request_id}",
                ref=f"card:{request_id}",
                # The card the user approved becomes this one; an action without a card gets one.
                edit_ref=f"card:{record.approval_id}" if earlier else None,
                goal_id=action.goal_id, goal_link=True,
            )
        )

        # Until the user chooses, the goal waits as it does for an approval: its model is not
        # told anything it could turn into "Done.".
        self._goals.update(action.goal_id, if_waiting_on(action.id, GoalEvent.card, GoalStatus.acting))
