"""A tool call turned into an action for the guard, or into a question for the user.

Before the runner hands an action to the executor, code does what a model must not be
trusted with: the times the model passed in the user's words become instants in the
user's zone (`deputy.agent.time.time_arguments`; `schedule` does it for reminders and checks), and a
recipient, amount or time that came from nowhere (`deputy.agent.goal_provenance`) becomes a
question to the user instead of a card for a guess. After a calendar write, `stated_time`
is the line that tells the user which day and time were used.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable

from deputy.agent.goal_provenance import invented_values, provenance_context, question_about
from deputy.agent.goals import Goal, GoalStore
from deputy.agent.model.chat_model import ToolCall
from deputy.agent.search_filters import unasked_filters_dropped
from deputy.agent.time.time_arguments import invented_time, resolve_arguments, resolve_schedule, shown_times
from deputy.agent.time.time_words import Unclear
from deputy.agent.tools import ScheduleArgs, ToolArgumentError, call_arguments, parse_schedule
from deputy.agent.only_asked import correction as asked_only, only_asks, told_before
from deputy.agent.typed_recipients import correction, missed_recipients
from deputy.agent.watch.reminders import ReminderProblem, chosen_repeat, first_time_words, parse_remind, schedule_arguments
from deputy.core.records.effects import EffectClass
from deputy.connectors.catalog import Operation
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.core.records.actions import Action

UTC_NOTE = "(Times are in UTC because your time zone isn't set; /settings timezone Europe/Berlin sets it.)"
NO_TIME_QUESTION = "When should it be? You didn't say a day or time, and I won't guess one."


@dataclass(frozen=True)
class AskUser:
    """Ask `question` before acting; `reason` tells the model why the call was not run."""

    question: str
    reason: str


class ActionRequests:
    def __init__(
        self, goals: GoalStore, settings: UserSettingsStore | None, clock: Callable[[], float], *,
        ask_before_guessing: bool = True,
    ) -> None:
        self._goals = goals
        self._settings = settings
        self._clock = clock
        self._ask_before_guessing = ask_before_guessing

    def zone(self, user_id: int) -> str:
        """The user's time zone name; UTC when they set none."""
        return self._settings.get(user_id).timezone if self._settings is not None else "UTC"

    def prepare(self, goal: Goal, call: ToolCall, operation: Operation, services: list[str]) -> Action | AskUser:
        """The action `call` asks for, with its times resolved; or what to ask the user first.

        Raises `ToolArgumentError` / `InvalidArguments` for arguments the model must fix.
        """
        raw = unasked_filters_dropped(operation, call_arguments(call), goal.user_words())
        if not operation.time_arguments and operation.spec.effect is EffectClass.read:
            return self._action(goal, call, operation, raw)  # nothing to resolve, nothing to ask about
        known = provenance_context(self._goals._redis, self._goals, goal, goal.user_id, services)
        if operation.time_arguments:
            read = [item.text for item in known.untrusted]
            if self._ask_before_guessing and invented_time(operation, raw, [*known.trusted_texts, *read]):
                return AskUser(NO_TIME_QUESTION, "no day or time was given by the user or found in anything read")
            timed = resolve_arguments(operation, raw, self._clock(), self.zone(goal.user_id), known.user_words)
            if isinstance(timed, Unclear):
                return AskUser(timed.question, f"it is not clear which time “{timed.words}” means")
            raw = timed.arguments
        action = self._action(goal, call, operation, raw)
        words = goal.user_words()
        changes = operation.spec.effect is not EffectClass.read  # reading the calendar is how a question is answered
        if self._ask_before_guessing and changes and not operation.effect_assumed and only_asks(words) and \
                not told_before(goal.messages, told := asked_only(action.operation, words[-1])):
            raise ToolArgumentError(told)
        missed = missed_recipients(action, words)
        if missed and self._ask_before_guessing and not told_before(goal.messages, told := correction(action, missed)):
            raise ToolArgumentError(told)
        # The guard would flag a value that came from nowhere: the user is asked before any card.
        invented = invented_values(action, known) if self._ask_before_guessing else []
        if invented:
            values = ", ".join(v.value for v in invented)
            return AskUser(question_about(invented),
                           f"{values} came from nowhere (not from the user, their contacts or anything read)")
        return action

    def _action(self, goal: Goal, call: ToolCall, operation: Operation, raw: dict[str, Any]) -> Action:
        args = operation.validate(raw)
        money = operation.amount(args) if operation.amount is not None else None
        return Action(
            # Derived from the goal and the call so a re-run step re-submits the same action.
            id="a_" + hashlib.sha256(f"{goal.id}\x00{goal.step}\x00{call.id}".encode()).hexdigest()[:20],
            goal_id=goal.id,
            user_id=goal.user_id,
            chat_id=goal.chat_id,
            connector=operation.spec.connector,
            operation=operation.spec.operation,
            effect=operation.spec.effect,
            tags=operation.risk_tags(args),
            arguments=args.model_dump(mode="json"),
            targets=operation.targets(args),
            amount=money[0] if money else None,
            currency=money[1] if money else None,
            tool_call_id=call.id,
            created_at=self._clock(),
        )

    def schedule(self, goal: Goal, call: ToolCall) -> ScheduleArgs | AskUser:
        """A `schedule_check` call's arguments with the times said in words resolved, or the question."""
        resolved = resolve_schedule(call_arguments(call), self._clock(), self.zone(goal.user_id))
        if isinstance(resolved, Unclear):
            return AskUser(resolved.question, f"it is not clear which time “{resolved.words}” means")
        return parse_schedule(call.model_copy(update={"arguments": json.dumps(resolved)}))

    def reminder(self, goal: Goal, call: ToolCall) -> ScheduleArgs | AskUser:
        """A `remind_me` call as the monitor's schedule: the first time resolved from the user's words by
        code, the repeat the user said (`deputy.agent.watch.reminders`)."""
        try:
            remind = parse_remind(call_arguments(call))
        except ReminderProblem as problem:
            raise ToolArgumentError(str(problem)) from None
        repeat = chosen_repeat(remind, " ".join(goal.user_words()))
        first = {"what": remind.text, "at": first_time_words(remind.when)}
        timed = self.schedule(goal, call.model_copy(update={"name": "schedule_check", "arguments": json.dumps(first)}))
        if isinstance(timed, AskUser):
            return timed
        assert timed.at is not None
        return timed.model_copy(update=schedule_arguments(remind, timed.at, repeat))

    def stated_time(self, goal: Goal, operation: Operation, action: Action) -> list[str]:
        """`🗓 Thu 3 Dec 13:30 CET — “Dentist”` for a finished write with a time (and, in UTC
        because the user set no zone, a line saying so); nothing for other actions."""
        if operation.spec.effect is EffectClass.read:
            return []
        zone = self.zone(goal.user_id)
        when = shown_times(operation, action.arguments, zone, self._clock())
        if when is None:
            return []
        title = action.arguments.get("title")
        if not isinstance(title, str) or not title:
            title = operation.name.replace("_", " ")  # "restaurants book": what was done on that day
        lines = [f"🗓 {when} — “{title}”"]
        if zone == "UTC":
            lines.append(UTC_NOTE)
        return lines


__all__ = ["ActionRequests", "AskUser", "NO_TIME_QUESTION", "UTC_NOTE"]


