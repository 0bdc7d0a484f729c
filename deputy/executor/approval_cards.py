"""Approval cards: the card an "ask" puts in the chat, and what happens when its time is up.

The approval id is derived from exactly what would run, so a review run again finds the
same request and card, and a changed action gets a new one. The card goes out before the
action's state changes: a crash in between re-sends it (deduplicated by the approval id)
instead of leaving the user without a card.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any, Callable, Protocol

from deputy.agent.goal_lifecycle import GoalEvent, if_waiting_on
from deputy.agent.goals import GoalStatus, GoalStore
from deputy.core.infrastructure import metrics
from deputy.core.confidential import Locked, WaitingWork
from deputy.core.records.actions import Action, ActionState
from deputy.core.records.outbox import Outbox, OutboxMessage
from deputy.sentinel.cards import card_buttons, card_text
from deputy.sentinel.policy import Decision
from deputy.sentinel.stores.action_store import ActionStore
from deputy.sentinel.stores.approvals import ApprovalRequest, ApprovalSigner, ApprovalStore
from deputy.sentinel.stores.audit import AuditLog


class ExecutorDispatch(Protocol):
    """What the executor needs from dispatch."""

    def step(self, goal_id: str, step: int, delay: float = 0, pipeline: Any = None,
             owner: int | None = None) -> None: ...

    def action(self, action_id: str, goal_id: str, step: int, approval_id: str | None = None,
               delay: float = 0) -> None: ...

    def expire_approval(self, approval_id: str, when: float) -> None: ...


class ApprovalCards:
    def __init__(self, redis, actions: ActionStore, approvals: ApprovalStore, goals: GoalStore, outbox: Outbox,
                 audit: AuditLog, signer: ApprovalSigner, dispatch: ExecutorDispatch, approval_ttl: float,
                 clock: Callable[[], float]) -> None:
        self._redis = redis
        self._actions = actions
        self._approvals = approvals
        self._goals = goals
        self._outbox = outbox
        self._audit = audit
        self._signer = signer
        self._dispatch = dispatch
        self._approval_ttl = approval_ttl
        self._clock = clock

    def post(self, action: Action, decision: Decision, extra: str,
             allowed_from: tuple[ActionState, ...] = (ActionState.submitted,)) -> None:
        """Store the approval request, send its card (the guard's text, then `extra`), and
        move the action to awaiting approval and its goal to waiting on the card."""
        approval_id = approval_id_for(action)
        now = self._clock()
        text = card_text(action, decision) + extra
        request = ApprovalRequest(
            id=approval_id, action_id=action.id, goal_id=action.goal_id, user_id=action.user_id,
            chat_id=action.chat_id, fingerprint=action.fingerprint(), reasons=decision.reasons, created_at=now,
            expires_at=now + self._approval_ttl, card_text=text,
        )
        if self._approvals.create(request):
            self._dispatch.expire_approval(approval_id, request.expires_at)
        self._outbox.put(OutboxMessage(
            chat_id=action.chat_id, text=text, dedupe_key=f"card:{approval_id}", ref=f"card:{approval_id}",
            buttons=card_buttons(self._signer, approval_id, action.user_id, offer_always=decision.allow_always),
            goal_id=action.goal_id, goal_link=True,
        ))
        if self._actions.transition(action.id, allowed_from, ActionState.awaiting_approval, approval_id=approval_id):
            self._audit.append(action.user_id, "approval_requested", now, action_id=action.id, approval_id=approval_id)
            metrics.card("asked")
        self._goals.update(action.goal_id, if_waiting_on(action.id, GoalEvent.card, GoalStatus.acting))

    def expire(self, approval_id: str) -> None:
        """A card's time is up: mark it, tell the user, let the goal go on."""
        try:
            self._approvals.get(approval_id)
        except Locked as locked:  # the card stays open until the unlock, then expires
            WaitingWork(self._redis).park_expiry(locked.user_id, approval_id)
            return
        if not self._approvals.expire(approval_id, self._clock()):
            return
        stored = self._approvals.get(approval_id)
        if stored is None:
            return
        request, _ = stored
        expired = (
            "⌛ Nobody chose in time, so I dropped it. Whether it happened is still unknown."
            if request.kind == "outcome_unknown" else "⌛ This request expired, so nothing was done."
        )
        self._outbox.put(OutboxMessage(chat_id=request.chat_id, text=f"{request.card_text}\n\n{expired}",
                                       edit_ref=f"card:{approval_id}", dedupe_key=f"expired:{approval_id}"))
        self._audit.append(request.user_id, "approval_expired", self._clock(), approval_id=approval_id)
        metrics.card("expired")
        goal = self._goals.get(request.goal_id)
        self._dispatch.action(request.action_id, request.goal_id, goal.step if goal else 0, approval_id)


def approval_id_for(action: Action) -> str:
    """Derived from exactly what would run (the action and its fingerprint)."""
    digest = hashlib.sha256(f"approval\x00{action.id}\x00{action.fingerprint()}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:9]).decode()


