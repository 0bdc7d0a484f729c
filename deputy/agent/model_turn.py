"""The model turn of a goal step: budgets, the model call, and recording its answer.

Before each call the goal's budgets are checked (steps, tokens, the same step going round
in circles); a goal over one pauses and asks the user. The call is inline, or, with a model
gateway (`ModelRequests`), a request: the step checkpoints the goal as waiting for it and
ends, and the gateway's answer brings the next job, which records the reply (or handles the
error) exactly as the inline call would have. A reply with tool calls continues the goal; a
plain answer is delivered and ends the step. The turn never calls back into the runner:
it returns what happens next (a `StepOutcome`, a `Stop` for the runner to carry out, or
`RunCalls` to run the reply's tool calls in the same job), and the runner does it.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from deputy.agent.answer_check import check_answer, evidence_for
from deputy.agent.context import fold
from deputy.agent.goal_lifecycle import GoalEvent, advance
from deputy.agent.goals import Goal, GoalStatus, ModelWait, did_work
from deputy.agent.memory_tools import MemoryTools
from deputy.agent.model.chat_model import ChatModel, ModelError, ModelReply
from deputy.agent.unconfirmed import with_caveats
from deputy.agent.model.model_requests import ModelRequest, ModelRequests, new_request_id
from deputy.agent.prompt import build_messages
from deputy.agent.grounding import Evidence
from deputy.agent.origins import deputy_note
from deputy.agent.steps import AskModel, Dispatch, RunCalls, RunnerLimits, StepOutcome, Stop, TurnResult
from deputy.core.records.outbox import Outbox, OutboxMessage
from deputy.core.accounts.quota_texts import near_text, refusal_text
from deputy.core.accounts.quotas import Quotas
from deputy.core.accounts.user_settings import UserSettingsStore

log = logging.getLogger(__name__)

MAX_FOLDED_WORDS = 50
"""The user's folded messages kept for the guard (older ones only make it ask more)."""




