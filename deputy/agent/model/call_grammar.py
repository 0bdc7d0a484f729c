"""Valid tool calls by construction: a grammar the local model's answer must follow.

When a step's answer is forced to start as a tool call (`PREFILL`, see `deputy.agent.model.text_tools`), llama-server
can also be told what may come next, as a GBNF grammar: one of the offered tools' names, then an
arguments object whose keys are that tool's own parameters and whose values have their types,
then the end of the call. The model cannot write anything else, so a cut-off call, a stray code
fence or a made-up tool name never reaches the parser. (The lenient parser stays for hosted
models that write calls as text.)

llama-server refuses a grammar together with `tools`, so the tools are written into the system
message exactly as the chat template would write them, and the request carries the grammar
instead. Pure functions: `wire_body` is what goes on the wire.
"""

from __future__ import annotations

import json
from typing import Any

PREFILL = '<tool_call>\n{"name": "'
"""How a forced answer starts (`deputy.agent.model.text_tools`): the model only has to name the tool and write its arguments."""

TOOLS_INTRO = ("\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
               "You are provided with function signatures within <tools></tools> XML tags:\n<tools>")
TOOLS_OUTRO = ("\n</tools>\n\nFor each function call, return a json object with function name and arguments "
               "within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, "
               "\"arguments\": <args-json-object>}\n</tool_call>")

_JSON_RULES = r'''value ::= object | array | string | number | "true" | "false" | "null"
object ::= "{" ws ( string ws ":" ws value ( ws "," ws string ws ":" ws value )* )? ws "}"
array ::= "[" ws ( value ( ws "," ws value )* )? ws "]"
string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} ) )* "\""
number ::= integer ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?
integer ::= "-"? ( "0" | [1-9] [0-9]{0,15} )
boolean ::= "true" | "false"
ws ::= [ \t\n]{0,8}
'''


def tools_block(tools: list[dict[str, Any]]) -> str:
    """The tool list as the model's chat template writes it into the system message."""
    return TOOLS_INTRO + "".join("\n" + json.dumps(tool, ensure_ascii=False) for tool in tools) + TOOLS_OUTRO


def _literal(text: str) -> str:
    return json.dumps(text)  # GBNF string literals escape like JSON


class _Rules:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self._count = 0

    def add(self, body: str) -> str:
        self._count += 1
        name = f"r{self._count}"
        self.lines.append(f"{name} ::= {body}")
        return name

    def value(self, schema: Any) -> str:
        """The rule for a value of `schema` (what is not understood is any JSON value)."""
        if not isinstance(schema, dict):
            return "value"
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self.add(" | ".join(_literal(json.dumps(v)) for v in schema["enum"]))
        kind = schema.get("type")
        if kind == "string":
            return "string"
        if kind == "integer":
            return "integer"
        if kind == "number":
            return "number"
        if kind == "boolean":
            return "boolean"
        if kind == "array":
            item = self.value(schema.get("items"))
            return self.add(f'"[" ws ( {item} ( ws "," ws {item} )* )? ws "]"')
        if kind == "object":
            return self.object(schema)
        return "value"

    def object(self, schema: dict[str, Any]) -> str:
        """An object whose keys are the schema's own properties (each with its type), in any order."""
        properties = schema.get("properties")
        if not isinstance(properties, dict) or not properties:
            return "object"
        required = [key for key in schema.get("required") or [] if key in properties]
        firsts = [f"{_literal(json.dumps(key))} ws \":\" ws {self.value(properties[key])}" for key in required]
        pairs = []
        for key, sub in properties.items():
            if key not in required:
                # A parameter the tool can do without may be written as null.
                pairs.append(f"{_literal(json.dumps(key))} ws \":\" ws ( {self.value(sub)} | \"null\" )")
        pair = self.add(" | ".join(f"( {p} )" for p in pairs)) if pairs else None
        if not firsts:
            return self.add(f'"{{" ws ( {pair} ( ws "," ws {pair} )* )? ws "}}"')
        # What the tool cannot do without comes first, each once, so a call can never leave it out.
        head = ' ws "," ws '.join(firsts)
        tail = f' ( ws "," ws {pair} )*' if pair else ""
        return self.add(f'"{{" ws {head}{tail} ws "}}"')


def call_grammar(tools: list[dict[str, Any]]) -> str:
    """What may follow `PREFILL`: a tool's name, its arguments, and the end of the call."""
    rules = _Rules()
    choices = []
    between = _literal('", "arguments": ')
    for tool in tools:
        function = tool.get("function", {})
        arguments = rules.object(function.get("parameters") or {})
        choices.append(f'{_literal(function.get("name", ""))} {between} {arguments}')
    root = f'root ::= ( {" | ".join(choices)} ) ws "}}" ws "\\n</tool_call>"'
    return "\n".join([root, *rules.lines, _JSON_RULES])


def wire_body(messages: list[dict[str, Any]], tools: list[dict[str, Any]], constrain: bool) -> dict[str, Any]:
    """The request's `messages` and `tools`, or, for a forced call with `constrain`, the messages with
    the tools written into the system message and the `grammar` the answer must follow."""
    forced = bool(messages) and messages[-1].get("role") == "assistant" and messages[-1].get("content") == PREFILL
    if not (constrain and tools and forced):
        return {"messages": messages, **({"tools": tools} if tools else {})}
    if messages[0].get("role") == "system":
        first, rest = messages[0], messages[1:]
    else:
        first, rest = {"role": "system", "content": "You are a helpful assistant."}, messages
    system = {"role": "system", "content": f"{first.get('content') or ''}{tools_block(tools)}"}
    return {"messages": [system, *rest], "grammar": call_grammar(tools)}
