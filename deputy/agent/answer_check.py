"""The goal's answer checked before the user reads it: asked again once, then "I couldn't find that".

`deputy.agent.grounding` finds the specifics an answer states that nothing supports. Here that
finding becomes what happens: the first unbacked answer of a turn goes back to the model
with Deputy's fixed note (no model or outside words in it), the second is replaced by a
sentence written by code that names where Deputy looked. Both the `reply` tool and a plain
text answer pass through `check_answer`, so no form of answer skips it.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import datetime
from typing import Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel

from deputy.agent.goals import Goal
from deputy.agent.grounding import OWN_DATA, Claim, Evidence, unbacked_claims
from deputy.agent.origins import Origin, origin_of
from deputy.agent.said_nothing import contradicted, what_the_read_showed

log = logging.getLogger(__name__)

RECHECK_NOTE = (
    "(Deputy) Your answer states facts (names, numbers, times, addresses or quotes) that appear in nothing "
    "you read and nothing the user said. Answer again using only what the tool results show, quoting them, "
    "or say plainly that you could not find it. Do not guess."
)
"""Deputy's note to the model after an unbacked answer: fixed words, safe to give in the user role."""

RETRY_NOTE = (
    "(Deputy) Your last tool call failed, and its error says why. If the error names the fix (a calendar's "
    "real name, an id a search shows, a missing or wrong field), call the tool again with the fix now. "
    "Tell the user only what you cannot fix yourself, in plain words."
)
"""Deputy's note when the model gives up right after a recoverable error, before the user hears of it."""

CODE_RETRY_NOTE = (
    "(Deputy) Your code failed, and its errors are in the tool result above. Fix the code and call run_python "
    "again now. Tell the user only what you cannot fix yourself, in plain words."
)
"""Deputy's note when the model gives up right after its own code failed: a small model that wrote a syntax
error reads the traceback and writes working code far more often than it tells the user why it stopped."""

UNREAD_NOTE = (
    "(Deputy) Your answer says what the user's mail, calendar or orders hold, but you have read none of them in "
    "this goal. Call the tool that reads it now (search_email, list_events, the shop's orders) and answer from what "
    "it shows. Do not guess."
)
"""Deputy's note after an answer about the user's own data that rests on no read: read first, then answer."""

PERMISSION_NOTE = (
    "(Deputy) Do not ask the user for permission in text. If you know what to do, call the tool that does it "
    "now: Deputy shows the user a card to approve before anything consequential happens, and nothing happens "
    "without their tap. Ask the user only for a detail you are missing."
)
"""Deputy's note when the model asks "shall I go ahead?" in words: the user would answer "yes" into a new message
and nothing would happen, while the card is where a yes does something (and where the guard looks first)."""

# A yes/no question asking leave to act, in the languages Deputy speaks: the last question of the answer starts
# with it. Questions for a missing detail ("Which restaurant would you like me to book?") start otherwise.
_PERMISSION = re.compile(
    r"^(?:(?:ok(?:ay)?|so|great|alright|perfect|sure)[,!.]?\s+)?(?:shall i|should i|would you like me to|do you want "
    r"me to|want me to|may i|can i (?:go ahead|proceed)|is it ok(?:ay)? (?:if|to|for me to)|ready (?:for me )?to|"
    r"(?:would|do) you (?:like|want) (?:me )?to (?:proceed|go ahead|continue|confirm)|proceed|go ahead|confirm|"
    r"soll ich|möchtest du,? dass ich|möchten sie,? dass ich|sollen wir|"
    r"¿?(?:quieres|quiere|deseas|desea) que (?:lo |la |te |le )?|¿?procedo|¿?lo (?:compro|reservo|envío|pido)|"
    r"(?:veux|voulez)-(?:tu|vous) que je|dois-je|je (?:le |la )?(?:réserve|commande|envoie|achète)|"
    r"vuoi che|devo procedere|procedo|quer que eu|posso prosseguir|zal ik|wil je dat ik)\b",
    re.IGNORECASE)
_QUESTION = re.compile(r"[^.!?\n]*\?")

