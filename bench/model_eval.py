"""How well the configured model picks tools: a fixed list of simple goals, one score.

    python -m bench.model_eval

Uses the model Deputy would use, built by the worker's own `build_model`: `OPENAI_BASE_URL` /
`OPENAI_API_KEY` / `DEPUTY_MODEL` (and `DEPUTY_MAX_TOOLS`, `DEPUTY_FORCE_TOOL_CALL`) when set,
otherwise the local model (`deputy.local_model`, built and fetched on first use) with the
settings `deputy run` gives it. Each goal gets the runner's own system prompt and the full
tool set, as a worker would send it. A goal passes when the model's
first action is one of the expected tools and its arguments validate against the catalog
(`connectors.default`) or the agent's own tools and carry the key value (the address, the
date); `update_plan` first is allowed (answered "Plan saved.", as the runner would). Goals
that need no tool pass with a plain answer (or a `reply`) that contains the answer.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.goals import Goal
from agent.memory_tools import MEMORY_TOOLS, ForgetArgs, RecallArgs, RememberArgs
from agent.memory_tools import parse as parse_memory
from agent.model import ChatModel, ModelError, ModelReply, ToolCall
from agent.prompt import build_messages, tool_message
from agent.time_arguments import resolve_arguments
from agent.time_words import Unclear
from agent.tools import INTERNAL_TOOLS, ToolArgumentError, parse_plan, parse_reply, parse_schedule
from connectors.catalog import InvalidArguments
from connectors.default import default_catalog
from deputy.local_model import ensure_local_model
from deputy.settings import Settings
from deputy.worker_main import build_model

NOW = 1_795_953_600.0  # Sunday 29 November 2026, 12:00 UTC: fixed, so date answers can be checked
PLAIN = "(answer)"


@dataclass(frozen=True)
class Case:
    """A goal, the tools that are a right first action, and what the arguments must contain."""

    goal: str
    tools: frozenset[str]
    must: tuple[str, ...] = ()  # lower-cased substrings of the arguments' JSON (or the answer)
    check: Callable[[dict[str, Any]], bool] | None = field(default=None, compare=False)


def case(goal: str, tools: str, *must: str, check: Callable[[dict[str, Any]], bool] | None = None) -> Case:
    return Case(goal, frozenset(tools.split()), tuple(m.lower() for m in must), check)


CASES = [
    case("Email alice@example.org that I'm running late", "send_email", "alice@example.org", "late"),
    case("Send an email to bob@example.com saying the report is ready", "send_email", "bob@example.com", "report"),
    case("Write to sam@example.net and ask whether Friday still works for dinner", "send_email", "sam@example.net"),
    case("Draft an email to carol@example.org about moving our call to Tuesday, but don't send it yet",
         "draft_email", "carol@example.org"),
    case("What is the capital of France?", PLAIN, "paris"),
    case("How many days are there in a leap year?", PLAIN, "366"),
    case("Remember that I'm vegetarian", "remember", "vegetarian"),
    case("Please remember that my favourite airline is KLM", "remember", "klm"),
    case("Forget that I'm vegetarian", "forget_memory", "vegetarian"),
    case("What do you remember about my diet?", "recall"),
    case("Do I have any unread emails?", "search_email"),
    case("Find the emails from dave@example.com", "search_email", "dave@example.com"),
    case("Did Bob send me the invoice? Check my mail", "search_email"),
    case("Put lunch with Sam on my calendar on 2 December 2026 at 12:30", "create_event schedule_meeting",
         "lunch", "2026-12-02"),
    case("Add a dentist appointment to my calendar on 3 December 2026 at 9:00", "create_event", "dentist",
         "2026-12-03"),
    case("What's on my calendar this week?", "list_events"),
    case("When am I free on Tuesday afternoon?", "free_busy list_events"),
    case("Schedule a meeting with erin@example.org on 7 December 2026 at 10:00 about the budget",
         "schedule_meeting", "erin@example.org", "2026-12-07"),
    case("Open https://example.com and tell me what it says", "open_page", "example.com"),
    case("Search the web for the opening hours of the Louvre", "search_web", "louvre"),
    case("Take a screenshot of https://example.org", "screenshot", "example.org"),
    case("Check every day whether flights to Lisbon drop below $400, and tell me when they do", "schedule_check",
         "lisbon", check=lambda a: a.get("every_minutes") is not None),
]

_INTERNAL: dict[str, Callable[[ToolCall], Any]] = {
    "reply": parse_reply, "update_plan": parse_plan, "schedule_check": parse_schedule,
    "remember": lambda c: parse_memory(c, RememberArgs), "forget_memory": lambda c: parse_memory(c, ForgetArgs),
    "recall": lambda c: parse_memory(c, RecallArgs),
}


def arguments_used(call: ToolCall) -> dict[str, Any] | str:
    """The call's arguments as Deputy acts on them: times in words resolved as the runner does
    (at NOW, in UTC); the resolver's question when it would ask the user instead."""
    operation = default_catalog().get(call.name)
    raw = call.parsed_arguments()
    if operation is None or not operation.time_arguments:
        return raw
    timed = resolve_arguments(operation, raw, NOW, "UTC", [])
    return timed.question if isinstance(timed, Unclear) else timed.arguments


