"""The goal runner: one step of a goal, as a state machine with checkpoints.

A step (1) resolves the tool calls of the last model turn, stopping when one of them
is an external action (handed to the executor through `Dispatch.action`) or a message that
ends the step, then (2) calls the model once and checkpoints its answer. Each step runs as
its own queue job; the boundaries "model call needed" and "action needed" are where a
model gateway or the executor takes over, so no worker ever waits for a human. With a
gateway (`ModelRequests`), no worker waits for the model either: the step checkpoints the
goal as waiting for its request and ends; the gateway's answer brings the next job, which
records the reply (or handles the error) exactly as the inline call would have.
"""

from __future__ import annotations

import hashlib
import logging
import time
from typing import Any, Callable

from agent.check_budget import CheckBudget
from agent.context import fold
from agent.goals import ConcurrentUpdate, Goal, GoalStatus, GoalStore, ModelWait
from agent.memory_tools import MEMORY_TOOLS, ForgetArgs, MemoryTools, RecallArgs, RememberArgs
from agent.memory_tools import parse as parse_memory
from agent.model import ChatModel, ModelError, ModelReply, ToolCall
from agent.model_requests import ModelRequest, ModelRequests, new_request_id
from agent.monitoring import Monitoring
from agent.prompt import build_messages, tool_message
from agent.reading import ContentScanner, Reading
from agent.steps import Dispatch, GoalStopped, RunnerLimits, StepOutcome
from agent.subgoals import Subgoals
from agent.tools import (
    INTERNAL_TOOLS,
    ToolArgumentError,
    call_arguments,
    parse_plan,
    parse_reply,
    parse_schedule,
    parse_split,
)
from agent.watch_steps import WatchSteps
from connectors.catalog import Catalog, InvalidArguments, Operation
from connectors.custom import UserCatalogs
from deputy.handoff import HandOff, HandOffStore, handoff_message
from deputy.outbox import Button, Outbox, OutboxMessage
from deputy.user_settings import UserSettingsStore
from sentinel.action_store import ActionStore
from sentinel.actions import Action, ActionState

log = logging.getLogger(__name__)

