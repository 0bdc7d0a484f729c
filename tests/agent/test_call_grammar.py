"""What goes on the wire for a forced, constrained tool call: the tools in the system message and a grammar."""

from __future__ import annotations

import re

from deputy.agent.model.call_grammar import PREFILL, call_grammar, tools_block, wire_body
from deputy.agent.memory_tools import MEMORY_TOOLS
from deputy.agent.tools import INTERNAL_TOOLS
from deputy.agent.workspace_tools import WORKSPACE_TOOLS
from deputy.connectors.default import default_catalog

TOOLS = [*INTERNAL_TOOLS, *MEMORY_TOOLS, *WORKSPACE_TOOLS, *default_catalog().tool_schemas()]
MESSAGES = [{"role": "system", "content": "You are Deputy."}, {"role": "system", "content": "Today is Monday."},
            {"role": "user", "content": "email ann@example.org that I'm late"}]
FORCED = [*MESSAGES, {"role": "assistant", "content": PREFILL}]


def test_a_forced_call_goes_with_a_grammar_and_the_tools_written_into_the_system_message() -> None:
    body = wire_body(FORCED, TOOLS[:5], constrain=True)
    assert "tools" not in body and body["grammar"].startswith("root ::=")
    system, *rest = body["messages"]
    assert system["content"] == "You are Deputy." + tools_block(TOOLS[:5])
    assert rest == FORCED[1:], "the context message, the transcript and the forced opening are unchanged"


def test_without_constraint_or_a_forced_opening_the_request_is_the_usual_one() -> None:
    assert wire_body(FORCED, TOOLS, constrain=False) == {"messages": FORCED, "tools": TOOLS}
    assert wire_body(MESSAGES, TOOLS, constrain=True) == {"messages": MESSAGES, "tools": TOOLS}
    assert wire_body(FORCED, [], constrain=True) == {"messages": FORCED}


def test_the_grammar_offers_exactly_the_tools_and_their_own_parameters() -> None:
    grammar = call_grammar(TOOLS)
    defined = set(re.findall(r"^([a-z0-9-]+) ::=", grammar, re.M))
    used = set(re.findall(r"\b(r\d+)\b", grammar)) | {"value", "object", "array", "string", "number", "integer",
                                                       "boolean", "ws"}
    assert used <= defined, used - defined  # every rule it names is defined
    root = grammar.splitlines()[0]
    names = {tool["function"]["name"] for tool in TOOLS}
    assert root.count('"\\", \\"arguments\\": "') == len(names)  # one choice per offered tool, no other
    for name in names:
        assert f'"{name}" "\\", \\"arguments\\": "' in root
    send_email = default_catalog().get("send_email").tool_schema()["function"]["parameters"]["properties"]
    for key in send_email:
        assert f'"\\"{key}\\""' in grammar