class ModelTurn:
    def __init__(
        self,
        model: ChatModel,
        dispatch: Dispatch,
        outbox: Outbox,
        clock: Callable[[], float],
        limits: RunnerLimits,
        settings: UserSettingsStore | None,
        memory: MemoryTools | None,
        gateway: ModelRequests | None,
        *,
        tools_for: Callable[[Goal], list[dict[str, Any]]],
        checkpoint: Callable[[Goal], Goal],
        quotas: Quotas | None = None,
        model_name: str | None = None,
    ) -> None:
        self._model = model
        self._dispatch = dispatch
        self._outbox = outbox
        self._clock = clock
        self._limits = limits
        self._settings = settings
        self._memory = memory
        self._gateway = gateway
        self._tools_for = tools_for
        self._checkpoint = checkpoint
        self._quotas = quotas
        self._model_name = model_name

    def resume(self, goal: Goal) -> TurnResult | None:
        """A goal waiting for the gateway's answer: handle it; None asks the model anew in this step."""
        assert goal.waiting_model is not None
        if goal.waiting_model.step == goal.step and self._gateway is not None:
            return self._answered(goal)
        goal.waiting_model = None  # the goal changed since (edited), or the gateway was turned off: ask anew
        return None

    def call(self, goal: Goal) -> TurnResult:
        """Ask the model for the goal's next turn, unless a budget says to pause first."""
        over = self._over_budget(goal) or self._over_plan(goal)
        if over is not None:
            return over
        settings = self._settings.get(goal.user_id) if self._settings else None
        memories = self._memory.relevant(goal) if self._memory else None
        messages, tools = build_messages(goal, self._clock(), settings, memories), self._tools_for(goal)
        if self._gateway is not None:
            return self._request(goal, messages, tools)
        goal = self._checkpoint(goal)
        try:
            reply = self._model.complete(messages, tools)
        except ModelError as exc:
            return self._failed(goal, exc)
        if self._quotas is not None:  # with the gateway, the gateway counts what its calls used
            self._quotas.count_tokens(goal.user_id, self._model_name,
                                      reply.usage.prompt_tokens + reply.usage.completion_tokens, self._clock())
        return self._record(goal, reply)

    def evidence(self, goal: Goal) -> Evidence:
        """What the goal's answer may rest on (`deputy.agent.answer_check`), with the memories the model was shown."""
        settings = self._settings.get(goal.user_id) if self._settings else None
        memories = self._memory.relevant(goal) if self._memory else None
        return evidence_for(goal, memories, settings.timezone if settings else "UTC", self._clock())

    def _over_plan(self, goal: Goal) -> TurnResult | None:
        """The user's plan has no model use left (or the account is on hold): pause here, between steps.

        Checked before each model call, so a goal stops at its next step, never in the middle of
        an action; what was already approved runs (the executor does not ask the plan). Near a
        limit the user is told once.
        """
        if self._quotas is None:
            return None
        now = self._clock()
        refusal, near = self._quotas.over_tokens(goal.user_id, now)
        if refusal is None and not near:
            return None  # the usual case: nothing to say, so the user's zone is not read
        zone = self._settings.get(goal.user_id).timezone if self._settings else None
        for notice in near:
            self._outbox.send(goal.chat_id, near_text(notice, now, zone),
                              dedupe_key=f"near:{goal.user_id}:{notice.period}:{notice.counter}:{int(notice.resets)}")
        if refusal is None:
            return None
        text = refusal_text(refusal, now, zone, self._quotas.book.upgrade, "go on with it for now")
        # Keyed by the moment: pressing Continue while still over the limit brings this message again.
        return Stop("pause", goal, f"I paused “{_short(goal.text)}”. {text} Press Continue when there is room "
                    "again, or Stop.", key=f"plan:{int(now)}")

    def _over_budget(self, goal: Goal) -> TurnResult | None:
        if goal.step - goal.steps_base >= self._limits.max_steps:
            return Stop(
                "pause", goal,
                f"I've taken {self._limits.max_steps} steps on “{_short(goal.text)}” without finishing, so I paused "
                "it to keep costs in check. Continue?",
            )
        used = goal.prompt_tokens + goal.completion_tokens - goal.tokens_base
        if used >= self._limits.max_tokens:
            return Stop(
                "pause", goal,
                f"“{_short(goal.text)}” has used {used:,} tokens of its {self._limits.max_tokens:,} budget, so I "
                "paused it. Continue?",
            )
        if going_round(goal.loop_signatures, self._limits.loop_repeats):
            goal.loop_signatures = []
            return Stop(
                "pause", goal,
                f"I seem to be going round in circles on “{_short(goal.text)}” (the same step with the same result "
                f"{self._limits.loop_repeats} times), so I stopped. Continue anyway?",
            )
        return None

    def _request(self, goal: Goal, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> TurnResult:
        """Hand the model call to the gateway; its answer enqueues this goal's next job."""
        request = ModelRequest(id=new_request_id(goal.id, goal.step), goal_id=goal.id, step=goal.step,
                               user_id=goal.user_id, attempt=goal.model_attempts, messages=messages, tools=tools,
                               created_at=self._clock())
        goal.waiting_model = ModelWait(request_id=request.id, step=goal.step)
        # Checkpointed first: a crash before the submission leaves this job's unit registered,
        # and the re-run step finds the request missing and submits it again. The unit is not
        # released here: the job's end releases it only if the gateway's answer has not
        # already handed it to the next job.
        goal = self._checkpoint(goal)
        assert self._gateway is not None
        self._gateway.submit(request)
        return StepOutcome.waiting

    def _answered(self, goal: Goal) -> TurnResult:
        assert self._gateway is not None and goal.waiting_model is not None
        request_id = goal.waiting_model.request_id
        outcome = self._gateway.outcome(request_id)
        if outcome is None:
            if self._gateway.pending(request_id):
                return StepOutcome.waiting  # an early or duplicate job: the gateway's answer brings the real one
            goal.waiting_model = None  # lost before it reached the gateway
            return self.call(goal)
        goal.waiting_model = None
        if outcome.kind == "reply" and outcome.reply is not None:
            # Tool calls are resolved in this same job (one job per model turn, as inline).
            return self._record(goal, outcome.reply, carry_on=True)
        if outcome.kind == "error" and outcome.failure is not None:
            return self._failed(goal, outcome.failure.error())
        return self.call(goal)  # discarded while the goal was paused: ask again

    def _failed(self, goal: Goal, exc: ModelError) -> TurnResult:
        log.warning("goal %s: model call failed: %s", goal.id, exc)
        goal.model_attempts += 1
        if exc.retryable and goal.model_attempts < self._limits.max_model_attempts:
            delay = self._limits.retry_delays[min(goal.model_attempts, len(self._limits.retry_delays)) - 1]
            goal = self._checkpoint(goal)
            self._dispatch.step(goal.id, goal.step, delay=delay, owner=goal.user_id)
            return StepOutcome.retrying
        return Stop(
            "fail", goal,
            f"{exc.user_message} I tried {goal.model_attempts} times and stopped. "
            "Your goal is saved: send /retry to try again.",
        )

    def _record(self, goal: Goal, reply: ModelReply, carry_on: bool = False) -> TurnResult:
        goal.model_attempts = 0
        goal.prompt_tokens += reply.usage.prompt_tokens
        goal.completion_tokens += reply.usage.completion_tokens
        goal.messages.append(reply.as_message())
        folded = fold(goal.messages, goal.summary, goal.summary_hidden)
        goal.messages, goal.summary, goal.summary_hidden = folded.messages, folded.summary, folded.hidden
        goal.folded_words = [*goal.folded_words, *folded.typed][-MAX_FOLDED_WORDS:]
        goal.step += 1
        if reply.tool_calls:
            goal.pending_calls = list(reply.tool_calls)
            goal = self._checkpoint(goal)
            if carry_on:
                self._dispatch.carry_on(goal.id, goal.step)
                return RunCalls(goal)
            self._dispatch.step(goal.id, goal.step, owner=goal.user_id)
            return StepOutcome.continued
        # A plain answer without tools: deliver it; a question waits for the user.
        text = (reply.content or "").strip() or "I have nothing to add."
        if goal.parent_id is not None:
            goal.result = text
            advance(goal, GoalEvent.finish)
            return Stop("end", goal)
        verdict = check_answer(goal, text, self.evidence(goal))
        if verdict.action == "recheck":
            goal.messages.append(deputy_note(verdict.note))
            return AskModel(goal)
        text = with_caveats(goal, verdict.text)  # what is unknown is said whatever the model wrote
        self._outbox.put(OutboxMessage(chat_id=goal.chat_id, text=text, dedupe_key=f"{goal.id}:{goal.step}:text",
                                       proactive=goal.monitor is not None, goal_id=goal.id, spoken=goal.spoken,
                                       goal_link=not text.endswith("?") and did_work(goal)))
        goal.last_told = text
        advance(goal, GoalEvent.ask_user if text.endswith("?") else GoalEvent.finish)
        return Stop("end", goal)


def going_round(signatures: list[str], repeats: int) -> bool:
    """The last steps repeat one (call, result), or alternate between two (list, a failing change, list,
    the same failing change…), `repeats` times over: the goal is going round in circles."""
    for period in (1, 2):
        recent = signatures[-period * repeats:]
        if len(recent) == period * repeats and all(recent[i] == recent[i % period] for i in range(len(recent))):
            return True
    return False


def _short(text: str, limit: int = 50) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
