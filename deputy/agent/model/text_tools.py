"""Tool calls for models that write them as text: the policy, as pure functions with no IO.

Small local models (Qwen2.5-Coder-1.5B on llama.cpp, for one) know they should call a tool
but write the call into the message. One runner turn with such a model is:

1. offer fewer tools when configured (`offered_tools`, see `deputy.agent.tool_selection`);
2. optionally (`force_tool_call`, for llama.cpp-style servers that continue a final
   assistant message) start the model's answer with `<tool_call>` (`request_messages`,
   `completed_reply`), so a small model acts through a tool (`reply` to talk) instead of
   chatting about what it would do. Measured on Qwen2.5-Coder-1.5B: the email goal went from
   1 of 4 tries to 4 of 4;
3. read the calls the model wrote as text (`read_reply`, `deputy.agent.model.tool_parsing`) and return them
   as ordinary `ToolCall`s (`reply_with_calls`);
4. when the text looked like a tool call but could not be read whole, ask once more with a
   short format reminder (`correction_message`), and if that fails too, answer the user with
   a question instead (`fallback_reply`): a half-read call is never returned, so it can never
   become an action.

`text_tools_turn` strings these together as a generator that yields model requests and
receives replies, so the same policy drives a blocking model (`deputy.agent.model.text_tools_model`) and an
asyncio one (`complete_async` below) without being written twice. Models that emit native
`tool_calls` pass through untouched (apart from the tool limit).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Generator
from typing import Any

from pydantic import BaseModel

from deputy.agent.model.call_grammar import PREFILL
from deputy.agent.model.chat_model import ModelReply, TokenUsage, ToolCall
from deputy.agent.model.tool_aliases import own_name, shown_messages, shown_names, shown_tools
from deputy.agent.model.tool_parsing import ParseResult, parse_tool_calls
from deputy.agent.model.first_decision import DECIDE_TOOL as DECIDE
from deputy.agent.model.first_decision import (
    Kind, connected_services, decision_request, kind_of, later_tools, read_kind, tools_for_kind,
)
from deputy.agent.asked_words import asks_for_draft, asks_to_answer, names_people
from deputy.agent.goal_shapes import OWN_TOOLS, first_step_tools
from deputy.agent.repeated_reads import repeated_tool
from deputy.agent.typed_recipients import NEW_EMAIL_TOOL, sent_back
from deputy.agent.tool_selection import ALWAYS, called, connected_fit, request_text, select_tools

log = logging.getLogger(__name__)

Message = dict[str, Any]
Tool = dict[str, Any]


CORRECTION = '(Format: {error}. Write {what} as valid JSON: {{"name": "<tool name>", "arguments": {{...}}}}.)'
"""The retry's extra user message: neutral on purpose, and the broken answer is not shown again.
Measured on Qwen2.5-Coder-1.5B: told "your last message could not be used" with its broken call
shown again, it gave up and apologised to the user in 3 of 3 tries (2 of 3 without the broken
call shown); with this reminder it wrote the whole call in 6 of 6."""

FALLBACK = (
    "Sorry, I got muddled working out the next step. Could you say again, in other words, what you'd like me to do?"
)
"""Ends with a question mark: the runner then waits for the user instead of ending the goal."""


class TextToolsOptions(BaseModel):
    """How much help the model needs. The defaults change nothing for a large hosted model.

    `max_tools=None` offers every tool; a small number such as 8 suits 1-3B models. `always`
    names the tools kept whatever the goal says. `force_tool_call` needs a server that
    continues a final assistant message (llama.cpp).
    """

    max_tools: int | None = None
    always: tuple[str, ...] = ALWAYS
    force_tool_call: bool = False
    decide_first: bool = False
    """Before a goal's first call, the model names the kind of help it needs in a small constrained choice
    (`deputy.agent.model.first_decision`), and the first step is offered that kind's tools. Needs `force_tool_call`."""


ModelRequest = tuple[list[Message], list[Tool]]
"""What to send to the model: (messages, tools)."""


# --- the steps, each a pure function ------------------------------------------------------
def offered_tools(tools: list[Tool], messages: list[Message], options: TextToolsOptions) -> list[Tool]:
    """The tools shown to the model for this turn (all of them unless `max_tools` is set)."""
    return select_tools(tools, messages, options.max_tools, options.always)


def request_messages(messages: list[Message], options: TextToolsOptions) -> list[Message]:
    """The transcript to send: with the `<tool_call>` opening appended when calls are forced (a small model,
    which also sees Deputy's misleading tool names aliased: `deputy.agent.model.tool_aliases`)."""
    if not options.force_tool_call:
        return messages
    return [*shown_messages(messages), {"role": "assistant", "content": PREFILL}]


