"""The executor: the only process that runs external actions, always after Sentinel.

For each submitted action it asks `sentinel.review`; allowed actions run, denied ones
return the reasons to the agent, and "ask" posts an approval card and ends the job. After
the owner's press it reviews again with the approval and runs exactly the approved
action. An action runs only after this process *claimed* it (submitted/awaiting →
executing, with a claim token), so duplicated or retried jobs never run it twice; the
idempotency key handed to the connector is the approval id (or the action id when no
approval was needed). States change only as `deputy.sentinel.action_lifecycle` allows.

If an executor dies holding a claim, the job that runs next finds the action `executing`:
if nothing had begun it simply runs again; otherwise its outcome is unknown, and the user
gets a card saying what is known with Try again / Drop it, while the goal waits.
"""

from __future__ import annotations

import logging
import secrets
import time
from typing import Callable, Mapping

from deputy.agent.goal_lifecycle import GoalEvent, if_waiting_on, move_and_hand_on
from deputy.agent.goals import GoalStatus, GoalStore
from deputy.agent.unlock_wait import WAITING_TEXT
from deputy.core.confidential import Locked, WaitingWork
from deputy.core.records.effects import ConnectorError, ConnectorOutcomeUnknown, EffectClass, OperationResult
from deputy.executor.oauth_tokens import ConnectionDead, OAuthTokens
from deputy.connectors.progress import listening
from deputy.core.infrastructure import metrics
from deputy.core.records.outbox import Outbox
from deputy.sentinel.action_lifecycle import ActionEvent
from deputy.sentinel.stores.action_store import ActionRecord, ActionStore
from deputy.core.records.actions import Action, ActionState
from deputy.sentinel.stores.approvals import (
    ApprovalRequest,
    ApprovalSigner,
    ApprovalStatus,
    ApprovalStore,
)
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.egress.transports.http_client import EgressBlocked
from deputy.sentinel.policy import Decision, Risk, Verdict, review
from deputy.sentinel.spending import SpendingLimit
from deputy.sentinel.value_sources import value_flows
from deputy.vault import Scrubber
from deputy.core.records.payloads import ActionJob
from deputy.executor.action_audit import ActionAudit
from deputy.executor.outcome_unknown import STARTED, Evidence, UnknownOutcomeCards, unknown_summary
from deputy.executor.approval_cards import ApprovalCards, ExecutorDispatch
from deputy.executor.cart_lines import CartLines
from deputy.executor.payments import PaymentIssuer
from deputy.core.records.deputy_notes import attach_note, neutralise, split_note
from deputy.core.records.read_items import ItemSpan, locate
from deputy.executor.negotiation import NegotiationGuard
from deputy.sentinel.negotiation.meaning import Embed
from deputy.executor.review_context import ReviewContextBuilder
from deputy.executor.shown_actions import CANCELLED, RUN, Settled, ShownActions
from deputy.executor.undo_writes import Reverter, UndoWrites

log = logging.getLogger(__name__)

# Runs one operation with its credentials (idempotency key given); a str is a plain summary.
ActionRunner = Callable[[Action, str], "str | OperationResult"]

_PENDING = (ActionState.submitted, ActionState.awaiting_approval)