__all__ = ["Dispatch", "GoalRunner", "GoalStopped", "RunnerLimits", "StepOutcome"]


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
    ) -> None:
        self._goals = goals
        self._actions = actions
        self._model = model
        self._outbox = outbox
        self._dispatch = dispatch
        self._clock = clock
        self._limits = limits
        self._catalog = catalog
        self._scanner = scanner
        self._memory = memory
        self._settings = settings
        self._own_tools = [*INTERNAL_TOOLS, *(MEMORY_TOOLS if memory else [])]
        self._user_catalogs = user_catalogs
        self._gateway = gateway
        self._subgoals = Subgoals(goals, dispatch, clock)
        self._reading = Reading(goals, scanner, clock)
        self._monitoring = Monitoring(dispatch, clock, checks, settings)
        self._watch = WatchSteps(self._monitoring, actions, dispatch, outbox, self._reading,
                                 checkpoint=self._checkpoint, call_model=self._call_model, end=self._end,
                                 catalog_for=self._catalog_for)
        self._handoffs = handoffs

    def run_step(self, goal_id: str, step: int) -> StepOutcome:
        try:
            return self._run_step(goal_id, step)
        except GoalStopped:
            self._dispatch.idle(goal_id)
            return StepOutcome.not_running

    def _run_step(self, goal_id: str, step: int) -> StepOutcome:
        goal = self._goals.get(goal_id)
        if goal is None or goal.step != step:
            return StepOutcome.stale
        if goal.status is GoalStatus.acting and self._monitoring.is_probe(goal):
            probed = self._watch.after_probe(goal)
            if probed is not None:
                return probed
        elif goal.status is GoalStatus.acting:
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
                return checked
        elif goal.status is not GoalStatus.running:
            return StepOutcome.not_running
        elif goal.waiting_model is not None:
            if goal.waiting_model.step == goal.step and self._gateway is not None:
                return self._model_answered(goal)
            goal.waiting_model = None  # the goal changed since (edited), or the gateway was turned off: ask anew
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
            if call.name in ("schedule_check", "no_news") and goal.monitor is not None:
                park = park or not str(goal.messages[-1].get("content", "")).startswith("Error")
        if park:
            return self._watch.park(goal)
        return self._call_model(goal)

    # -- tool calls ---------------------------------------------------------------------

    def _resolve(self, goal: Goal, call: ToolCall) -> StepOutcome | None:
        """Handle one pending call; an outcome means the step ends here."""
        try:
            operation = self._catalog_for(goal).get(call.name)
            if operation is not None:
                return self._submit(goal, call, operation)
            if call.name == "reply":
                return self._reply(goal, call)
            if call.name == "update_plan":
                goal.plan = parse_plan(call).steps
                result = "Plan saved."
            elif call.name == "read_result":
                result = self._reading.read_result(goal, call)
            elif call.name == "split_into_subgoals":
                refusal = self._subgoals.refusal(goal)
                if refusal is None:
                    return self._split(goal, call)
                result = refusal
            elif call.name == "schedule_check":
                scheduled = self._monitoring.schedule(goal, parse_schedule(call), call.id, self._catalog_for(goal))
                if scheduled is None:
                    return self._watch.run_probe(goal)  # its first reading answers this call
                result = scheduled
            elif call.name in ("remember", "forget_memory", "recall") and self._memory is not None:
                result = self._memory_call(goal, call)
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

    def _remember(self, goal: Goal, call: ToolCall, result: str) -> None:
        """Keep a digest of (call, result) to notice a goal going round in circles."""
        digest = hashlib.sha256(f"{call.name}\x00{call.arguments}\x00{result}".encode()).hexdigest()[:16]
        goal.loop_signatures = [*goal.loop_signatures, digest][-2 * self._limits.loop_repeats :]

    def _catalog_for(self, goal: Goal) -> Catalog:
        """The operations this user may use: everyone's, plus the services they connected."""
        return self._user_catalogs.for_user(goal.user_id) if self._user_catalogs else self._catalog

    def _tools_for(self, goal: Goal) -> list[dict[str, Any]]:
        return [*self._own_tools, *self._catalog_for(goal).tool_schemas()]

    def _memory_call(self, goal: Goal, call: ToolCall) -> str:
        assert self._memory is not None
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

    def _submit(self, goal: Goal, call: ToolCall, operation: Operation) -> StepOutcome:
        args = operation.validate(call_arguments(call))
        money = operation.amount(args) if operation.amount is not None else None
        action = Action(
            # Derived from the goal and the call so a re-run step re-submits the same action.
            id="a_" + hashlib.sha256(f"{goal.id}\x00{goal.step}\x00{call.id}".encode()).hexdigest()[:20],
            goal_id=goal.id,
            user_id=goal.user_id,
            chat_id=goal.chat_id,
            connector=operation.spec.connector,
            operation=operation.spec.operation,
            effect=operation.spec.effect,
            tags=sorted(operation.spec.tags),
            arguments=args.model_dump(mode="json"),
            targets=operation.targets(args),
            amount=money[0] if money else None,
            currency=money[1] if money else None,
            tool_call_id=call.id,
            created_at=self._clock(),
        )
        self._actions.submit(action)
        goal.status = GoalStatus.acting
        goal.pending_action_id = action.id
        goal = self._checkpoint(goal)
        self._dispatch.action(action.id, goal.id, goal.step)
        self._dispatch.idle(goal.id)
        return StepOutcome.acting

    def _resume_after_action(self, goal: Goal) -> Goal | None:
        record = self._actions.get(goal.pending_action_id or "")
        if record is None:
            # The action was never stored (crash right before it): decide again.
            goal.status, goal.pending_action_id = GoalStatus.running, None
            return goal
        if not record.state.terminal:
            if record.state is ActionState.submitted:
                # The hand-off to the executor may have been lost with a crashed worker.
                self._dispatch.action(record.action.id, goal.id, goal.step)
            self._dispatch.idle(goal.id)
            return None
        call = goal.pending_calls.pop(0)
        observed = self._reading.observe(goal, record)
        self._remember(goal, call, observed)
        goal.messages.append(tool_message(call.id, observed))
        goal.status, goal.pending_action_id = GoalStatus.running, None
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
            goal.result, goal.status = args.text, GoalStatus.done
            return self._end(goal)
        self._outbox.send(goal.chat_id, args.text, dedupe_key=f"{goal.id}:{goal.step}:{call.id}",
                          proactive=goal.monitor is not None)
        waiting = args.expects_answer
        watching = args.keep_watching and goal.monitor is not None and not waiting
        said = "Waiting for the user's answer." if waiting else "Still watching." if watching else ""
        goal.messages.append(tool_message(call.id, f"Delivered. {said}".strip()))
        # The transcript must answer every call of the turn before the user speaks again.
        for skipped in goal.pending_calls:
            goal.messages.append(tool_message(skipped.id, "Not run: the conversation moved on."))
        goal.pending_calls.clear()
        if watching:
            return self._watch.park(goal)
        goal.status = GoalStatus.waiting_user if waiting else GoalStatus.done
        return self._end(goal)

    def _wait_for_human(self, goal: Goal, handoff: HandOff) -> StepOutcome:
        """A page needs the user: ask them (with its picture) and wait; their answer resumes the goal."""
        self._outbox.put(handoff_message(handoff))
        for skipped in goal.pending_calls:
            goal.messages.append(tool_message(skipped.id, "Not run: waiting for the user."))
        goal.pending_calls.clear()
        goal.status = GoalStatus.waiting_user
        return self._end(goal)

    def _end(self, goal: Goal) -> StepOutcome:
        """Checkpoint a goal that stops here (done, failed, waiting for the user)."""
        goal = self._checkpoint(goal)
        self._dispatch.idle(goal.id)
        if goal.status.finished:
            self._subgoals.child_ended(goal)
        return StepOutcome.finished

    # -- the model ----------------------------------------------------------------------

    def _call_model(self, goal: Goal) -> StepOutcome:
        if goal.step - goal.steps_base >= self._limits.max_steps:
            return self._pause(
                goal,
                f"I've taken {self._limits.max_steps} steps on “{_short(goal.text)}” without finishing, so I paused "
                "it to keep costs in check. Continue?",
            )
        used = goal.prompt_tokens + goal.completion_tokens - goal.tokens_base
        if used >= self._limits.max_tokens:
            return self._pause(
                goal,
                f"“{_short(goal.text)}” has used {used:,} tokens of its {self._limits.max_tokens:,} budget, so I "
                "paused it. Continue?",
            )
        recent = goal.loop_signatures[-self._limits.loop_repeats :]
        if len(recent) == self._limits.loop_repeats and len(set(recent)) == 1:
            goal.loop_signatures = []
            return self._pause(
                goal,
                f"I seem to be going round in circles on “{_short(goal.text)}” (the same step with the same result "
                f"{self._limits.loop_repeats} times), so I stopped. Continue anyway?",
            )
        settings = self._settings.get(goal.user_id) if self._settings else None
        memories = self._memory.relevant(goal) if self._memory else None
        messages, tools = build_messages(goal, self._clock(), settings, memories), self._tools_for(goal)
        if self._gateway is not None:
            return self._request_model(goal, messages, tools)
        goal = self._checkpoint(goal)
        try:
            reply = self._model.complete(messages, tools)
        except ModelError as exc:
            return self._model_failed(goal, exc)
        return self._record_reply(goal, reply)

    def _request_model(self, goal: Goal, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> StepOutcome:
        """Hand the model call to the gateway; its answer enqueues this goal's next job."""
        request = ModelRequest(id=new_request_id(goal.id, goal.step), goal_id=goal.id, step=goal.step,
                               attempt=goal.model_attempts, messages=messages, tools=tools, created_at=self._clock())
        goal.waiting_model = ModelWait(request_id=request.id, step=goal.step)
        # Checkpointed first: a crash before the submission leaves this job's unit registered,
        # and the re-run step finds the request missing and submits it again. The unit is not
        # released here: the job's end releases it only if the gateway's answer has not
        # already handed it to the next job.
        goal = self._checkpoint(goal)
        assert self._gateway is not None
        self._gateway.submit(request)
        return StepOutcome.waiting

    def _model_answered(self, goal: Goal) -> StepOutcome:
        assert self._gateway is not None and goal.waiting_model is not None
        request_id = goal.waiting_model.request_id
        outcome = self._gateway.outcome(request_id)
        if outcome is None:
            if self._gateway.pending(request_id):
                return StepOutcome.waiting  # an early or duplicate job: the gateway's answer brings the real one
            goal.waiting_model = None  # lost before it reached the gateway
            return self._call_model(goal)
        goal.waiting_model = None
        if outcome.kind == "reply" and outcome.reply is not None:
            # Tool calls are resolved in this same job (one job per model turn, as inline).
            return self._record_reply(goal, outcome.reply, carry_on=True)
        if outcome.kind == "error" and outcome.failure is not None:
            return self._model_failed(goal, outcome.failure.error())
        return self._call_model(goal)  # discarded while the goal was paused: ask again

    def _model_failed(self, goal: Goal, exc: ModelError) -> StepOutcome:
        log.warning("goal %s: model call failed: %s", goal.id, exc)
        goal.model_attempts += 1
        if exc.retryable and goal.model_attempts < self._limits.max_model_attempts:
            delay = self._limits.retry_delays[min(goal.model_attempts, len(self._limits.retry_delays)) - 1]
            goal = self._checkpoint(goal)
            self._dispatch.step(goal.id, goal.step, delay=delay)
            return StepOutcome.retrying
        return self._fail(
            goal,
            f"{exc.user_message} I tried {goal.model_attempts} times and stopped. "
            "Your goal is saved: send /retry to try again.",
        )

    def _record_reply(self, goal: Goal, reply: ModelReply, carry_on: bool = False) -> StepOutcome:
        goal.model_attempts = 0
        goal.prompt_tokens += reply.usage.prompt_tokens
        goal.completion_tokens += reply.usage.completion_tokens
        goal.messages.append(reply.as_message())
        goal.messages, goal.summary, goal.summary_hidden = fold(goal.messages, goal.summary, goal.summary_hidden)
        goal.step += 1
        if reply.tool_calls:
            goal.pending_calls = list(reply.tool_calls)
            goal = self._checkpoint(goal)
            if carry_on:
                self._dispatch.carry_on(goal.id, goal.step)
                return self._run_step(goal.id, goal.step)
            self._dispatch.step(goal.id, goal.step)
            return StepOutcome.continued
        # A plain answer without tools: deliver it; a question waits for the user.
        text = (reply.content or "").strip() or "I have nothing to add."
        if goal.parent_id is not None:
            goal.result, goal.status = text, GoalStatus.done
            return self._end(goal)
        self._outbox.send(goal.chat_id, text, dedupe_key=f"{goal.id}:{goal.step}:text",
                          proactive=goal.monitor is not None)
        goal.status = GoalStatus.waiting_user if text.endswith("?") else GoalStatus.done
        return self._end(goal)

    def _fail(self, goal: Goal, message: str) -> StepOutcome:
        if goal.parent_id is None:
            # Sent before the checkpoint (deduplicated), so a crash in between cannot lose it.
            self._outbox.send(goal.chat_id, message, dedupe_key=f"{goal.id}:{goal.step}:failed:{goal.model_attempts}")
        goal.status, goal.error = GoalStatus.failed, message
        return self._end(goal)

    def _pause(self, goal: Goal, message: str) -> StepOutcome:
        if goal.parent_id is not None:
            return self._fail(goal, message.removesuffix(" Continue?").removesuffix(" Continue anyway?"))
        self._outbox.put(
            OutboxMessage(
                chat_id=goal.chat_id,
                text=message,
                buttons=[[Button(text="Continue", sign=f"gc:{goal.id}"), Button(text="Stop", sign=f"gx:{goal.id}")]],
                dedupe_key=f"{goal.id}:{goal.step}:paused:{len(goal.loop_signatures)}",
            )
        )
        goal.status = GoalStatus.paused
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


def _short(text: str, limit: int = 50) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
