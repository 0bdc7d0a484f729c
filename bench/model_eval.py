"""How well the configured model does everyday goals: 60 of them in categories, scored by what the user would see.

    python -m bench.model_eval [--category NAME] [--set fresh]

Uses the model Deputy would use, built by the worker's own `build_model`: `OPENAI_BASE_URL` /
`OPENAI_API_KEY` / `DEPUTY_MODEL` (and `DEPUTY_MAX_TOOLS`, `DEPUTY_FORCE_TOOL_CALL`) when set,
otherwise the local model (`deputy.local_model.model`, built and fetched on first use) with the
settings `deputy run` gives it. Each goal gets the runner's own system prompt and the full
tool set, as a worker would send it. A goal passes when the model's
first action is one of the expected tools and its arguments validate against the catalog
(`deputy.connectors.default`) or the agent's own tools and carry the key value (the address, the
date); `update_plan` first is allowed (answered "Plan saved.", as the runner would). Goals
that need no tool pass with a plain answer (or a `reply`) that contains the answer.

Dates and times are judged as the card shows them: the model passes the user's words and
Deputy's resolver turns them into an instant in the user's zone (some cases are users in
New York, Berlin or Tokyo), which must be the right one. Some users have memories (what
`remember` stored), which a goal may need ("email my sister"). Goals missing a recipient,
an amount or a date pass only when Deputy asks (a `reply` that asks, or a look-up in mail or
memory), never with a made-up value. Each category's score and the time per goal are printed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from deputy.agent.goal_provenance import invented_values, question_about
from deputy.agent.goals import Goal
from deputy.agent.memory_tools import MEMORY_TOOLS, ForgetArgs, RecallArgs, RememberArgs
from deputy.agent.memory_tools import parse as parse_memory
from deputy.agent.model.chat_model import ChatModel, ModelError, ModelReply, ToolCall
from deputy.agent.prompt import build_messages, tool_message
from deputy.agent.search_filters import unasked_filters_dropped
from deputy.agent.time.time_arguments import invented_time, resolve_arguments
from deputy.agent.time.time_words import Unclear
from deputy.agent.tools import INTERNAL_TOOLS, ToolArgumentError, parse_plan, parse_reply, parse_schedule
from deputy.agent.workspace_tools import WORKSPACE_TOOLS
from deputy.core.accounts.user_settings import UserSettings
from deputy.connectors.catalog import InvalidArguments
from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.sentinel.provenance import ProvenanceContext
from deputy.connectors.default import default_catalog
from deputy.local_model.model import ensure_local_model
from deputy.settings import Settings
from deputy.apps.agent_worker import build_model

NOW = 1_795_953_600.0  # Sunday 29 November 2026, 12:00 UTC: fixed, so date answers can be checked
PLAIN = "(answer)"


ASK = "(ask)"
"""A goal that lacks what it needs: right is a question to the user or a look-up, never a guess."""


@dataclass(frozen=True)
class Case:
    """A goal, the tools that are a right first action, and what the arguments must contain."""

    goal: str
    tools: frozenset[str]
    must: tuple[str, ...] = ()  # lower-cased substrings of the arguments' JSON (or the answer)
    check: Callable[[dict[str, Any]], bool] | None = field(default=None, compare=False)
    category: str = "email"
    zone: str = "UTC"
    memories: tuple[str, ...] = ()


def case(goal: str, tools: str, *must: str, check: Callable[[dict[str, Any]], bool] | None = None,
         category: str = "email", zone: str = "UTC", memories: tuple[str, ...] = ()) -> Case:
    return Case(goal, frozenset(tools.split()), tuple(m.lower() for m in must), check, category, zone, memories)


def starts(prefix: str) -> Callable[[dict[str, Any]], bool]:
    """The resolved start is this local date and time (ISO, with the zone's offset)."""
    return lambda arguments: str(arguments.get("start", "")).startswith(prefix)


SISTER = ("My sister Anna's email is anna.berg@example.org",)
DIET = ("I am vegetarian", "I am allergic to peanuts")
MEAT_OR_PEANUTS = ("peanut", "chicken", "beef", "pork", "bacon", "steak", "lamb", "salmon", "tuna", "fish", "shrimp")
CASES = [
    # -- email: who and what, as the card shows them
    case("Email alice@example.org that I'm running late", "send_email", "alice@example.org", "late"),
    case("Send an email to bob@example.com saying the report is ready", "send_email", "bob@example.com", "report"),
    case("Write to sam@example.net and ask whether Friday still works for dinner", "send_email", "sam@example.net"),
    case("Draft an email to carol@example.org about moving our call to Tuesday, but don't send it yet",
         "draft_email", "carol@example.org"),
    case("email dan@example.com: the boiler is fixed and the invoice is on its way", "send_email",
         "dan@example.com", "boiler"),
    case("Tell eve@example.org by email that the meeting notes are attached", "send_email", "eve@example.org",
         "notes"),
    case("Reply to the last email from frank@example.com saying thanks", "search_email reply_email read_email",
         "frank@example.com"),
    case("Send a thank-you note to grace@example.net for the lovely dinner", "send_email", "grace@example.net",
         "dinner"),
    case("Email my sister that I land at 6pm", "send_email", "anna.berg@example.org", memories=SISTER,
         category="memory"),
    case("Let heidi@example.com know by email that the parcel arrived", "send_email", "heidi@example.com",
         "parcel"),
    case("Write to liam@example.com that the keys are under the mat", "send_email", "liam@example.com", "keys"),
    # -- calendar: the user's words for the day and time, resolved in their zone
    case("Put lunch with Sam on my calendar on 2 December 2026 at 12:30", "create_event schedule_meeting",
         "lunch", check=starts("2026-12-02T12:30"), category="calendar"),
    case("Add a dentist appointment to my calendar on 3 December 2026 at 9:00", "create_event", "dentist",
         check=starts("2026-12-03T09:00"), category="calendar"),
    case("Add a dentist appointment tomorrow at 9am", "create_event", "dentist",
         check=starts("2026-11-30T09:00-05:00"), category="calendar", zone="America/New_York"),
    case("Put 'call mum' on my calendar on Saturday at 18:00", "create_event", "mum",
         check=starts("2026-12-05T18:00+01:00"), category="calendar", zone="Europe/Berlin"),
    case("Block Thursday at 14:00 for the plumber", "create_event", "plumber",
         check=starts("2026-12-03T14:00+09:00"), category="calendar", zone="Asia/Tokyo"),
    case("Add yoga next Tuesday at 7:30 in the morning", "create_event", "yoga",
         check=starts("2026-12-01T07:30"), category="calendar"),
    case("Remind me with a calendar entry on the 15th at 10am to renew my passport", "create_event", "passport",
         check=starts("2026-12-15T10:00+01:00"), category="calendar", zone="Europe/Berlin"),
    case("What's on my calendar this week?", "list_events", category="calendar"),
    case("When am I free on Tuesday afternoon?", "free_busy list_events", category="calendar"),
    case("Schedule a meeting with erin@example.org on 7 December 2026 at 10:00 about the budget",
         "schedule_meeting", "erin@example.org", check=starts("2026-12-07T10:00"), category="calendar"),
    case("Move my dentist appointment to Friday at 11", "move_event list_events", "dentist", category="calendar"),
    case("Cancel tomorrow's team lunch", "cancel_event list_events", category="calendar"),
    # -- questions: the answer itself
    case("What is the capital of France?", PLAIN, "paris", category="question"),
    case("How many days are there in a leap year?", PLAIN, "366", category="question"),
    case("What is 15% of 80?", PLAIN, "12", category="question"),
    case("How many minutes are in three hours?", PLAIN, "180", category="question"),
    case("Which planet is closest to the sun?", PLAIN, "mercury", category="question"),
    case("Translate 'good morning' into Spanish", PLAIN, "buenos", category="question"),
    case("What is the chemical symbol for gold?", PLAIN, "au", category="question"),
    case("Spell 'necessary' backwards", PLAIN, "yrassecen", category="question"),
    # -- memory: what to keep, what to forget, and using it
    case("Remember that I'm vegetarian", "remember", "vegetarian", category="memory"),
    case("Please remember that my favourite airline is KLM", "remember", "klm", category="memory"),
    case("Forget that I'm vegetarian", "forget_memory", "vegetarian", category="memory"),
    case("What do you remember about my diet?", "recall", category="memory"),
    case("Remember that my partner's birthday is 12 March", "remember", "12 march", category="memory"),
    case("Suggest a dinner I could cook tonight", PLAIN, check=lambda a: not any(
        word in str(a.get("answer", "")).lower() for word in MEAT_OR_PEANUTS), category="memory", memories=DIET),
    case("Send my sister the address of the venue: 5 Elm Street", "send_email", "anna.berg@example.org",
         "elm street", memories=SISTER, category="memory"),
    # -- asking instead of inventing
    case("Email my plumber that the sink is leaking again", ASK, category="ask"),
    case("Book a table for dinner", ASK, category="ask"),
    case("Send the invoice to the client", ASK, category="ask"),
    case("Schedule the review meeting", ASK, category="ask"),
    case("Pay the electricity bill", ASK, category="ask"),
    case("Tell my landlord the heating is broken", ASK, category="ask"),
    case("Put the appointment in my calendar", ASK, category="ask"),
    case("Email the team about the offsite", ASK, category="ask"),
    # -- several steps: the right first step
    case("Do I have any unread emails?", "search_email", category="steps"),
    case("Find the emails from dave@example.com", "search_email", "dave@example.com", category="steps"),
    case("Did Bob send me the invoice? Check my mail", "search_email", category="steps"),
    case("Find the email from ivan@example.com about the lease and forward it to judy@example.org",
         "search_email", "ivan@example.com", category="steps"),
    case("Look at my calendar for Friday and email the agenda to kim@example.com", "list_events", category="steps"),
    case("Check every day whether flights to Lisbon drop below $400, and tell me when they do", "schedule_check",
         "lisbon", check=lambda a: a.get("every_minutes") is not None or bool(a.get("daily_at")), category="steps"),
    case("Read my latest email from the bank and tell me what it says", "search_email", "bank", category="steps"),
    # -- the web and bookings
    case("Open https://example.com and tell me what it says", "open_page", "example.com", category="web"),
    case("Search the web for the opening hours of the Louvre", "search_web", "louvre", category="web"),
    case("Take a screenshot of https://example.org", "screenshot", "example.org", category="web"),
    case("Book a table for two at https://trattoria.example/book for Saturday at 8pm", "open_page",
         "trattoria.example", category="web"),
    case("Find a train from Berlin to Hamburg tomorrow morning", "search_web", "hamburg", category="web"),
    case("Check https://tickets.example/concert for seats on 12 December", "open_page", "tickets.example",
         category="web"),
    case("Look up the weather in Lisbon this weekend", "search_web", "lisbon", category="web"),
]

_INTERNAL: dict[str, Callable[[ToolCall], Any]] = {
    "reply": parse_reply, "update_plan": parse_plan, "schedule_check": parse_schedule,
    "remember": lambda c: parse_memory(c, RememberArgs), "forget_memory": lambda c: parse_memory(c, ForgetArgs),
    "recall": lambda c: parse_memory(c, RecallArgs),
}


def arguments_used(call: ToolCall, zone: str = "UTC", words: tuple[str, ...] = ()) -> dict[str, Any] | str:
    """The call's arguments as Deputy acts on them: times resolved as the runner does (at NOW, in the
    user's zone, the user's own words for the time winning over the model's arithmetic); the
    resolver's question when it would ask the user instead."""
    operation = default_catalog().get(call.name)
    raw = call.parsed_arguments()
    if operation is None:
        return raw
    raw = unasked_filters_dropped(operation, raw, list(words))
    if not operation.time_arguments:
        return raw
    timed = resolve_arguments(operation, raw, NOW, zone, list(words))
    return timed.question if isinstance(timed, Unclear) else timed.arguments


def validate(call: ToolCall, zone: str = "UTC", words: tuple[str, ...] = ()) -> str | None:
    """Why the call's arguments are invalid for its tool, or None when they validate."""
    operation = default_catalog().get(call.name)
    try:
        if operation is not None:
            used = arguments_used(call, zone, words)
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


_LOOK_UPS = {"search_email", "recall", "list_events", "read_email"}


def deputy_asks(case: Case, call: ToolCall) -> str | None:
    """What Deputy's own code asks the user before any card, as the runner does (`deputy.agent.action_requests`):
    a recipient or amount found nowhere in the user's words or memories, or a time the user never gave.
    None when the action would go to the guard as it is."""
    operation = default_catalog().get(call.name)
    if operation is None or operation.spec.effect is EffectClass.read:
        return None
    known = [case.goal, *case.memories]
    raw = call.parsed_arguments()
    if invented_time(operation, raw, known):
        return "When should it be? (no day or time was given)"
    used = arguments_used(call, case.zone, (case.goal,))
    if isinstance(used, str):
        return used
    try:
        args = operation.validate(used)
    except (InvalidArguments, ValueError):
        return None
    money = operation.amount(args) if operation.amount is not None else None
    action = Action(id="a_eval", goal_id="eval", user_id=1, chat_id=1, connector=operation.spec.connector,
                    operation=operation.spec.operation, effect=operation.spec.effect,
                    tags=sorted(operation.spec.tags), arguments=args.model_dump(mode="json"),
                    targets=operation.targets(args), amount=money[0] if money else None,
                    currency=money[1] if money else None, tool_call_id=call.id, created_at=NOW)
    invented = invented_values(action, ProvenanceContext(trusted_texts=known, user_words=[case.goal]))
    return question_about(invented) if invented else None


def _asks(case: Case, reply: ModelReply) -> tuple[bool, str]:
    """A goal missing what it needs: a question to the user or a look-up passes, whether the model asks or
    Deputy's code asks instead of carrying out the model's guess; a guess that would reach a card fails."""
    if not reply.tool_calls:
        answer = (reply.content or "").strip()
        return "?" in answer, f"answered: {answer[:70]!r}"
    call = reply.tool_calls[0]
    if call.name == "reply":
        said = str(call.parsed_arguments().get("text", ""))
        return "?" in said, f"reply({said[:70]!r})"
    if call.name in _LOOK_UPS:
        return True, f"{call.name}({call.arguments[:90]})"
    question = deputy_asks(case, call)
    shown = f"{call.name}({call.arguments[:60]})"
    if question is not None:
        return True, f"{shown}: Deputy asks: {question[:60]}"
    return False, f"{shown}: guessed instead of asking"


def judge(case: Case, reply: ModelReply) -> tuple[bool, str]:
    """(passed, what happened) for the model's first action on `case`."""
    if ASK in case.tools:
        return _asks(case, reply)
    if not reply.tool_calls:
        answer = (reply.content or "").strip()
        ok = PLAIN in case.tools and all(m in answer.lower() for m in case.must)
        ok = ok and (case.check is None or case.check({"answer": answer}))
        return ok, f"answered: {answer[:70]!r}"
    call = reply.tool_calls[0]
    if PLAIN in case.tools and call.name == "reply":
        return judge(case, ModelReply(content=call.parsed_arguments().get("text", "")))
    problem = validate(call, case.zone, (case.goal,))
    shown = f"{call.name}({call.arguments[:90]})"
    if problem is not None:
        return False, f"{shown}: invalid: {problem[:80]}"
    if call.name not in case.tools:
        return False, f"{shown}: expected {' or '.join(sorted(case.tools))}"
    asked = deputy_asks(case, call)
    if asked is not None:
        return False, f"{shown}: Deputy asks instead of showing a card: {asked[:60]}"
    used = arguments_used(call, case.zone, (case.goal,))
    written = f"{call.arguments} {json.dumps(used, ensure_ascii=False)}".lower()
    missing = [m for m in case.must if m not in written]
    if missing or (case.check is not None and not case.check(used if isinstance(used, dict) else {})):
        shown_used = f" -> start {used.get('start')}" if isinstance(used, dict) and "start" in used else ""
        return False, f"{shown}{shown_used}: missing {', '.join(missing) or 'a required value'}"
    return True, shown


def new_goal(goal_text: str) -> Goal:
    return Goal(id="eval", user_id=1, chat_id=1, text=goal_text, created_at=NOW, updated_at=NOW,
                messages=[{"role": "user", "content": goal_text}])


def next_action(model: ChatModel, tools: list[dict[str, Any]], goal: Goal, item: Case | None = None) -> ModelReply:
    """The model's next action on `goal`; an `update_plan` is answered "Plan saved." and skipped."""
    settings = UserSettings(timezone=item.zone) if item is not None else None
    memories = list(item.memories) if item is not None else None
    reply = ModelReply()
    for _ in range(3):
        reply = model.complete(build_messages(goal, NOW, settings, memories), tools)
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
    reply = next_action(model, tools, goal, item)
    ok, note = judge(item, reply)
    if ok or not reply.tool_calls or validate(reply.tool_calls[0], item.zone, (item.goal,)) is None:
        return ok, ok, note
    call = reply.tool_calls[0]
    goal.messages.extend(
        tool_message(c.id, f"Error: {validate(c, item.zone, (item.goal,))}" if c is call else "Not run.")
        for c in reply.tool_calls)
    again, second = judge(item, next_action(model, tools, goal, item))
    return False, again, f"{note} | then: {second}"


CATEGORIES = ("email", "calendar", "question", "memory", "ask", "steps", "web")


def run(model: ChatModel, cases: list[Case] = CASES, out=sys.stdout) -> int:
    """Run every case, print one line each, a table per category and the total; return the number passed."""
    tools = [*INTERNAL_TOOLS, *MEMORY_TOOLS, *WORKSPACE_TOOLS, *default_catalog().tool_schemas()]
    first = corrected = 0
    per: dict[str, list[tuple[bool, bool, float]]] = {}
    for number, item in enumerate(cases, 1):
        started = time.monotonic()
        try:
            ok, fixed, note = attempt(model, tools, item)
        except ModelError as exc:
            ok, fixed, note = False, False, f"model error: {exc}"
        took = time.monotonic() - started
        first, corrected = first + ok, corrected + fixed
        per.setdefault(item.category, []).append((ok, fixed, took))
        verdict = "PASS" if ok else "FIXED" if fixed else "FAIL"
        print(f"{number:>2}. {verdict:5} {took:5.1f}s  {item.category:8} {item.goal[:54]:54}  {note}",
              file=out, flush=True)
    print("\ncategory   goals  right first time  after error feedback  median s per goal", file=out)
    for category in sorted(per, key=lambda c: CATEGORIES.index(c) if c in CATEGORIES else 99):
        rows = per[category]
        times = sorted(t for _, _, t in rows)
        print(f"{category:10} {len(rows):5}  {sum(r[0] for r in rows):>16}  {sum(r[1] for r in rows):>20}  "
              f"{times[len(times) // 2]:17.1f}", file=out)
    print(f"\nScore: {first}/{len(cases)} goals right at the first try; "
          f"{corrected}/{len(cases)} after the runner's error feedback (FIXED).", file=out, flush=True)
    return first


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.model_eval", description=__doc__.splitlines()[0])
    parser.add_argument("--category", choices=CATEGORIES, help="only the goals of this category")
    parser.add_argument("--set", choices=("main", "fresh"), default="main",
                        help="the 60 goals (main) or 20 goals written after the goal shapes were built (fresh)")
    args = parser.parse_args()
    if args.set == "fresh":
        from bench.model_eval_fresh import FRESH
        cases = FRESH
    else:
        cases = CASES
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
        run(build_model(settings), [c for c in cases if args.category in (None, c.category)])
    finally:
        if local is not None:
            local.stop()


if __name__ == "__main__":
    main()