# A failed call the model can fix itself: its arguments were wrong (Deputy's own checks say how), or
# the service's error points at what exists instead. Refusals (the guard, the plan, a watch that
# cannot be set up, an address that leads somewhere private) are answers for the user, not errors to fix.
_FIXABLE_ERROR = re.compile(r"^Error: (?:Invalid arguments|there is no tool named|The arguments were not a JSON)")
_FIXABLE_FAILURE = re.compile(
    r"^Failed: .*\b(?:there is no|no such|not found|unknown|does not exist|doesn't exist|did you mean|"
    r"your calendars|available|the ids)\b", re.IGNORECASE | re.DOTALL)
# Code the model wrote that raised (a syntax error, a wrong column name): the traceback says what to fix.
# A run stopped by its limits (time, memory) is not: the same code would be stopped again.
# Its report comes labelled as outside content when it ran over the user's files.
_CODE_FAILED = re.compile(r"^(?:<untrusted [^>\n]*>\n)?The code failed \(exit code")

# Tools that only keep the goal's own books: their results are Deputy's words, not something read.
_BOOKKEEPING = frozenset({"update_plan", "reply", "schedule_check", "remind_me", "no_news", "split_into_subgoals", "remember",
                          "forget_memory"})

# Calls that only look (their names say so): asking leave after them is still asking before acting.
_READS = re.compile(r"(?:^|[._])(?:search|list|read|recall|get|find|look|check|free_busy|open_page|screenshot)",
                    re.IGNORECASE)

# Where each kind of read looked, for the sentence that replaces an answer with nothing behind it.
_PLACES = (
    (("email", "mail", "inbox", "message"), "your mail"),
    (("event", "calendar", "free_busy", "busy"), "your calendar"),
    (("recall", "memor"), "what you asked me to remember"),
    (("order", "shop", "product", "cart"), "your orders and the shop"),
    (("restaurant", "table", "booking", "ticket"), "the bookings"),
    (("page", "web", "search", "screenshot"), "the pages I read"),
)


ECHO_NOTE = (
    "(Deputy) That answer repeats one of Deputy's notes to you; the user never sees those notes. Answer the "
    "user's own request now from what the tool results show, or say plainly that you could not find it."
)
"""Deputy's note when the model hands one of Deputy's own notes to the user as its answer."""

NOTHING_NOTE = (
    "(Deputy) Your answer says there is nothing on the calendar then, but the calendar you read lists events or "
    "busy times for it. Answer again from that result: say what is on."
)
"""Deputy's note when the model says "nothing" over a calendar read that lists something."""

_NOTE_MARKS = ("(Deputy)", "Not delivered.")
"""How Deputy's notes to the model begin: its own notes, and the reply tool's answer to a reply sent back."""


class AnswerVerdict(BaseModel):
    """What to do with an answer: deliver it, ask the model again, or deliver Deputy's replacement."""

    action: Literal["deliver", "recheck", "replace"]
    text: str
    note: str = RECHECK_NOTE
    claims: list[Claim] = []


def evidence_for(goal: Goal, memories: list[str] | None, zone: str, now: float) -> Evidence:
    """What the goal's answer may rest on: the user's words, everything read, memories and Deputy's lines.

    Results of Deputy's own bookkeeping tools (a plan saved, a check scheduled) are Deputy's
    lines, not reads: a goal that made only those answers from general knowledge.
    """
    reads = [item.text for item in goal.untrusted]
    known = [*(memories or []), *goal.summary, *goal.confirmations, _today(now, zone)]
    own_calls = {call_id for call_id, name in _calls(goal) if name in _BOOKKEEPING}
    arguments = _call_arguments(goal)
    for message in goal.messages:
        content = message.get("content")
        if not isinstance(content, str):
            continue
        origin = origin_of(message)
        if message.get("role") == "tool" and message.get("tool_call_id") in own_calls:
            known.append(content)
        elif message.get("role") == "tool":
            reads.append(without_echo(content, arguments.get(message.get("tool_call_id", ""), [])))
        elif origin is Origin.outside:
            reads.append(content)
        elif origin is Origin.deputy:
            known.append(content)
    looked_up = any(name not in _BOOKKEEPING for _, name in _calls(goal))
    return Evidence(user_words=goal.user_words(), reads=reads, known=known, looked_up=looked_up, zone=zone)


