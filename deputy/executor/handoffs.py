"""The executor's side of hand-offs: record pages that need the user, and type in the code they send.

`web_recorder` turns the web connector's `NeedsHuman` into a stored `HandOff` (the goal
runner then asks the user). `HandOffService.enter` runs when the user replied with a code:
it takes the code (once), types it into the field the page asked for, and either resumes
the goal, asks again (the page did not take it), or tells the user what went wrong. The
code is never logged, audited, put in a prompt or in the goal's transcript.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from deputy.agent.goal_lifecycle import GoalEvent, move_and_hand_on, next_turn
from deputy.agent.goals import Goal, GoalStatus, GoalStore
from deputy.agent.origins import deputy_note
from deputy.core.records.effects import ConnectorError, EffectClass
from deputy.connectors.web.forms import host_of
from deputy.connectors.web.human import CodeEntry, NeedsHuman
from deputy.core.records.handoff import MAX_ATTEMPTS, CodeField, HandOff, HandOffRecorder, HandOffStore, handoff_message
from deputy.core.records.outbox import Outbox
from deputy.core.records.actions import Action
from deputy.sentinel.stores.audit import AuditLog
from deputy.core.records.payloads import HandOffCodeJob

log = logging.getLogger(__name__)

EnterCode = Callable[[Action, str, CodeEntry, str], str]
"""Types a code into a page and sends its form: (action for the egress review, url, field, code) -> new url."""

RESUMED = (
    "(Deputy) The step the page asked me for is done: I sent Deputy what the page needed and it entered it "
    "for me. Carry on with the goal from that page."
)


def web_recorder(recorder: HandOffRecorder) -> Callable[[Action, NeedsHuman], str]:
    """The web connector's hand-off hook: keep the hand-off, tell the agent to wait for the user."""

    def record(action: Action, needed: NeedsHuman) -> str:
        handoff = recorder.record(
            user_id=action.user_id, chat_id=action.chat_id, goal_id=action.goal_id, action_id=action.id,
            reason=needed.reason, url=needed.url, site=host_of(needed.url) or needed.url,
            screenshot=needed.screenshot, entry=_field(needed.entry),
        )
        return recorder.agent_note(handoff)

    return record


class HandOffService:
    def __init__(
        self,
        store: HandOffStore,
        recorder: HandOffRecorder,
        goals: GoalStore,
        outbox: Outbox,
        audit: AuditLog,
        resume_step: Callable[[str, int], None],
        enter_code: EnterCode,
        clock: Callable[[], float] = time.time,
        confirmed: Callable[[HandOff, str], None] | None = None,
    ) -> None:
        self._confirmed = confirmed  # e.g. a payment's receipt once the bank's page accepted the code
        self._store = store
        self._recorder = recorder
        self._goals = goals
        self._outbox = outbox
        self._audit = audit
        self._resume_step = resume_step
        self._enter_code = enter_code
        self._clock = clock

    def enter(self, job: HandOffCodeJob) -> str:
        handoff = self._store.get(job.user_id, job.handoff_id)
        code = self._store.take_code(job.user_id, job.handoff_id)
        if handoff is None or code is None or handoff.entry is None:
            if handoff is not None:
                self._store.close(handoff.user_id, handoff.id)
            self._outbox.send(job.user_id, "That answer came too late: the page's request had expired. "
                                           "Tell me to try again and I'll reload the page.")
            return "expired"
        entry = CodeEntry(form=handoff.entry.form, field=handoff.entry.field, label=handoff.entry.label)
        try:
            landed = self._enter_code(self._action(handoff), handoff.url, entry, code)
        except NeedsHuman as needed:
            return self._asked_again(handoff, needed)
        except ConnectorError as exc:
            message = exc.user_message.replace(code, "***")
            self._store.close(handoff.user_id, handoff.id)
            self._audit.append(handoff.user_id, "handoff_failed", self._clock(), goal_id=handoff.goal_id,
                               site=handoff.site, reason=message[:300])
            self._outbox.send(handoff.chat_id, f"I couldn't enter it on {handoff.site}: {message} "
                                               "Tell me how you'd like to continue.")
            return "failed"
        finally:
            del code
        self._store.close(handoff.user_id, handoff.id)
        self._audit.append(handoff.user_id, "handoff_completed", self._clock(), goal_id=handoff.goal_id,
                           site=handoff.site, page=landed[:300])
        self._outbox.send(handoff.chat_id, f"Done: {handoff.site} accepted it. Carrying on.",
                          dedupe_key=f"handoff-done:{handoff.id}")
        if self._confirmed is not None and handoff.action_id:
            self._confirmed(handoff, landed)
        self._resume(handoff.goal_id)
        return "entered"

    def _asked_again(self, handoff: HandOff, needed: NeedsHuman) -> str:
        self._store.close(handoff.user_id, handoff.id)
        attempts = handoff.attempts + 1
        self._audit.append(handoff.user_id, "handoff_not_accepted", self._clock(), goal_id=handoff.goal_id,
                           site=handoff.site, attempt=attempts)
        if attempts >= MAX_ATTEMPTS:
            self._outbox.send(handoff.chat_id, f"{handoff.site} still didn't accept it after {attempts} tries, so I "
                                               f"stopped trying. You can finish that step yourself at {handoff.url}, "
                                               "then tell me how to continue.")
            return "gave up"
        again = self._recorder.record(
            user_id=handoff.user_id, chat_id=handoff.chat_id, goal_id=handoff.goal_id, action_id=None,
            reason=needed.reason, url=needed.url, site=host_of(needed.url) or handoff.site,
            screenshot=needed.screenshot, entry=_field(needed.entry), attempts=attempts, retry=True,
        )
        self._outbox.put(handoff_message(again))
        return "asked again"

    def _action(self, handoff: HandOff) -> Action:
        """What the egress guard reviews the page's requests against: the user's own step on their goal."""
        return Action(
            id=f"h_{handoff.id}", goal_id=handoff.goal_id, user_id=handoff.user_id, chat_id=handoff.chat_id,
            connector="web", operation="enter_code", effect=EffectClass.write, arguments={"url": handoff.url},
            targets=[handoff.url], tool_call_id=f"handoff-{handoff.id}", created_at=self._clock(),
        )

    def _resume(self, goal_id: str) -> None:
        def carry_on(goal: Goal) -> Goal | None:
            if goal.status is not GoalStatus.waiting_user:
                return None
            goal.messages.append(deputy_note(RESUMED))
            return next_turn(goal, GoalEvent.answered, self._clock())

        move_and_hand_on(self._goals, goal_id, carry_on, self._resume_step, self._clock())


def _field(entry: CodeEntry | None) -> CodeField | None:
    return CodeField(form=entry.form, field=entry.field, label=entry.label) if entry is not None else None
