"""Tool calls written as text, for models that do not emit native `tool_calls`.

Small local models (Qwen2.5-Coder-1.5B on llama.cpp, for one) know they should call a tool
but write the call into the message: inside `<tool_call>` tags, as a fenced JSON block, or as
bare JSON, with a few spellings of the keys. `parse_tool_calls` finds every such call and
returns them with the prose around them. Anything that *looks* like an attempted call but
cannot be read whole (truncated JSON, arguments that are not an object, an unclosed tag) makes
the whole reply a parse failure: a half-read call is never turned into an action.

Pure functions only; the retry-and-fallback policy lives in `deputy.agent.model.text_tools`.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection
from typing import Any

from pydantic import BaseModel, Field

_NAME_KEYS = ("name", "tool", "tool_name", "function", "function_name", "action")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input", "params", "action_input")
_TAG = re.compile(r"<(tool_call|function_call)>(.*?)(?:</\1>|\Z)", re.DOTALL)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
# Text that shows the model was trying to call a tool: `"name": "send_email"` and the like.
_ATTEMPT = re.compile(r'["\']?(?:{})["\']?\s*:\s*["\']'.format("|".join(_NAME_KEYS + ("tool_calls",))))


class ParsedCall(BaseModel):
    """One tool call read from text: a name and its arguments (always a JSON object)."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ParseResult(BaseModel):
    """What `parse_tool_calls` found.

    `error` is set when something looked like a tool call but could not be read whole; then
    `calls` is empty, so nothing half-read can run. `text` is the prose outside the calls.
    """

    calls: list[ParsedCall] = Field(default_factory=list)
    text: str = ""
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None


def parse_tool_calls(text: str, tool_names: Collection[str]) -> ParseResult:
    """Find the tool calls written in `text`, given the names of the tools that exist.

    Recognised: `<tool_call>{...}</tool_call>` (also `<function_call>`), fenced code blocks
    holding a call or a list of calls, and bare JSON objects or lists in the prose. A call is
    `{"name": ..., "arguments": {...}}` or a common variant: `tool`/`function`/`action` for the
    name, `parameters`/`args`/`input` for the arguments, arguments given as JSON text, the
    OpenAI shape `{"function": {"name": ..., "arguments": ...}}`, `{"tool_calls": [...]}`,
    and, for known tool names only, `{"send_email": {...}}` or the arguments inlined beside
    the name.
    """
    known = set(tool_names)
    result = _parse(text, known)
    if result.failed and "{{" in text:
        # Every brace doubled, as the buggy template shows calls: read it with single braces. Only
        # tried on a reply that failed anyway, so a valid `}}` (nested objects) is never altered.
        halved = _parse(text.replace("{{", "{").replace("}}", "}"), known)
        if halved.calls and not halved.failed:
            return halved
    return result


def _parse(text: str, known: set[str]) -> ParseResult:
    calls: list[ParsedCall] = []
    prose: list[str] = []
    position = 0
    for start, end, body, tagged in _candidates(text):
        prose.append(text[position:start])
        position = end
        found, error = _read_block(body, known, tagged)
        if error:
            return ParseResult(text=text.strip(), error=error)
        if found is None:
            prose.append(text[start:end])  # ordinary JSON or code, not a call: keep it as text
        else:
            calls.extend(found)
    prose.append(text[position:])
    rest = "".join(prose)
    if _ATTEMPT.search(rest) and _mentions_tool(rest, known):
        return ParseResult(text=text.strip(), error="part of the reply looked like a tool call but was not valid JSON")
    return ParseResult(calls=calls, text=_tidy(rest) if calls else text.strip())


def _candidates(text: str) -> list[tuple[int, int, str, bool]]:
    """Spans that may hold calls, in order: tags, then fences, then bare JSON elsewhere."""
    spans: list[tuple[int, int, str, bool]] = [(m.start(), m.end(), m.group(2), True) for m in _TAG.finditer(text)]
    for match in _FENCE.finditer(text):
        if not _overlaps(match.start(), match.end(), spans):
            spans.append((match.start(), match.end(), match.group(2), False))
    decoder = json.JSONDecoder()
    index = 0
    while (index := _next_json_start(text, index)) != -1:
        inside = [s_end for s_start, s_end, _, _ in spans if s_start <= index < s_end]
        if inside:
            index = max(inside)  # already read as a tag or a fence
            continue
        try:
            _, end = decoder.raw_decode(text, index)
        except ValueError:
            index += 1
            continue
        start = index
        if text[index - 1 : index] == "{" and text[end : end + 1] == "}":
            start, end = index - 1, end + 1  # `{{...}}`, copied from a chat template's doubled braces
        spans.append((start, end, text[index : end - (start != index)], False))
        index = end
    return sorted(spans)