def without_echo(result: str, said: list[str]) -> str:
    """A tool result without the model's own arguments quoted back in it ("No emails match your search
    (from 'John Doe')"): what the model asked for is not something that was read."""
    for value in sorted(said, key=len, reverse=True):
        for quoted in (f"'{value}'", f'"{value}"', f"“{value}”", f"‘{value}’", repr(value)):
            result = result.replace(quoted, "''")
    return result


def _call_arguments(goal: Goal) -> dict[str, list[str]]:
    """The string values of each call's arguments, by call id."""
    found: dict[str, list[str]] = {}
    for message in goal.messages:
        for call in message.get("tool_calls") or []:
            if not isinstance(call, dict):
                continue
            try:
                parsed = json.loads(call.get("function", {}).get("arguments") or "{}")
            except ValueError:
                continue
            found[call.get("id", "")] = [v for v in _strings(parsed) if len(v) >= 2]
    return found


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _calls(goal: Goal) -> list[tuple[str, str]]:
    """(id, tool name) of every call the model made in the goal's transcript."""
    return [(call.get("id", ""), call.get("function", {}).get("name", "")) for message in goal.messages
            for call in message.get("tool_calls") or [] if isinstance(call, dict)]


def check_answer(goal: Goal, text: str, evidence: Evidence) -> AnswerVerdict:
    """Deliver a backed answer; send an answer back once per turn, then deliver or replace it.

    An answer that gives up right after a recoverable error (a failed call the error explains)
    goes back once with `RETRY_NOTE`; an unbacked one goes back with `RECHECK_NOTE`, and is
    replaced by `couldnt_find` if the model insists. The goal's `answer_rechecked` mark allows
    one send-back per turn and is cleared when an answer is delivered.
    """
    if _repeats_a_note(goal, text):
        # A small model stuck in a loop copies the last thing it read, and that was Deputy talking to it.
        if goal.answer_rechecked:
            goal.answer_rechecked = False
            return AnswerVerdict(action="replace", text=couldnt_find(goal))
        goal.answer_rechecked = True
        return AnswerVerdict(action="recheck", text=text, note=ECHO_NOTE)
    entries = contradicted(goal, text)
    if entries:
        if goal.answer_rechecked:
            goal.answer_rechecked = False
            return AnswerVerdict(action="replace", text=what_the_read_showed(entries))
        goal.answer_rechecked = True
        return AnswerVerdict(action="recheck", text=text, note=NOTHING_NOTE)
    failed = None if goal.answer_rechecked else _gives_up_after_error(goal, text)
    if failed is not None:
        goal.answer_rechecked = True
        return AnswerVerdict(action="recheck", text=text, note=CODE_RETRY_NOTE if failed == "code" else RETRY_NOTE)
    if not goal.answer_rechecked and asks_permission(text) and not _acted_since_user(goal):
        goal.answer_rechecked = True
        return AnswerVerdict(action="recheck", text=text, note=PERMISSION_NOTE)
    claims = unbacked_claims(text, evidence)
    if not claims:
        goal.answer_rechecked = False
        return AnswerVerdict(action="deliver", text=text)
    log.info("goal %s: answer with %d unbacked claim(s) (%s)", goal.id, len(claims),
             ", ".join(claim.kind for claim in claims))
    unread = [claim for claim in claims if claim.kind == OWN_DATA]
    if not goal.answer_rechecked:
        goal.answer_rechecked = True
        return AnswerVerdict(action="recheck", text=text, claims=claims, note=UNREAD_NOTE if unread else RECHECK_NOTE)
    goal.answer_rechecked = False
    replacement = couldnt_check(unread) if unread and len(unread) == len(claims) else couldnt_find(goal)
    return AnswerVerdict(action="replace", text=replacement, claims=claims)


