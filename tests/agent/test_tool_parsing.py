"""Reading tool calls that a model wrote as text (deputy.agent.model.tool_parsing)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deputy.agent.model.tool_parsing import ParsedCall, parse_tool_calls

TOOLS = {"send_email", "reply", "update_plan", "create_event"}
EMAIL = {"to": ["alice@example.org"], "subject": "Running late", "body": "I'm running late."}


def calls(text: str) -> list[tuple[str, dict]]:
    result = parse_tool_calls(text, TOOLS)
    assert result.error is None, result.error
    return [(c.name, c.arguments) for c in result.calls]


def test_tool_call_tags_as_qwen_writes_them() -> None:
    text = f'<tool_call>\n{{"name": "send_email", "arguments": {json.dumps(EMAIL)}}}\n</tool_call>'
    assert calls(text) == [("send_email", EMAIL)]


def test_several_tagged_calls_in_order() -> None:
    text = ('<tool_call>{"name": "update_plan", "arguments": {"steps": [{"title": "Write"}]}}</tool_call>\n'
            '<tool_call>{"name": "reply", "arguments": {"text": "Done"}}</tool_call>')
    assert [name for name, _ in calls(text)] == ["update_plan", "reply"]


def test_fenced_json_block_with_prose_around_it() -> None:
    text = f'Sure, I will send it.\n```json\n{{"name": "send_email", "arguments": {json.dumps(EMAIL)}}}\n```\nDone.'
    result = parse_tool_calls(text, TOOLS)
    assert [(c.name, c.arguments) for c in result.calls] == [("send_email", EMAIL)]
    assert result.text == "Sure, I will send it.\n\nDone."


def test_bare_json_object() -> None:
    assert calls(f'{{"name": "send_email", "arguments": {json.dumps(EMAIL)}}}') == [("send_email", EMAIL)]


@pytest.mark.parametrize(
    "text",
    [
        '{"tool": "reply", "parameters": {"text": "hi"}}',
        '{"tool_name": "reply", "args": {"text": "hi"}}',
        '{"function": "reply", "input": {"text": "hi"}}',
        '{"action": "reply", "action_input": {"text": "hi"}}',
        '{"type": "function", "function": {"name": "reply", "arguments": "{\\"text\\": \\"hi\\"}"}}',
        '{"tool_calls": [{"function": {"name": "reply", "arguments": {"text": "hi"}}}]}',
        '{"reply": {"text": "hi"}}',
        '{"name": "reply", "text": "hi"}',
        '{{"name": "reply", "arguments": {"text": "hi"}}}',
        '{{"name": "reply", "arguments": {{"text": "hi"}}}}',
        '<tool_call>\n{{"name": "reply", "arguments": {{"text": "hi"}}}}\n</tool_call>',
        '```python\nreply(text="hi")\n```',
        '<tool_call>\n```json\n{"name": "reply", "arguments": {"text": "hi"}}\n```\n</tool_call>',
    ],
)
def test_common_variants(text: str) -> None:
    assert calls(text) == [("reply", {"text": "hi"})]


def test_a_json_list_of_calls() -> None:
    text = '[{"name": "update_plan", "arguments": {"steps": []}}, {"name": "reply", "arguments": {"text": "ok"}}]'
    assert [name for name, _ in calls(text)] == ["update_plan", "reply"]


def test_arguments_given_as_json_text_are_decoded() -> None:
    text = json.dumps({"name": "send_email", "arguments": json.dumps(EMAIL)})
    assert calls(text) == [("send_email", EMAIL)]


def test_plain_answers_are_not_calls() -> None:
    for text in ["Paris is the capital of France.", 'The config is {"debug": true} in that file.',
                 "Use {curly} braces [like this].", "", '{"name": "Alice", "age": 31}']:
        result = parse_tool_calls(text, TOOLS)
        assert result.calls == [] and result.error is None
        assert result.text == text.strip()


@pytest.mark.parametrize(
    "text",
    [
        # Cut off mid-argument (the model hit its token limit).
        '{"name": "send_email", "arguments": {"to": ["alice@example.org"], "body": "I am runn',
        '<tool_call>\n{"name": "send_email", "arguments": {"to": ["alice@example.org"]}\n',
        '<tool_call>send_email to alice</tool_call>',
        '{"name": "send_email", "arguments": "{\\"to\\": [\\"alice@"}',
        '{"name": "send_email", "arguments": ["alice@example.org"]}',
        "{'name': 'send_email', 'arguments': {'to': ['alice@example.org']}}",
        '```python\nsend_email(to=recipient)\n```',
        'Sure, here it is: <tool_call> {"name": "send_email", "arguments": {"to": ["alice@exa',
        '{{"name": "send_email", "arguments": {{"to": ["alice@example.org"], "body": "I am',
    ],
)
def test_half_calls_are_failures_never_calls(text: str) -> None:
    result = parse_tool_calls(text, TOOLS)
    assert result.failed
    assert result.calls == []


def test_one_broken_call_fails_the_whole_reply() -> None:
    text = ('<tool_call>{"name": "update_plan", "arguments": {"steps": []}}</tool_call>\n'
            '<tool_call>{"name": "send_email", "arguments": {"to": ["al')
    result = parse_tool_calls(text, TOOLS)
    assert result.failed and result.calls == []


def test_a_well_formed_call_of_an_unknown_tool_is_returned_for_the_runner_to_refuse() -> None:
    assert calls('{"name": "launch_rockets", "arguments": {}}') == [("launch_rockets", {})]
    assert calls('{"action": "deny", "parameters": {"effect": "spend"}}') == []  # data, not a call


@given(st.text(max_size=200))
def test_never_raises_and_never_returns_calls_with_an_error(text: str) -> None:
    result = parse_tool_calls(text, TOOLS)
    assert not (result.failed and result.calls)
    assert all(isinstance(c, ParsedCall) and isinstance(c.arguments, dict) for c in result.calls)


@given(st.dictionaries(st.text(min_size=1, max_size=10), st.text(max_size=20), max_size=4))
def test_round_trip_of_any_arguments(arguments: dict) -> None:
    text = "<tool_call>\n" + json.dumps({"name": "create_event", "arguments": arguments}) + "\n</tool_call>"
    assert calls(text) == [("create_event", arguments)]