def _next_json_start(text: str, index: int) -> int:
    starts = [i for i in (text.find("{", index), text.find("[", index)) if i != -1]
    return min(starts) if starts else -1


def _overlaps(start: int, end: int, spans: list[tuple[int, int, str, bool]]) -> bool:
    return any(start < s_end and s_start < end for s_start, s_end, _, _ in spans)


def _read_block(body: str, known: set[str], tagged: bool) -> tuple[list[ParsedCall] | None, str | None]:
    """(calls, None), (None, None) when the block is not a call, or (None, error)."""
    stripped = _unfence(body.strip())
    try:
        value = json.loads(stripped)
    except ValueError:
        value = _lenient_json(stripped)
        if value is None:
            call, error = _python_call(stripped, known)
            if call is not None or error is not None:
                return ([call] if call else None), error
            if tagged or (_ATTEMPT.search(stripped) and _mentions_tool(stripped, known)):
                return None, "a tool call was not valid JSON (it may have been cut off)"
            return None, None
    items = value if isinstance(value, list) else [value]
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
        items = value["tool_calls"]
    calls: list[ParsedCall] = []
    for item in items:
        call, error = _as_call(item, known)
        if error:
            return None, error
        if call is None:
            if tagged:
                return None, "a <tool_call> did not say which tool to call"
            return None, None
        calls.append(call)
    return (calls or None), None


def _unfence(body: str) -> str:
    match = _FENCE.fullmatch(body)
    return match.group(2).strip() if match else body


def _lenient_json(text: str) -> Any:
    """Small models' near-JSON: doubled braces copied from a buggy template; single quotes not handled."""
    if text.startswith("{{") and text.endswith("}}"):
        try:
            return json.loads(text[1:-1])
        except ValueError:
            return None
    return None


def _python_call(text: str, known: set[str]) -> tuple[ParsedCall | None, str | None]:
    """`send_email(to=["a@b.c"], subject="Hi")`, as coder models like to write in a code block."""
    try:
        tree = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError):
        return None, None
    if not (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id in known):
        return None, None
    name = tree.func.id
    if tree.args or any(k.arg is None for k in tree.keywords):
        return None, f"call {name} with named arguments only"
    try:
        return ParsedCall(name=name, arguments={k.arg: ast.literal_eval(k.value) for k in tree.keywords}), None
    except (ValueError, TypeError, SyntaxError):
        return None, f"the arguments of {name!r} were not plain values"


def _as_call(item: Any, known: set[str]) -> tuple[ParsedCall | None, str | None]:
    """A call from one JSON value; (None, None) when it is plain data, (None, error) when half a call."""
    if not isinstance(item, dict):
        return None, None
    if isinstance(item.get("function"), dict):  # OpenAI shape: {"type": "function", "function": {...}}
        item = item["function"]
    name_key = next((k for k in _NAME_KEYS if isinstance(item.get(k), str)), None)
    if name_key is None:
        if len(item) == 1:
            (name, arguments), = item.items()
            if name in known and isinstance(arguments, dict):
                return ParsedCall(name=name, arguments=arguments), None
        return None, None
    name = item[name_key].strip()
    if name_key == "action" and name not in known:
        return None, None  # `{"action": "deny", ...}` is everyday data, not a call
    argument_key = next((k for k in _ARGUMENT_KEYS if k in item), None)
    if argument_key is None:
        if name not in known:
            return None, None
        # `{"name": "send_email", "to": [...], ...}`: the arguments written beside the name.
        return ParsedCall(name=name, arguments={k: v for k, v in item.items() if k != name_key}), None
    arguments = item[argument_key]
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return None, f"the arguments of {name!r} were not valid JSON"
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return None, f"the arguments of {name!r} were not a JSON object"
    if not name:
        return None, "a tool call had an empty name"
    return ParsedCall(name=name, arguments=arguments), None


def _mentions_tool(text: str, known: set[str]) -> bool:
    return any(re.search(rf"['\"]{re.escape(name)}['\"]", text) for name in known)


def _tidy(text: str) -> str:
    text = re.sub(r"</?(tool_call|function_call)>", "", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()