class Executor:
    def __init__(
        self,
        actions: ActionStore,
        approvals: ApprovalStore,
        goals: GoalStore,
        outbox: Outbox,
        audit: AuditLog,
        signer: ApprovalSigner,
        dispatch: "ExecutorDispatch",
        runners: Mapping[str, ActionRunner],
        contexts: ReviewContextBuilder,
        approval_ttl: float,
        clock: Callable[[], float] = time.time,
        scrubber: Scrubber | None = None,
        user_runners: Callable[[Action], ActionRunner | None] | None = None,
        payments: PaymentIssuer | None = None,
        replicated: Callable[[], object] = lambda: None,
        evidence: Evidence | None = None,
        meaning: Embed | None = None,
        send_window: int = 0,
        reverters: Mapping[str, Reverter] | None = None,
        oauth: OAuthTokens | None = None,
    ) -> None:
        self._oauth = oauth  # signed-in connections: their scopes, and a live access token before a run
        self._replicated = replicated  # deputy.queue.replication: the started mark survives a failover
        self._payments = payments
        self._user_runners = user_runners
        self._actions = actions
        self._approvals = approvals
        self._goals = goals
        self._outbox = outbox
        self._audit = audit
        self._signer = signer
        self._dispatch = dispatch
        self._runners = runners
        self._contexts = contexts
        # Negotiating goals: every message is also held to the user's mandate.
        self._negotiation = NegotiationGuard(contexts.redis, outbox, audit, clock, parent_of=self._parent_of,
                                            embed=meaning)
        self._trail = ActionAudit(audit, self._negotiation, clock)
        self._carts = CartLines(contexts.redis, runners)
        self._scrubber = scrubber or Scrubber()
        self._approval_ttl = approval_ttl
        self._clock = clock
        self._cards = ApprovalCards(contexts.redis, actions, approvals, goals, outbox, audit, signer, dispatch,
                                    approval_ttl, clock)
        # What runs without a card is shown in full; messages wait `send_window` s unless the user chose otherwise.
        self._shown = ShownActions(contexts.redis, outbox, dispatch, clock, send_window)
        self._undo = UndoWrites(contexts.redis, actions, outbox, audit, reverters or {}, clock, self._scrubber)
        self._unknown = UnknownOutcomeCards(approvals, goals, outbox, audit, signer, dispatch.expire_approval,
                                            approval_ttl, clock, evidence)

    def _parent_of(self, goal_id: str) -> str | None:
        goal = self._goals.get(goal_id)
        return goal.parent_id if goal is not None else None

    def handle(self, job: ActionJob) -> None:
        try:
            self._handle(job)
        except (Locked, ConnectionDead) as locked:
            # A confidential user is locked, or a sign-in ended: the action waits for the unlock or the
            # new sign-in, which hands it back (the sign-in's notice was sent when it ended).
            waiting = WaitingWork(self._contexts.redis)
            waiting.park_action(locked.user_id, job.action_id, job.model_dump(mode="json"))
            if isinstance(locked, Locked) and waiting.first_notice(locked.user_id):
                self._outbox.send(locked.chat_id, WAITING_TEXT)

    def _handle(self, job: ActionJob) -> None:
        record = self._actions.get(job.action_id)
        if record is None:
            log.error("action %s not found", job.action_id)
            return
        if record.state.terminal:
            self._resume(record, job)
        elif record.state is ActionState.executing:
            self._recover(record, job)
        elif record.state is ActionState.outcome_unknown:
            if job.approval_id is not None:
                self._after_press(record, job)  # Try again / Drop it, or that card expired
        elif record.state is ActionState.submitted:
            self._first_review(record, job)
        elif job.approval_id is not None:
            self._after_press(record, job)

    def _review(self, action: Action, approved_fingerprint: str | None = None) -> Decision:
        # One round trip to Redis for the whole decision: the user's catalog and the review's context.
        stored = self._contexts.read(action)
        reviewed = self._contexts.authoritative(action, stored)
        if reviewed is None:
            return Decision(
                verdict=Verdict.deny,
                reasons=[f"{action.connector}.{action.operation} is not an operation this Deputy offers."],
                risk=Risk.high,
            )
        context = self._contexts.build(reviewed, approved_fingerprint, stored)
        decision = self._negotiation.review(reviewed, review(reviewed, context), context)
        # What the guard saw, kept with the review: a later read must not redraw the user's picture of it.
        sources = value_flows(reviewed, context.provenance) if reviewed.effect is not EffectClass.read else []
        return decision.model_copy(update={"value_sources": sources})

    def _first_review(self, record: ActionRecord, job: ActionJob) -> None:
        action = record.action
        settled = self._shown.settle(action, job.step)
        if settled is not None:
            self._settled(record, job, settled)
            return
        # Outside the scopes the user chose for a signed-in connection: refused before the guard is asked.
        if self._oauth and (refusal := self._oauth.refusal(action.user_id, f"{action.connector}.{action.operation}")):
            return self._finish(record, job, ActionState.denied, refusal)
        decision = self._review(action)
        self._trail.review(action, decision)
        if decision.verdict is Verdict.allow:
            if not self._shown.hold(action, job.step, delivered=self._negotiation.as_delivered(action)):
                self._execute(record, job, idempotency_key=action.id, limit=decision.spending_limit, held=False)
        elif decision.verdict is Verdict.deny:
            reasons = " ".join(decision.reasons)
            self._finish(record, job, ActionState.denied, f"Sentinel blocked this action: {reasons}")
        elif action.unattended:
            # A monitor's probe: nobody is there to answer a card at every check.
            reasons = " ".join(decision.reasons)
            self._finish(record, job, ActionState.denied, f"Sentinel would need to ask you about this: {reasons}")
        else:
            self._ask(record, job, decision)

    def _settled(self, record: ActionRecord, job: ActionJob, settled: Settled) -> None:
        """An outgoing message came back from its send window: sent once, or cancelled and the goal told."""
        if settled.verdict == RUN:
            self._execute(record, job, idempotency_key=record.action.id, held=True)
        elif settled.verdict == CANCELLED:
            self._shown.cancelled(record.action, settled.why)
            self._finish(record, job, ActionState.declined,
                         f"The user cancelled this in the send window: {settled.why}")

    def _ask(
        self,
        record: ActionRecord,
        job: ActionJob,
        decision: Decision,
        allowed_from: tuple[ActionState, ...] = (ActionState.submitted,),
    ) -> None:
        action = record.action
        extra = (self._carts.card_note(action) + (self._payments.card_extra(action) if self._payments else "")
                 + self._negotiation.card_note(action))
        self._cards.post(action, decision, extra, allowed_from)

    def _after_press(self, record: ActionRecord, job: ActionJob) -> None:
        stored = self._approvals.get(job.approval_id or "")
        if stored is None or stored[0].action_id != record.action.id:
            log.error("approval %s does not belong to action %s", job.approval_id, record.action.id)
            return
        request, status = stored
        if status is ApprovalStatus.pending:
            return
        if request.kind == "outcome_unknown":
            self._after_unknown_press(record, job, request, status)
            return
        if status is ApprovalStatus.denied:
            self._finish(record, job, ActionState.declined, "The user declined this action; it was not carried out.")
        elif status is ApprovalStatus.expired:
            self._finish(record, job, ActionState.expired, "The approval request expired; the action was not carried out.")
        else:
            decision = self._review(record.action, request.fingerprint)
            self._trail.review(record.action, decision)
            if decision.verdict is Verdict.allow:
                self._execute(record, job, idempotency_key=request.id)
            elif decision.verdict is Verdict.ask:
                # What would run is not what was approved: a new card, never the old approval.
                self._ask(record, job, decision, allowed_from=(ActionState.awaiting_approval,))
            else:
                self._finish(record, job, ActionState.denied, "Sentinel blocked this action: " + " ".join(decision.reasons))

    def _after_unknown_press(
        self, record: ActionRecord, job: ActionJob, request: ApprovalRequest, status: ApprovalStatus
    ) -> None:
        if status is ApprovalStatus.approved:
            decision = self._review(record.action, request.fingerprint)
            self._trail.review(record.action, decision)
            if decision.verdict is Verdict.allow:
                # The first run's key again: a service that deduplicates will not do it twice.
                self._execute(record, job, record.approval_id or record.action.id, event=ActionEvent.retry)
                return
            outcome = "Sentinel would no longer allow running it again: " + " ".join(decision.reasons)
        elif status is ApprovalStatus.denied:
            outcome = "The user chose to drop it rather than try again."
        else:
            outcome = "Nobody chose whether to try again in time, so it was dropped."
        self._finish(record, job, ActionState.dropped, f"{unknown_summary(record)} {outcome}",
                     event=ActionEvent.drop)

    def undo(self, action_id: str) -> None:
        """The user pressed Undo on a write that ran without a card: take it back through its connector."""
        self._undo.revert(action_id)

    def expire(self, approval_id: str) -> None:
        """Called when a card's time is up: mark it, tell the user, let the goal go on."""
        self._cards.expire(approval_id)

    def _execute(
        self, record: ActionRecord, job: ActionJob, idempotency_key: str, event: ActionEvent = ActionEvent.claim,
        limit: SpendingLimit | None = None, held: bool | None = None,
    ) -> None:
        """`held` says the run was not carded: False shows it now, True turns its send window into "sent"."""
        record = self._shown.as_sent(record)  # with the user's corrected text, on every run (a retry too)
        action = record.action
        goal = self._goals.get(action.goal_id)
        if goal is not None and goal.status is GoalStatus.cancelled:
            if record.state is ActionState.outcome_unknown:
                self._finish(record, job, ActionState.dropped,
                             f"{unknown_summary(record)} The goal was cancelled, so it was not tried again.",
                             event=ActionEvent.drop)
            else:
                self._finish(record, job, ActionState.declined, "The goal was cancelled, so this was not carried out.")
            return
        if self._oauth is not None:  # before the claim: an ended sign-in parks the action untouched
            self._oauth.preflight(action.user_id, f"{action.connector}.{action.operation}")
        token = secrets.token_hex(8)
        if not self._actions.claim(action.id, token, event):
            return  # another job claimed it first
        delivered = self._negotiation.as_delivered(action)  # a move's message, as its runner composes it now
        runner = self._negotiation.runner(action, self._runners, self._user_runners) or self._runners.get(
            f"{action.connector}.{action.operation}")
        if runner is None and self._user_runners is not None:
            runner = self._user_runners(action)
        try:
            if runner is None:
                raise ConnectorError(f"The {action.connector} connector is not set up on this Deputy.")
            runnable = self._paid(action, job, goal, idempotency_key, limit)
            # From here on something may happen outside: were we to die, nobody could tell
            # whether it did. A claim we no longer hold (presumed dead, replaced) stops here.
            if not self._actions.progress(action.id, token, STARTED):
                log.warning("action %s: lost the claim before starting; not running it", action.id)
                return
            self._replicated()
            with listening(lambda note: self._actions.progress(action.id, token, note)):
                produced = metrics.timed_action(action.connector, runner, runnable, idempotency_key)
        except ConnectionDead:  # refused at login, so nothing went out: the action waits for a new sign-in
            self._actions.release(action.id, token, approved=record.approval_id is not None)
            raise
        except ConnectorOutcomeUnknown as exc:
            message = self._scrubber.scrub(exc.user_message)
            log.warning("action %s: outcome unknown: %s", action.id, message)
            if self._actions.finish(action.id, token, ActionEvent.lost_midway, message):
                fresh = self._actions.get(action.id)
                if fresh is not None:
                    self._unknown.post(fresh, token, known=message, sent=action)
            return
        except ConnectorError as exc:
            message = self._scrubber.scrub(exc.user_message)
            log.warning("action %s failed: %s", action.id, message)
            if isinstance(exc, EgressBlocked):
                self._trail.egress_denied(action, exc)
            notice = self._payments.refusal_notice(action, message, goal.chat_id) if self._payments and goal else None
            if notice is not None:
                self._outbox.put(notice)
            self._finish(record, job, ActionState.failed, f"Failed: {message}", token=token)
            return
        result = produced if isinstance(produced, OperationResult) else OperationResult(summary=produced)
        note = self._negotiation.ran(action, result, self._contexts.authoritative)
        # Nothing a service returns reaches the agent before secrets are taken out of it; Deputy's own note
        # stays apart from outside text, which cannot imitate it.
        summary = attach_note(self._scrubber.scrub(result.summary), split_note(note)[1])
        receipt = self._payments.after_success(action, summary) if self._payments else None
        if receipt is not None:
            self._outbox.put(receipt)
        if held is not None:
            self._shown.ran(action, held, undoable=self._undo.offer(action, result.undo), delivered=delivered)
        self._finish(record, job, ActionState.succeeded, summary, token=token, untrusted_origin=result.untrusted_origin,
                     items=self._placed(result, summary))

    def _placed(self, result: OperationResult, stored: str) -> list[ItemSpan]:
        """Where each item of an outside result sits in the outcome as stored (scrubbed and
        neutralised the same way, piece by piece; an item changed differently is left out)."""
        if not result.items or result.untrusted_origin is None:
            return []
        cleaned = [item.model_copy(update={"text": neutralise(self._scrubber.scrub(item.text))})
                   for item in result.items]
        return locate(split_note(stored)[0], cleaned)

    def _paid(self, action: Action, job: ActionJob, goal, idempotency_key: str,
              limit: SpendingLimit | None = None) -> Action:
        """The action with its payment token, minted against what the user approved (or, for a
        purchase a spending rule let through, capped at that rule's limit)."""
        if self._payments is None:
            return action
        items = self._carts.for_payment(action)
        if limit is not None:
            self._audit.append(action.user_id, "purchase_within_rule", self._clock(), action_id=action.id,
                               rule_id=limit.rule_id, limit=limit.money(), merchant=limit.merchant)
            return self._payments.prepare(action, idempotency_key, limit=limit, items=items,
                                          chat_id=goal.chat_id if goal else None)
        stored = self._approvals.get(job.approval_id) if job.approval_id else None
        card_text = stored[0].card_text if stored and stored[0].action_id == action.id else ""
        return self._payments.prepare(action, idempotency_key, card_text=card_text, approval_id=job.approval_id,
                                      chat_id=goal.chat_id if goal else None, items=items)

    def _recover(self, record: ActionRecord, job: ActionJob) -> None:
        """A previous executor claimed this action and stopped before recording the result."""
        became = self._actions.lost(record)
        fresh = self._actions.get(record.action.id)
        if fresh is None:
            return
        if became is ActionState.outcome_unknown:
            self._unknown.post(fresh, record.claim or "", sent=self._shown.as_sent(fresh).action)
        elif became is not None:
            # Nothing had begun: it simply runs, under the approval it already has.
            log.warning("action %s: its executor stopped before starting it; running it again", record.action.id)
            self.handle(job.model_copy(update={"approval_id": job.approval_id or fresh.approval_id}))
        elif fresh.state.terminal:
            self._resume(fresh, job)

    def _finish(
        self,
        record: ActionRecord,
        job: ActionJob,
        state: ActionState,
        outcome: str,
        token: str | None = None,
        untrusted_origin: str | None = None,
        event: ActionEvent | None = None,
        items: list[ItemSpan] | None = None,
    ) -> None:
        action_id = record.action.id
        if token is not None:
            result = ActionEvent.succeed if state is ActionState.succeeded else ActionEvent.fail
            moved = self._actions.finish(action_id, token, result, outcome, untrusted_origin, items)
            if not moved:
                log.warning("action %s: finished after its claim was taken over; result not recorded", action_id)
        else:
            moved = self._actions.apply(action_id, event or _EVENT_FOR[state], outcome=outcome,
                                        untrusted_origin=untrusted_origin)
        if moved:
            self._trail.finished(record.action, state, outcome, ran=token is not None)
        fresh = self._actions.get(action_id)
        if fresh is not None and fresh.state.terminal:
            self._resume(fresh, job)

    def _resume(self, record: ActionRecord, job: ActionJob) -> None:
        # Run again after a crash, the goal already moved: `approved` repeats and hands it on again.
        moved = if_waiting_on(record.action.id, GoalEvent.approved, GoalStatus.waiting_approval, GoalStatus.acting)
        move_and_hand_on(self._goals, job.goal_id, moved, self._dispatch.step, self._clock())


_EVENT_FOR = {
    ActionState.denied: ActionEvent.deny,
    ActionState.declined: ActionEvent.decline,
    ActionState.expired: ActionEvent.expire,
    ActionState.dropped: ActionEvent.drop,
}
