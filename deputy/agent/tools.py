"""The agent's own tools (talking to the user, keeping the plan) and argument parsing.

Connector operations come from `deputy.connectors.catalog`. Every argument is validated before
anything happens; a malformed call never reaches the guard or a connector (the model
gets a tool error and may try again).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, ValidationError, model_validator

from deputy.agent.goals import PlanStep
from deputy.agent.model.chat_model import ToolCall
from deputy.agent.probes import ProbeArgs


class ReplyArgs(BaseModel):
    text: str = Field(min_length=1, max_length=4000)
    expects_answer: bool = False
    keep_watching: bool = False


class ReadResultArgs(BaseModel):
    handle: str = Field(max_length=40)
    offset: int = Field(default=0, ge=0)


class SubgoalPart(BaseModel):
    title: str = Field(min_length=1, max_length=120)
    instructions: str = Field(min_length=1, max_length=2000)


class SplitArgs(BaseModel):
    parts: list[SubgoalPart] = Field(min_length=2, max_length=5)


class ScheduleArgs(BaseModel):
    what: str = Field(min_length=1, max_length=300, description="What to look at on each check.")
    every_minutes: float | None = Field(default=None, gt=0, le=7 * 24 * 60)
    in_minutes: float | None = Field(default=None, gt=0, le=90 * 24 * 60)
    until: str | None = Field(default=None, max_length=40, description="ISO date-time after which to stop checking.")
    at: str | None = Field(default=None, max_length=40, description="ISO date-time of the first (or only) check.")
    daily_at: str | None = Field(default=None, max_length=8, description="HH:MM: a check every day at this local time.")
    max_checks: int = Field(default=20, ge=1, le=500)
    probe: ProbeArgs | None = Field(default=None, description="A read Deputy runs at each check instead of you.")
    # Set by code for `remind_me` (deputy.agent.watch.reminders), never offered to the model:
    reminder: str | None = Field(default=None, max_length=300)
    every_months: int | None = Field(default=None, ge=1, le=12)

    @model_validator(mode="before")
    @classmethod
    def _no_interval_is_none(cls, data: Any) -> Any:
        # A small model fills every parameter: "every 0 minutes" beside a daily time means no interval,
        # and an empty time means no time, not an error to send back.
        if isinstance(data, dict):
            data = {key: value for key, value in data.items()
                    if not (key in ("every_minutes", "in_minutes") and isinstance(value, (int, float))
                            and not isinstance(value, bool) and value <= 0)
                    and not (key in ("at", "daily_at", "until") and isinstance(value, str) and not value.strip())}
        return data


class PlanArgs(BaseModel):
    steps: list[PlanStep] = Field(max_length=30)


REMIND_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "remind_me",
        "description": "Remind the user of something at a later time, once or repeating. Deputy sends the "
                       "text to the user at that time, word for word.",
        "parameters": {
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "What to remind them of, e.g. \"Call the bank.\""},
                "when": {"type": "string", "description": "The time in the user's own words, copied: "
                                                          "\"tomorrow at 9\", \"every monday at 9am\", \"at 5pm\""},
                "repeat": {"type": "string", "enum": ["none", "daily", "weekly", "monthly"]},
            },
            "required": ["text", "when"],
        },
    },
}
"""Reminders in the user's words; code resolves and repeats them (`deputy.agent.watch.reminders`)."""


