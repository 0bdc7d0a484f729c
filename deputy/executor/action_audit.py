"""What the executor writes to the audit trail about an action: each review, each egress denial,
and how it ended, with the content of what went out when it ran.

The entries say what and why, never a credential: a review keeps the operation, its targets, the
verdict and the reasons; a finished action keeps its outcome and, if it ran, exactly what was sent
or written (sealed like the rest of the entry). For a negotiating goal both pass through the
negotiation guard's redaction, so the user's limit never reaches the trail.
"""

from __future__ import annotations

from typing import Callable

from deputy.core.records.actions import Action, ActionState
from deputy.core.records.effects import EffectClass
from deputy.executor.negotiation import NegotiationGuard
from deputy.sentinel.egress.transports.http_client import EgressBlocked
from deputy.sentinel.policy import Decision
from deputy.sentinel.shown import sent_text
from deputy.sentinel.stores.audit import AuditLog

AUDIT_CONTENT = 20_000
"""Characters of what went out kept in an entry."""
SOURCE_CHARS = 600
"""Characters of each traced value (and of the passage it came from) kept with a review: enough to draw it."""
MAX_SOURCES = 40
"""Traced values kept with a review (an action with more fields is drawn with its first ones)."""


class ActionAudit:
    def __init__(self, audit: AuditLog, negotiation: NegotiationGuard, clock: Callable[[], float]) -> None:
        self._audit = audit
        self._negotiation = negotiation
        self._clock = clock

    def review(self, action: Action, decision: Decision) -> None:
        untrusted = [v.explain() for v in decision.untrusted_values]
        # Where each value came from, as this review traced it (the web view's diagram is drawn from it).
        sources = [{**flow.model_dump(mode="json"), "value": self._negotiation.for_audit(action, flow.value[:SOURCE_CHARS]),
                    "passage": self._negotiation.for_audit(action, flow.passage[:SOURCE_CHARS]) if flow.passage else None}
                   for flow in decision.value_sources[:MAX_SOURCES]]
        self._audit.append(
            action.user_id, "review", self._clock(), action_id=action.id,
            operation=f"{action.connector}.{action.operation}", targets=action.targets,
            verdict=decision.verdict.value, reasons=decision.reasons, untrusted=untrusted,
            **({"sources": sources} if action.effect is not EffectClass.read else {}),
        )

    def egress_denied(self, action: Action, blocked: EgressBlocked) -> None:
        # Where and why only: the host and the guard's reasons never hold a credential.
        decision = blocked.decision
        self._audit.append(
            action.user_id, "egress_denied", self._clock(), action_id=action.id,
            operation=f"{action.connector}.{action.operation}",
            host=decision.host if decision else None,
            reasons=decision.reasons if decision else [blocked.user_message],
        )

    def finished(self, action: Action, state: ActionState, outcome: str, ran: bool) -> None:
        """`ran`: it was carried out (or begun), so what went out, to whom, exactly, is kept with it."""
        content = {"content": self._negotiation.for_audit(action, sent_text(action, whole=True)[:AUDIT_CONTENT])
                   } if ran else {}
        self._audit.append(
            action.user_id, "action_" + state.value, self._clock(), action_id=action.id,
            outcome=self._negotiation.for_audit(action, outcome[:500]), **content,
        )