def validate(call: ToolCall) -> str | None:
    """Why the call's arguments are invalid for its tool, or None when they validate."""
    operation = default_catalog().get(call.name)
    try:
        if operation is not None:
            used = arguments_used(call)
            if isinstance(used, str):
                return used
            operation.validate(used)
        elif call.name in _INTERNAL:
            _INTERNAL[call.name](call)
        else:
            return f"no tool named {call.name!r}"
    except (InvalidArguments, ToolArgumentError, ValueError) as exc:
        return str(exc)
    return None


def judge(case: Case, reply: ModelReply) -> tuple[bool, str]:
    """(passed, what happened) for the model's first action on `case`."""
    if not reply.tool_calls:
        answer = (reply.content or "").strip()
        ok = PLAIN in case.tools and all(m in answer.lower() for m in case.must)
        return ok, f"answered: {answer[:70]!r}"
    call = reply.tool_calls[0]
    if PLAIN in case.tools and call.name == "reply":
        return judge(case, ModelReply(content=call.parsed_arguments().get("text", "")))
    problem = validate(call)
    shown = f"{call.name}({call.arguments[:90]})"
    if problem is not None:
        return False, f"{shown}: invalid: {problem[:80]}"
    if call.name not in case.tools:
        return False, f"{shown}: expected {' or '.join(sorted(case.tools))}"
    used = arguments_used(call)
    written = f"{call.arguments} {json.dumps(used, ensure_ascii=False)}".lower()
    missing = [m for m in case.must if m not in written]
    if missing or (case.check is not None and not case.check(used if isinstance(used, dict) else {})):
        return False, f"{shown}: missing {', '.join(missing) or 'a required value'}"
    return True, shown


def new_goal(goal_text: str) -> Goal:
    return Goal(id="eval", user_id=1, chat_id=1, text=goal_text, created_at=NOW, updated_at=NOW,
                messages=[{"role": "user", "content": goal_text}])


def next_action(model: ChatModel, tools: list[dict[str, Any]], goal: Goal) -> ModelReply:
    """The model's next action on `goal`; an `update_plan` is answered "Plan saved." and skipped."""
    reply = ModelReply()
    for _ in range(3):
        reply = model.complete(build_messages(goal, NOW), tools)
        goal.messages.append(reply.as_message())
        planning = [c for c in reply.tool_calls if c.name == "update_plan"]
        if not planning or len(planning) < len(reply.tool_calls):
            return ModelReply(content=reply.content, tool_calls=[c for c in reply.tool_calls if c.name != "update_plan"],
                              usage=reply.usage)
        goal.messages.extend(tool_message(c.id, "Plan saved.") for c in planning)
    return reply


def attempt(model: ChatModel, tools: list[dict[str, Any]], item: Case) -> tuple[bool, bool, str]:
    """(passed first time, passed after the runner's error feedback, what happened).

    When the first action's arguments do not validate, the model gets the validation error
    back as the tool result, exactly as the runner would, and one more turn.
    """
    goal = new_goal(item.goal)
    reply = next_action(model, tools, goal)
    ok, note = judge(item, reply)
    if ok or not reply.tool_calls or validate(reply.tool_calls[0]) is None:
        return ok, ok, note
    call = reply.tool_calls[0]
    goal.messages.extend(
        tool_message(c.id, f"Error: {validate(c)}" if c is call else "Not run.") for c in reply.tool_calls)
    again, second = judge(item, next_action(model, tools, goal))
    return False, again, f"{note} | then: {second}"


def run(model: ChatModel, cases: list[Case] = CASES, out=sys.stdout) -> int:
    """Run every case, print one line each and the total; return the number passed."""
    tools = [*INTERNAL_TOOLS, *MEMORY_TOOLS, *default_catalog().tool_schemas()]
    first = corrected = 0
    for number, item in enumerate(cases, 1):
        started = time.monotonic()
        try:
            ok, fixed, note = attempt(model, tools, item)
        except ModelError as exc:
            ok, fixed, note = False, False, f"model error: {exc}"
        first, corrected = first + ok, corrected + fixed
        verdict = "PASS" if ok else "FIXED" if fixed else "FAIL"
        print(f"{number:>2}. {verdict:5} {time.monotonic() - started:5.1f}s  {item.goal[:58]:58}  {note}",
              file=out, flush=True)
    print(f"\nScore: {first}/{len(cases)} goals got the right tool with valid arguments at the first try; "
          f"{corrected}/{len(cases)} after the runner's error feedback (FIXED).", file=out, flush=True)
    return first


def main() -> None:
    settings = Settings()
    local = None
    if settings.openai_api_key is None and not settings.openai_base_url:
        local = ensure_local_model(settings.cache_path(), lambda line: print(line, flush=True),
                                   gguf=settings.local_gguf, threads=settings.local_threads)
        # Exactly the settings `deputy run` gives the worker for the local model.
        settings = Settings(**local.env())
    print(f"Model: {settings.model} at {settings.openai_base_url or 'OpenAI'}; tools per step: "
          f"{settings.max_tools or 'all'}; answers start with a tool call: {'yes' if settings.force_tool_call else 'no'}\n",
          flush=True)
    try:
        run(build_model(settings))
    finally:
        if local is not None:
            local.stop()


if __name__ == "__main__":
    main()