def _repeats_a_note(goal: Goal, text: str) -> bool:
    """The answer is, or holds a long stretch of, a note Deputy wrote to the model in this goal."""
    answer = _plain(text)
    if len(answer) < 24:
        return False
    for message in goal.messages:
        content = message.get("content")
        mark = next((mark for mark in _NOTE_MARKS if isinstance(content, str) and content.lstrip().startswith(mark)), None)
        if mark is None or origin_of(message) is Origin.user:
            continue
        note = _plain(content.lstrip()[len(mark):])
        if answer in note or note[:80] in answer:
            return True
    return False


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def asks_permission(text: str) -> bool:
    """The answer ends by asking leave to act (a yes/no question), rather than for a missing detail."""
    questions = _QUESTION.findall(text)
    return bool(questions) and bool(_PERMISSION.match(questions[-1].strip().lstrip("¿").strip()))


def _acted_since_user(goal: Goal) -> bool:
    """A call other than a read or Deputy's bookkeeping was made since the user last wrote (a card shown, an
    action run or declined): a question after that is about what comes next, not leave for the first step."""
    for message in reversed(goal.messages):
        if origin_of(message) is Origin.user and message.get("role") == "user":
            return False
        for call in message.get("tool_calls") or []:
            name = call.get("function", {}).get("name", "") if isinstance(call, dict) else ""
            if name and name not in _BOOKKEEPING and not _READS.search(name):
                return True
    return False


def _gives_up_after_error(goal: Goal, text: str) -> Literal["call", "code"] | None:
    """Which fixable failure the model answers the user right after ("call": a call's arguments or target,
    "code": its own code), without asking them anything; None when it does not."""
    if text.rstrip().endswith("?"):
        return None  # asking the user what is missing is the right answer to some errors
    for message in reversed(goal.messages):
        if message.get("role") == "tool":
            content = message.get("content")
            if not isinstance(content, str):
                return None
            said = content.lstrip()
            if _CODE_FAILED.match(said):
                return "code"
            return "call" if _FIXABLE_ERROR.match(said) or _FIXABLE_FAILURE.match(said) else None
        if origin_of(message) is Origin.user:
            return None
    return None


_MAIL_WORDS = re.compile(r"mail|messag|repl|nachricht|correo|mensaj|courriel|messagg|mensage|bericht|geantw|zurückg|"
                         r"respond|contest|répond|rispos|inbox|postfach|posteingang|bandeja|caixa|written back|wrote back",
                         re.IGNORECASE)
_ORDER_WORDS = re.compile(r"order|bestell|pedido|commande|ordini", re.IGNORECASE)


def couldnt_check(claims: list[Claim]) -> str:
    """Deputy's own answer when the model insists on saying what the user's data holds without reading it."""
    places = []
    for claim in claims:
        place = ("your mail" if _MAIL_WORDS.search(claim.text) else "your orders" if _ORDER_WORDS.search(claim.text)
                 else "your calendar")
        if place not in places:
            places.append(place)
    return f"I didn't get to check {_joined(places)} for this, so I won't guess. Ask me again and I'll look."


def couldnt_find(goal: Goal) -> str:
    """Deputy's own answer when the model's rests on nothing: where it looked, and no guess."""
    places = _places_read(goal)
    if not places:
        return "I couldn't find that in anything I can check, so I won't guess."
    return f"I couldn't find that in {_joined(places)}, so I won't guess."


def _places_read(goal: Goal) -> list[str]:
    called = [name for _, name in _calls(goal)]
    places: list[str] = []
    for name in called:
        # The first kind a tool's name fits is where it looked ("search_email" is mail, not the web).
        place = next((place for words, place in _PLACES if any(word in name.lower() for word in words)), None)
        if place is not None and place not in places:
            places.append(place)
    return places


def _joined(places: list[str]) -> str:
    return places[0] if len(places) == 1 else ", ".join(places[:-1]) + " or " + places[-1]


def _today(now: float, zone: str) -> str:
    try:
        local = datetime.fromtimestamp(now, tz=ZoneInfo(zone))
    except Exception:  # noqa: BLE001 - an unknown zone reads as UTC
        local = datetime.fromtimestamp(now, tz=ZoneInfo("UTC"))
    return local.strftime("%A %d %B %Y %Y-%m-%d")
