"""The goal runner: one step of a goal, as a state machine with checkpoints.

A step (1) resolves the tool calls of the last model turn, stopping when one of them
is an external action (handed to the executor through `Dispatch.action`) or a message that
ends the step, then (2) calls the model once and checkpoints its answer (`ModelTurn`: the
budgets, the inline call or the gateway's request and answer, recording the reply). Each
step runs as its own queue job; the boundaries "model call needed" and "action needed" are
where a model gateway or the executor takes over, so no worker ever waits for a human, nor,
with a gateway, for the model. Monitored goals' steps live in `WatchSteps`, parts of a split
goal in `Subgoals`, attachments and results in `Reading`; the runner lends `ModelTurn` and
`WatchSteps` the steps they share (checkpoint, fail, pause, end) as explicit callables.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any, Callable

from deputy.core.accounts.oauth import allowed, signed_in_scopes
from deputy.agent.action_requests import ActionRequests, AskUser
from deputy.agent.answer_check import check_answer
from deputy.agent.earlier import MAX_DONE_LINES, done_line, wrote_text
from deputy.agent.goal_tally import count_action
from deputy.agent.check_in_offers import offer_check_in
from deputy.agent.watch.check_budget import CheckBudget
from deputy.agent.goal_lifecycle import GoalEvent, advance, if_waiting_on
from deputy.agent.goals import ConcurrentUpdate, Goal, GoalStatus, GoalStore, did_work
from deputy.agent.memory_tools import MEMORY_TOOLS, ForgetArgs, MemoryTools, RecallArgs, RememberArgs, memory_undo_buttons
from deputy.agent.memory_tools import parse as parse_memory
from deputy.agent.only_asked import correction as asked_only, only_asks, told_before
from deputy.agent.model.chat_model import ChatModel, ToolCall
from deputy.agent.model.model_requests import ModelRequests
from deputy.agent.model_turn import ModelTurn
from deputy.agent.watch.monitoring import Monitoring
from deputy.sentinel.stores.mandates import MandateStore
from deputy.agent.plan_gate import held_refusal, plan_refusal
from deputy.agent.prompt import tool_message
from deputy.agent.reading import ContentScanner, Reading
from deputy.agent.repeated_reads import SAME_READ, already_read
from deputy.agent.steps import (
    AskModel, Dispatch, GoalStopped, RunCalls, RunnerLimits, StepOutcome, TurnResult, hand_to_executor,
)
from deputy.agent.subgoals import Subgoals
from deputy.agent.uploads import Uploads
from deputy.agent.user_reads import goal_reads, step_start_reads
from deputy.agent.tools import (
    INTERNAL_TOOLS,
    ToolArgumentError,
    call_arguments,
    parse_plan,
    parse_reply,
    parse_split,
)
from deputy.agent.unconfirmed import unconfirmed_line, with_caveats
from deputy.agent.unlock_wait import park_until_unlocked
from deputy.agent.watch.watch_steps import WatchSteps
from deputy.connectors.catalog import Catalog, InvalidArguments, Operation
from deputy.connectors.custom import UserCatalogs
from deputy.workspace.confined_run import RunLimits
from deputy.workspace.files import Workspace
from deputy.agent.workspace_tools import WORKSPACE_TOOL_NAMES, WORKSPACE_TOOLS, WorkspaceTools
from deputy.core.confidential import Locked, WaitingWork
from deputy.core.records.handoff import HandOff, HandOffStore, handoff_message
from deputy.core.records.outbox import Button, Outbox, OutboxMessage
from deputy.core.accounts.quota_store import keys as quota_keys
from deputy.core.accounts.quotas import Quotas
from deputy.core.infrastructure import step_reads
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.sentinel.stores.action_store import ActionStore
from deputy.core.records.actions import Action, ActionState
from deputy.core.records.effects import EffectClass

__all__ = ["Dispatch", "GoalRunner", "GoalStopped", "RunnerLimits", "StepOutcome"]

_OWN_READS = frozenset({"reply", "update_plan", "recall", "list_files", "read_file", "read_result"})
"""Deputy's own tools that change nothing a read could see: a read repeated after them is still the same read."""