def request_tools(offered: list[Tool], options: TextToolsOptions) -> list[Tool]:
    """The tools to send: aliased for a small model, as `request_messages`."""
    return shown_tools(offered) if options.force_tool_call else offered


def completed_reply(reply: ModelReply, options: TextToolsOptions) -> ModelReply:
    """The model's whole answer: a forced answer gets back the opening the server left out."""
    if not options.force_tool_call or reply.tool_calls:
        return reply  # not forced, or the server read the call itself
    # Servers return the continuation alone (llama.cpp) or with the prefix; make it whole.
    content = reply.content or ""
    whole = content if content.lstrip().startswith("<tool_call>") else PREFILL + content
    return reply.model_copy(update={"content": whole})


def read_reply(reply: ModelReply, tool_names: list[str]) -> ParseResult:
    """The calls written in the reply's text, by Deputy's own names; `failed` when one could not be read whole."""
    if reply.tool_calls or not reply.content:
        return ParseResult(text=reply.content or "")
    read = parse_tool_calls(reply.content, shown_names(tool_names))
    for call in read.calls:
        call.name = own_name(call.name)
    return read


def correction_message(read: ParseResult, options: TextToolsOptions) -> Message:
    """The short reminder sent with the retry (the broken answer itself is not shown again)."""
    what = "the whole tool call" if options.force_tool_call else "plain text for the user, or the whole tool call"
    return {"role": "user", "content": CORRECTION.format(error=read.error, what=what)}


def reply_with_calls(reply: ModelReply, read: ParseResult, usage: TokenUsage) -> ModelReply:
    """The reply as the runner wants it: calls read from text become `ToolCall`s."""
    if reply.tool_calls:
        own = [call.model_copy(update={"name": own_name(call.name)}) for call in reply.tool_calls]
        return reply.model_copy(update={"usage": usage, "tool_calls": own})
    if not read.calls:
        return reply.model_copy(update={"usage": usage})
    calls = [
        # Random like a provider's ids: the runner derives action ids from goal, step and call id.
        ToolCall(id=f"call_{secrets.token_hex(8)}", name=call.name, arguments=json.dumps(call.arguments))
        for call in read.calls
    ]
    return ModelReply(content=read.text or None, tool_calls=calls, usage=usage)


def fallback_reply(usage: TokenUsage) -> ModelReply:
    """What the user gets when the model wrote an unreadable call twice: a question, no action."""
    return ModelReply(content=FALLBACK, usage=usage)


def added_usage(first: TokenUsage, second: TokenUsage) -> TokenUsage:
    return TokenUsage(prompt_tokens=first.prompt_tokens + second.prompt_tokens,
                      completion_tokens=first.completion_tokens + second.completion_tokens)


def without_kind(message: Message) -> Message:
    """The message as a model may see it: the goal's kind is Deputy's own note."""
    return {k: v for k, v in message.items() if k != "kind"} if "kind" in message else message


def needs_first_decision(messages: list[Message], tools: list[Tool], options: TextToolsOptions) -> bool:
    """Ask for the kind first: enabled, the goal's first call (nothing called yet), a goal of no shape code
    already recognises, and more tools on offer than the limit."""
    if not (options.decide_first and options.force_tool_call) or called(messages):
        return False
    if options.max_tools is not None and len(tools) <= options.max_tools:
        return False
    return first_step_tools(request_text(messages)) is None


def decided_kind(decision: ModelReply) -> Kind | None:
    """The kind the choice named (None when its answer named none)."""
    read = read_reply(decision, [DECIDE])
    kind = next((k for k in (read_kind(c.name, json.dumps(c.arguments)) for c in read.calls) if k), None)
    log.info("first decision: %s", kind.name if kind else "none named; offering the usual tools")
    return kind


def first_step_offer(kind: Kind, tools: list[Tool], messages: list[Message], options: TextToolsOptions) -> list[Tool]:
    """The tools of the kind the model chose (empty when none of its tools is on offer)."""
    room = options.max_tools or len(tools)
    return tools_for_kind(kind, tools, OWN_TOOLS, connected_fit(tools, messages, room))


_ANSWERING = ("search_email", "reply_email")
"""What answering an email takes: finding it, then replying to its sender."""


def as_asked(offered: list[Tool], tools: list[Tool], messages: list[Message]) -> list[Tool]:
    """The offer without the tool the user's words rule out (`deputy.agent.asked_words`), on every step: a draft
    only when asked for, invitations only when someone is named, and an email the user asked to answer is
    replied to (the model wrote a new email to the user's own address instead). Never an empty offer."""
    words = request_text(messages)
    by_name = {tool["function"]["name"]: tool for tool in tools}
    unwanted = {"send_email" if asks_for_draft(words) else "draft_email"}
    if not names_people(words):
        unwanted.add("schedule_meeting")
    answering = asks_to_answer(words) and not asks_for_draft(words) and "reply_email" in by_name
    kept: list[Tool] = [by_name[n] for n in _ANSWERING if n in by_name] if answering else []
    kept += [tool for tool in offered if tool["function"]["name"] not in unwanted
             and not (answering and tool["function"]["name"] == "send_email")]
    unique = list({tool["function"]["name"]: tool for tool in kept}.values())  # in the order first offered
    return unique or offered