INTERNAL_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "split_into_subgoals",
            "description": "Run 2 to 5 independent parts of this goal in parallel; you get each part's result back.",
            "parameters": {
                "type": "object",
                "properties": {
                    "parts": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"title": {"type": "string"}, "instructions": {"type": "string"}},
                            "required": ["title", "instructions"],
                        },
                    }
                },
                "required": ["parts"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "schedule_check",
            "description": (
                "Check again later (once after in_minutes or at a time, every every_minutes, or every day at "
                "daily_at; until `until` or max_checks). Times without an offset (at, until, remind_if_none_by, "
                "daily_at) are the user's local wall-clock time in their time zone (the one in your instructions): "
                "write 2026-12-04T17:00 for 17:00 their time, and add an offset only for another zone. The result "
                "says each time in the user's zone: repeat it as written. "
                "Between checks nothing runs. On each check, call no_news if nothing relevant changed. "
                "Prefer a probe when one read tool can tell: Deputy runs it at each check and wakes you only when "
                "its result has something new (compare=new_items: new emails or entries), crosses a number "
                "(compare=threshold with field and below/above, for a JSON answer), or changes at all (changed). "
                "To remind the user when something does NOT come (\"remind me on Friday if Sam hasn't replied\"), "
                "add to the probe remind_if_none_by (the deadline) or remind_each_check (\"check every morning, "
                "remind me if not\"), with reminder: the sentence Deputy sends the user. You are not called for it."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "what": {"type": "string", "description": "What is watched, as a short phrase the user "
                                                               "reads, e.g. email from sam@example.org"},
                    "every_minutes": {"type": "number"},
                    "in_minutes": {"type": "number"},
                    "at": {"type": "string", "description": "The first (or only) check: the user's own words "
                                                            "(\"tomorrow at 9\", \"in two hours\") or an ISO "
                                                            "date-time in their local time, e.g. 2026-12-04T09:00"},
                    "daily_at": {"type": "string", "description": "HH:MM, the user's local time: check every day at "
                                                                  "this time (\"every morning at 8\": 08:00), "
                                                                  "kept across daylight-saving changes"},
                    "until": {"type": "string", "description": "The user's words (\"until Friday\") or an ISO "
                                                               "date-time, the user's local time"},
                    "max_checks": {"type": "integer"},
                    "probe": {
                        "type": "object",
                        "description": "e.g. {\"tool\": \"search_email\", \"arguments\": {\"from\": "
                                       "\"sam@example.org\"}} or {\"tool\": \"tickets_get_event\", \"arguments\": "
                                       "{...}, \"compare\": \"threshold\", \"field\": \"price_from\", \"below\": 80}",
                        "properties": {
                            "tool": {"type": "string", "description": "A read tool."},
                            "arguments": {"type": "object"},
                            "compare": {"type": "string", "enum": ["new_items", "threshold", "changed"]},
                            "field": {"type": "string", "description": "threshold: the number's path, e.g. "
                                                                       "sections.*.price"},
                            "below": {"type": "number"},
                            "above": {"type": "number"},
                            "key": {"type": "string", "description": "new_items in JSON: the field naming an "
                                                                     "item (default id)."},
                            "remind_if_none_by": {
                                "type": "string",
                                "description": "The user's words (\"Friday at 17:00\") or an ISO date-time, "
                                               "the user's local time, e.g. 2026-12-04T17:00. If "
                                               "nothing new has come by "
                                               "then, the user gets the reminder once and the watch ends. The last "
                                               "check is at this time; with no every_minutes it is the only check.",
                            },
                            "remind_each_check": {
                                "type": "boolean",
                                "description": "True: at every check where nothing new has come, the user gets "
                                               "the reminder (e.g. daily_at 08:00 for every morning).",
                            },
                            "reminder": {
                                "type": "string",
                                "description": "With remind_if_none_by or remind_each_check: one short plain "
                                               "sentence for the user, no links, e.g. \"Sam hasn't replied to your "
                                               "email yet.\" Deputy sends it word for word.",
                            },
                            "if_found": {
                                "type": "string", "enum": ["tell", "end_quietly"],
                                "description": "When something new comes before a reminder watch ends: tell "
                                               "(default: you are woken to tell the user) or end_quietly (the user "
                                               "only wanted the reminder).",
                            },
                        },
                        "required": ["tool"],
                    },
                },
                "required": ["what"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "no_news",
            "description": "On a scheduled check: nothing relevant changed; wait for the next check quietly.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "read_result",
            "description": "Read more of a long tool result that was cut, by its handle.",
            "parameters": {
                "type": "object",
                "properties": {"handle": {"type": "string"}, "offset": {"type": "integer", "minimum": 0}},
                "required": ["handle"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "reply",
            "description": (
                "Message the user: the final answer when the goal is done, or a question when you need "
                "a detail from them (set expects_answer)."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "expects_answer": {"type": "boolean", "description": "True to wait for the user's answer."},
                    "keep_watching": {"type": "boolean",
                                      "description": "On a scheduled check: keep checking after this message."},
                },
                "required": ["text"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "update_plan",
            "description": "Record the plan for this goal as a list of steps with status todo, doing or done.",
            "parameters": {
                "type": "object",
                "properties": {
                    "steps": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "title": {"type": "string"},
                                "status": {"type": "string", "enum": ["todo", "doing", "done"]},
                            },
                            "required": ["title"],
                        },
                    }
                },
                "required": ["steps"],
            },
        },
    },
    REMIND_TOOL,
]


class ToolArgumentError(Exception):
    """The model called a tool with arguments that do not fit; the message goes back to it."""


def parse_reply(call: ToolCall) -> ReplyArgs:
    return _validate(call, ReplyArgs)


def parse_read_result(call: ToolCall) -> ReadResultArgs:
    return _validate(call, ReadResultArgs)


def parse_split(call: ToolCall) -> SplitArgs:
    return _validate(call, SplitArgs)


def parse_schedule(call: ToolCall) -> ScheduleArgs:
    return _validate(call, ScheduleArgs)


def parse_plan(call: ToolCall) -> PlanArgs:
    return _validate(call, PlanArgs)


def call_arguments(call: ToolCall) -> dict[str, Any]:
    return _arguments(call)


def _arguments(call: ToolCall) -> dict[str, Any]:
    try:
        return call.parsed_arguments()
    except ValueError:
        raise ToolArgumentError("The arguments were not a JSON object; call the tool again with valid JSON.") from None


def _validate(call: ToolCall, model: type[BaseModel]) -> Any:
    try:
        return model.model_validate(_arguments(call))
    except ValidationError as exc:
        raise ToolArgumentError(_explain(exc)) from None


def _explain(exc: ValidationError) -> str:
    problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors())
    return f"Invalid arguments ({problems}). Fix them and call the tool again."