class GoalRunner:
    def __init__(
        self,
        goals: GoalStore,
        actions: ActionStore,
        model: ChatModel,
        outbox: Outbox,
        dispatch: Dispatch,
        catalog: Catalog,
        clock: Callable[[], float] = time.time,
        limits: RunnerLimits = RunnerLimits(),
        scanner: ContentScanner | None = None,
        memory: MemoryTools | None = None,
        settings: UserSettingsStore | None = None,
        user_catalogs: UserCatalogs | None = None,
        checks: CheckBudget | None = None,
        handoffs: HandOffStore | None = None,
        gateway: ModelRequests | None = None,
        uploads: Uploads | None = None,
        ask_before_guessing: bool = True,
        quotas: Quotas | None = None,
        model_name: str | None = None,
        workspace: Workspace | None = None,
        code_limits: RunLimits = RunLimits(),
    ) -> None:
        """`ask_before_guessing=False` submits actions with made-up values as they are: only for
        showing that the guard alone still holds when the agent is compromised."""
        self._goals = goals
        self._actions = actions
        self._outbox = outbox
        self._dispatch = dispatch
        self._clock = clock
        self._limits = limits
        self._catalog = catalog
        self._memory = memory
        self._requests = ActionRequests(goals, settings, clock, ask_before_guessing=ask_before_guessing)
        self._own_tools = [*INTERNAL_TOOLS, *(MEMORY_TOOLS if memory else []), *(WORKSPACE_TOOLS if workspace else [])]
        self._user_catalogs = user_catalogs
        self._subgoals = Subgoals(goals, dispatch, clock)
        # Files users sent live in the same Redis as their goals.
        self._reading = Reading(goals, scanner, clock, uploads or Uploads(goals._redis), workspace)
        self._files = WorkspaceTools(workspace, outbox, self._reading.outside, code_limits) if workspace else None
        self._monitoring = Monitoring(dispatch, clock, checks, settings)
        self._turn = ModelTurn(model, dispatch, outbox, clock, limits, settings, memory, gateway,
                               tools_for=self._tools_for, checkpoint=self._checkpoint, quotas=quotas,
                               model_name=model_name)
        self._watch = WatchSteps(self._monitoring, actions, dispatch, outbox, self._reading,
                                 checkpoint=self._checkpoint, catalog_for=self._catalog_for,
                                 mandates=MandateStore(goals._redis))
        self._handoffs = handoffs
        self._quotas = quotas

    def run_step(self, goal_id: str, step: int, owner: int | None = None) -> StepOutcome:
        """`owner`: the goal's user as its job says, to read their records with the goal in one round trip."""
        with step_reads.one_step():
            if owner is not None:
                step_reads.fetch(self._goals._redis, step_start_reads(goal_id, owner))
            return self._run_step_stopping(goal_id, step)

    def _run_step_stopping(self, goal_id: str, step: int) -> StepOutcome:
        try:
            return self._run_step(goal_id, step)
        except GoalStopped:
            self._dispatch.idle(goal_id)
            return StepOutcome.not_running
        except Locked as locked:
            park_until_unlocked(WaitingWork(self._goals._redis), self._outbox, locked, goal_id, step)
            self._dispatch.idle(goal_id)
            return StepOutcome.waiting

    def _run_step(self, goal_id: str, step: int, checkpointed: Goal | None = None) -> StepOutcome:
        """`checkpointed`: the goal as this job just saved it (its reply's tool calls to run), not read again."""
        goal = checkpointed if checkpointed is not None else self._goals.get(goal_id)
        if goal is None or goal.step != step:
            return StepOutcome.stale
        step_reads.fetch(self._goals._redis, goal_reads(goal, self._quota_counters(goal)))  # one round trip
        if goal.status is GoalStatus.acting and self._monitoring.is_probe(goal):
            probed = self._watch.after_probe(goal)
            if probed is not None:
                return self._carry_out(probed)
        elif goal.status in (GoalStatus.acting, GoalStatus.waiting_approval):
            action_id = goal.pending_action_id
            resumed = self._resume_after_action(goal)
            if resumed is None:
                return StepOutcome.waiting
            goal = resumed
            handoff = self._handoffs.for_action(goal.user_id, action_id) if self._handoffs else None
            if handoff is not None and goal.parent_id is None:
                return self._wait_for_human(goal, handoff)
        elif goal.status is GoalStatus.waiting_children:
            joined = self._subgoals.join(goal)
            if joined is None:
                self._dispatch.idle(goal.id)
                return StepOutcome.waiting
            goal = joined
        elif goal.status is GoalStatus.scheduled:
            checked = self._watch.check_due(goal)
            if checked is not None:
                return self._carry_out(checked)
        elif goal.status is not GoalStatus.running:
            return StepOutcome.not_running
        elif goal.waiting_model is not None:
            answered = self._turn.resume(goal)
            if answered is not None:
                return self._carry_out(answered)
        elif goal.step == 0 and goal.parent_id is None:  # a new goal: a dated event said in passing gets one offer
            offer_check_in(self._goals._redis, self._outbox, goal, self._clock(), self._monitoring.zone_of(goal.user_id))
        if goal.attachments:
            failed = self._reading.read_attachments(goal)
            if failed is not None:
                return self._fail(goal, failed)

        park = False
        while goal.pending_calls:
            call = goal.pending_calls[0]
            outcome = self._resolve(goal, call)
            if outcome is not None:
                return outcome
            if call.name in ("schedule_check", "remind_me", "no_news") and goal.monitor is not None:
                park = park or not str(goal.messages[-1].get("content", "")).startswith("Error")
        if park:
            return self._watch.park(goal)
        return self._model_turn(goal)

    def _quota_counters(self, goal: Goal) -> list[str]:
        """The keys of the user's day and month counters, which the plan's token check reads before a model call."""
        if self._quotas is None or goal.status is not GoalStatus.running:
            return []
        return quota_keys(goal.user_id, self._quotas.periods_of(goal.user_id, self._clock()))[:2]

    def _model_turn(self, goal: Goal) -> StepOutcome:
        return self._carry_out(self._turn.call(goal))

    def _carry_out(self, result: TurnResult) -> StepOutcome:
        """Do what the model turn said comes next."""
        if isinstance(result, StepOutcome):
            return result
        if isinstance(result, AskModel):
            return self._model_turn(result.goal)  # a monitor's news, asked about in this same job
        if isinstance(result, RunCalls):
            # The reply's tools, in this same job. The goal is the copy just saved: reading it back would only
            # repeat the load (its revision still guards the next save against anyone else's change).
            return self._run_step(result.goal.id, result.goal.step, checkpointed=result.goal)
        if result.how == "pause":
            return self._pause(result.goal, result.message, key=result.key)
        if result.how == "fail":
            return self._fail(result.goal, result.message)
        return self._end(result.goal)

    # -- tool calls ---------------------------------------------------------------------

    def _resolve(self, goal: Goal, call: ToolCall) -> StepOutcome | None:
        """Handle one pending call; an outcome means the step ends here."""
        try:
            operation = self._catalog_for(goal).get(call.name)
            if operation is not None and not self._repeats_a_read(goal, call, operation):
                return self._submit(goal, call, operation)
            if operation is not None:
                result = SAME_READ
            elif call.name == "reply":
                return self._reply(goal, call)
            elif call.name == "update_plan":
                goal.plan = parse_plan(call).steps
                result = "Plan saved."
            elif call.name == "read_result":
                result = self._reading.read_result(goal, call)
            elif call.name == "split_into_subgoals":
                refusal = self._subgoals.refusal(goal)
                if refusal is None:
                    return self._split(goal, call)
                result = refusal
            elif call.name in ("schedule_check", "remind_me"):
                timed = self._requests.schedule(goal, call) if call.name == "schedule_check" else \
                    self._requests.reminder(goal, call)
                if isinstance(timed, AskUser):
                    return self._ask(goal, call, timed.question, timed.reason)
                scheduled = self._monitoring.schedule(goal, timed, call.id, self._catalog_for(goal))
                if call.name == "remind_me" and goal.monitor is not None and not str(scheduled).startswith("Error"):
                    self._outbox.send(goal.chat_id, self._monitoring.reminder_set(goal),
                                      dedupe_key=f"{goal.id}:{call.id}:reminder-set")
                if scheduled is None:
                    return self._carry_out(self._watch.run_probe(goal))  # its first reading answers this call
                result = scheduled
            elif call.name in WORKSPACE_TOOL_NAMES and self._files is not None:
                result = self._files.handle(goal, call, call_arguments(call))
            elif call.name in ("remember", "forget_memory", "recall") and self._memory is not None:
                result = self._memory_call(goal, call)  # its confirmation line comes with an Undo
            elif call.name == "no_news":
                result = "OK, nothing to report." if goal.monitor else "Error: no check is scheduled for this goal."
            else:
                names = ", ".join(t["function"]["name"] for t in self._tools_for(goal))
                result = f"Error: there is no tool named {call.name!r}. Available tools: {names}."
        except (ToolArgumentError, InvalidArguments) as exc:
            result = f"Error: {exc}"
        self._remember(goal, call, result)
        goal.messages.append(tool_message(call.id, result))
        goal.pending_calls.pop(0)
        return None

    def _repeats_a_read(self, goal: Goal, call: ToolCall, operation: Operation) -> bool:
        """A read whose result the goal already holds, nothing having changed since (`deputy.agent.repeated_reads`).
        A watch reads again on purpose, to see what changed, so its goals always read."""
        if operation.spec.effect is not EffectClass.read or goal.monitor is not None:
            return False
        catalog = self._catalog_for(goal)

        def is_read(name: str) -> bool:
            found = catalog.get(name)
            return found.spec.effect is EffectClass.read if found is not None else name in _OWN_READS

        return already_read(goal.messages, call.name, call.arguments, is_read)

    def _remember(self, goal: Goal, call: ToolCall, result: str) -> None:
        """Keep a digest of (call, result) to notice a goal going round in circles."""
        digest = hashlib.sha256(f"{call.name}\x00{call.arguments}\x00{result}".encode()).hexdigest()[:16]
        goal.loop_signatures = [*goal.loop_signatures, digest][-2 * self._limits.loop_repeats :]

    def _catalog_for(self, goal: Goal) -> Catalog:
        """The operations this user may use: everyone's, plus the services they connected."""
        return self._user_catalogs.for_user(goal.user_id) if self._user_catalogs else self._catalog

    def _tools_for(self, goal: Goal) -> list[dict[str, Any]]:
        catalog = self._catalog_for(goal)
        # A signed-in mail or calendar shows the agent only what the scopes the user chose allow.
        scopes = signed_in_scopes(self._goals._redis, goal.user_id)
        return [*self._own_tools, *(op.tool_schema() for name in catalog.names() if (op := catalog.get(name))
                                    and allowed(f"{op.spec.connector}.{op.spec.operation}", scopes))]

    def _memory_call(self, goal: Goal, call: ToolCall) -> str:
        assert self._memory is not None
        words = goal.user_words()
        if call.name != "recall" and only_asks(words) and not told_before(goal.messages, told := asked_only(call.name, words[-1])):
            raise ToolArgumentError(told)  # "what did my last order cost?" forgets nothing
        if call.name == "remember" and self._quotas is not None:
            refused = held_refusal(self._quotas, goal, "memories", self._memory.count(goal.user_id), self._clock())
            if refused is not None:
                return refused
        if call.name == "remember":
            return self._memory.remember(goal, parse_memory(call, RememberArgs))
        if call.name == "forget_memory":
            return self._memory.forget(goal, parse_memory(call, ForgetArgs))
        return self._memory.recall(goal, parse_memory(call, RecallArgs))

    def _split(self, goal: Goal, call: ToolCall) -> StepOutcome:
        children = self._subgoals.spawn(goal, call.id, parse_split(call))
        self._checkpoint(goal)
        self._subgoals.start(children)
        self._dispatch.idle(goal.id)
        return StepOutcome.waiting

    def _submit(self, goal: Goal, call: ToolCall, operation: Operation) -> StepOutcome | None:
        if self._quotas is not None:
            refused = plan_refusal(self._quotas, goal, operation.spec, self._clock())
            if refused is not None:
                self._remember(goal, call, refused)
                goal.messages.append(tool_message(call.id, refused))
                goal.pending_calls.pop(0)
                return None
        prepared = self._requests.prepare(goal, call, operation, self._catalog_for(goal).services())
        if isinstance(prepared, AskUser):
            return self._ask(goal, call, prepared.question, prepared.reason)
        return hand_to_executor(goal, prepared, self._actions, self._dispatch, self._checkpoint)

    def _ask(self, goal: Goal, call: ToolCall, question: str, reason: str) -> StepOutcome | None:
        """Ask the user instead of acting on a guess; the goal waits for their answer.

        A part of a split goal cannot ask: the call fails with the reason, for its answer.
        """
        goal.pending_calls.pop(0)
        if goal.parent_id is not None:
            result = f"Error: not done, {reason}. Say in your answer what is missing: {question}"
            self._remember(goal, call, result)
            goal.messages.append(tool_message(call.id, result))
            return None
        self._outbox.send(goal.chat_id, question, dedupe_key=f"{goal.id}:{goal.step}:{call.id}:ask", goal_id=goal.id,
                          spoken=goal.spoken)
        goal.last_told = question
        goal.messages.append(tool_message(
            call.id, f"Not done: {reason}. Deputy asked the user: “{question}” Use their answer."))
        for skipped in goal.pending_calls:
            goal.messages.append(tool_message(skipped.id, "Not run: waiting for the user's answer."))
        goal.pending_calls.clear()
        advance(goal, GoalEvent.ask_user)
        return self._end(goal)

    def _state_time(self, goal: Goal, action: Action) -> None:
        """Keep the day and time a finished calendar write used, for the goal's answer."""
        operation = self._catalog_for(goal).find(action.connector, action.operation)
        lines = self._requests.stated_time(goal, operation, action) if operation is not None else []
        goal.confirmations = [*goal.confirmations, *(line for line in lines if line not in goal.confirmations)]

    def _resume_after_action(self, goal: Goal) -> Goal | None:
        record = self._actions.get(goal.pending_action_id or "")
        if record is None:
            # The action was never stored (crash right before it): decide again.
            advance(goal, GoalEvent.observed).pending_action_id = None
            return goal
        if not record.state.terminal:
            if record.state is ActionState.submitted:
                # The hand-off to the executor may have been lost with a crashed worker.
                self._dispatch.action(record.action.id, goal.id, goal.step)
            elif record.state is ActionState.awaiting_approval:
                # Resumed after a pause while its card was still open: it waits for the card again.
                self._goals.update(goal.id, if_waiting_on(record.action.id, GoalEvent.card, GoalStatus.acting))
            self._dispatch.idle(goal.id)
            return None
        call = goal.pending_calls.pop(0)
        count_action(goal.tally, record.action, record.state, carded=record.approval_id is not None)
        if record.state is ActionState.succeeded:
            self._state_time(goal, record.action)
            # What a follow-up of this goal is told was done (the id of what it made, from the connector's own words).
            did = done_line(record.action, record.outcome if record.untrusted_origin is None else None)
            if did is not None:
                goal.done = [*goal.done, did][-MAX_DONE_LINES:]
            goal.wrote = wrote_text(record.action) or goal.wrote
        if record.state is ActionState.dropped:
            goal.unconfirmed.append(unconfirmed_line(record.action))
        observed = self._reading.observe(goal, record)
        self._remember(goal, call, observed)
        goal.messages.append(tool_message(call.id, observed))
        advance(goal, GoalEvent.observed).pending_action_id = None
        return goal

    def _reply(self, goal: Goal, call: ToolCall) -> StepOutcome:
        args = parse_reply(call)
        goal.pending_calls.pop(0)
        if goal.parent_id is not None:
            # A part's answer goes to the main goal, never to the user.
            goal.messages.append(tool_message(call.id, "Delivered to the main goal."))
            for skipped in goal.pending_calls:
                goal.messages.append(tool_message(skipped.id, "Not run: the part is finished."))
            goal.pending_calls.clear()
            goal.result = args.text
            advance(goal, GoalEvent.finish)
            return self._end(goal)
        verdict = check_answer(goal, args.text, self._turn.evidence(goal))
        if verdict.action == "recheck":
            goal.messages.append(tool_message(call.id, "Not delivered. " + verdict.note.removeprefix("(Deputy) ")))
            for skipped in goal.pending_calls:
                goal.messages.append(tool_message(skipped.id, "Not run: the answer is being written again."))
            goal.pending_calls.clear()
            return self._model_turn(goal)
        text = with_caveats(goal, verdict.text)  # the model may say "Done." anyway
        # The model may leave out or misstate when, or what it remembered: the user always reads it.
        missing = [line for line in goal.confirmations if _gist(line).lower() not in text.lower()]
        if missing:
            text += "\n\n" + "\n".join(missing)
        goal.confirmations = []
        waiting = args.expects_answer
        watching = args.keep_watching and goal.monitor is not None and not waiting
        self._outbox.put(OutboxMessage(chat_id=goal.chat_id, text=text, dedupe_key=f"{goal.id}:{goal.step}:{call.id}",
                                       proactive=goal.monitor is not None, buttons=memory_undo_buttons(goal),
                                       goal_id=goal.id, goal_link=not waiting and not watching and did_work(goal),
                                       spoken=goal.spoken))
        goal.last_told = text
        goal.memory_undos = []
        said = "Waiting for the user's answer." if waiting else "Still watching." if watching else ""
        goal.messages.append(tool_message(call.id, f"Delivered. {said}".strip()))
        # The transcript must answer every call of the turn before the user speaks again.
        for skipped in goal.pending_calls:
            goal.messages.append(tool_message(skipped.id, "Not run: the conversation moved on."))
        goal.pending_calls.clear()
        if watching:
            return self._watch.park(goal)
        advance(goal, GoalEvent.ask_user if waiting else GoalEvent.finish)
        return self._end(goal)

    def _wait_for_human(self, goal: Goal, handoff: HandOff) -> StepOutcome:
        """A page needs the user: ask them (with its picture) and wait; their answer resumes the goal."""
        self._outbox.put(handoff_message(handoff))
        for skipped in goal.pending_calls:
            goal.messages.append(tool_message(skipped.id, "Not run: waiting for the user."))
        goal.pending_calls.clear()
        advance(goal, GoalEvent.ask_user)
        return self._end(goal)

    def _end(self, goal: Goal) -> StepOutcome:
        """Checkpoint a goal that stops here (done, failed, waiting for the user)."""
        goal = self._checkpoint(goal)
        self._dispatch.idle(goal.id)
        if goal.status.finished:
            self._subgoals.child_ended(goal)
        return StepOutcome.finished

    def _fail(self, goal: Goal, message: str) -> StepOutcome:
        if goal.parent_id is None:
            # Sent before the checkpoint (deduplicated), so a crash in between cannot lose it.
            message = with_caveats(goal, message)
            self._outbox.send(goal.chat_id, message, dedupe_key=f"{goal.id}:{goal.step}:failed:{goal.model_attempts}",
                              goal_id=goal.id)
            goal.last_told = message
        advance(goal, GoalEvent.fail).error = message
        return self._end(goal)

    def _pause(self, goal: Goal, message: str, key: str | None = None) -> StepOutcome:
        """Pause with Continue/Stop; `key` tells this pause apart from an earlier one at the same step."""
        if goal.parent_id is not None:
            return self._fail(goal, message.removesuffix(" Continue?").removesuffix(" Continue anyway?"))
        self._outbox.put(
            OutboxMessage(
                chat_id=goal.chat_id,
                text=message,
                buttons=[[Button(text="Continue", sign=f"gc:{goal.id}"), Button(text="Stop", sign=f"gx:{goal.id}")]],
                dedupe_key=f"{goal.id}:{goal.step}:paused:{key or len(goal.loop_signatures)}",
            )
        )
        advance(goal, GoalEvent.pause)
        self._checkpoint(goal)
        self._dispatch.idle(goal.id)
        return StepOutcome.finished

    def _checkpoint(self, goal: Goal) -> Goal:
        goal.updated_at = self._clock()
        try:
            return self._goals.save(goal)
        except ConcurrentUpdate:
            current = self._goals.get(goal.id)
            if current is not None and current.status in (GoalStatus.paused, GoalStatus.cancelled):
                raise GoalStopped(goal.id) from None
            raise


def _gist(line: str) -> str:
    """The part of a confirmation line the answer must contain: the time of a 🗓 line, a quoted text."""
    if line.startswith("🗓 "):
        return line.removeprefix("🗓 ").split(" — ", 1)[0]
    if "“" in line and "”" in line:
        return line[line.index("“") + 1:line.rindex("”")]
    return line