_KNOWN = "What you know about the user"


def known_about_user(messages: list[Message]) -> str:
    """The memories the goal's prompt shows (so "email my sister" is not a question when her address is known)."""
    for message in messages:
        content = message.get("content")
        if message.get("role") == "system" and isinstance(content, str) and _KNOWN in content:
            return content[content.index(_KNOWN):].split("\n\n", 1)[0]
    return ""


def without_repeated(offered: list[Tool], messages: list[Message]) -> list[Tool]:
    """The offer without a read the last call repeated to no purpose (`deputy.agent.repeated_reads`), so the model
    answers from the result it has or does something else; never an empty offer."""
    gone = repeated_tool(messages)
    kept = [tool for tool in offered if tool["function"]["name"] != gone]
    return kept or offered


def tool_names(tools: list[Tool]) -> list[str]:
    return [t["function"]["name"] for t in tools]


# --- one turn, as a generator that any model call can drive --------------------------------
def text_tools_turn(
    messages: list[Message], tools: list[Tool], options: TextToolsOptions
) -> Generator[ModelRequest, ModelReply, ModelReply]:
    """One runner turn: yields at most two model requests, receives their replies, returns the result.

    Drive it with `drive_sync` or `complete_async`; a `ModelError` from the model simply
    propagates from the driver (the runner retries those itself).
    """
    labelled, messages = messages, [without_kind(m) for m in messages]
    if not tools:
        return (yield messages, tools)  # no tools offered: text is just text
    offered = offered_tools(tools, messages, options)
    spent, chosen = TokenUsage(), None
    if needs_first_decision(messages, tools, options):
        services = connected_services(tool_names(tools), OWN_TOOLS)
        decision = completed_reply((yield decision_request(request_text(messages), known_about_user(messages),
                                                           services)), options)
        spent, chosen = decision.usage, decided_kind(decision)
        offered = (first_step_offer(chosen, tools, messages, options) if chosen else []) or offered
    elif options.decide_first and (earlier := kind_of(labelled)) is not None:
        room = options.max_tools or len(tools)
        offered = later_tools(earlier, tools, offered, OWN_TOOLS, connected_fit(tools, messages, room), room)
    if options.force_tool_call:  # a small model: the offer follows what the user's words rule out
        offered = as_asked(offered, tools, messages)
    offered = without_repeated(offered, messages)
    if NEW_EMAIL_TOOL not in tool_names(offered) and sent_back(messages) and not asks_for_draft(request_text(messages)):
        offered = [*offered, *(tool for tool in tools if tool["function"]["name"] == NEW_EMAIL_TOOL)]
    names = tool_names(tools)  # the runner knows every tool; the limit only shapes the prompt
    reply = completed_reply((yield request_messages(messages, options), request_tools(offered, options)), options)
    read = read_reply(reply, names)
    if not read.failed:
        return reply_with_calls(reply, read, added_usage(spent, reply.usage)).model_copy(
            update={"kind": chosen.name if chosen else None})
    log.info("model wrote an unreadable tool call (%s); asking once more", read.error)
    retry = [*messages, correction_message(read, options)]
    second = completed_reply((yield request_messages(retry, options), request_tools(offered, options)), options)
    usage = added_usage(spent, added_usage(reply.usage, second.usage))
    again = read_reply(second, names)
    if not again.failed:
        return reply_with_calls(second, again, usage).model_copy(update={"kind": chosen.name if chosen else None})
    log.warning("model wrote an unreadable tool call twice (%s); asking the user", again.error)
    return fallback_reply(usage)


def drive_sync(
    turn: Generator[ModelRequest, ModelReply, ModelReply], complete: Callable[[list[Message], list[Tool]], ModelReply]
) -> ModelReply:
    """Run a turn against a blocking `complete(messages, tools)`."""
    try:
        request = next(turn)
        while True:
            request = turn.send(complete(*request))
    except StopIteration as done:
        return done.value


async def complete_async(
    complete: Callable[[list[Message], list[Tool]], Awaitable[ModelReply]],
    messages: list[Message], tools: list[Tool], options: TextToolsOptions,
) -> ModelReply:
    """The same turn against an awaitable `complete(messages, tools)` (an asyncio model client)."""
    turn = text_tools_turn(messages, tools, options)
    try:
        request = next(turn)
        while True:
            request = turn.send(await complete(*request))
    except StopIteration as done:
        return done.value
