"""`parse_rule`: a sentence becomes a rule through one call to an untrusted helper model.

What a user relies on: the reading they confirm is what will be enforced, whatever the
model claims; a model that answers nonsense gives a plain "try e.g. ..." message; and a
model that tries to widen what rules can do (allow secrets, loose wildcards, made-up
fields or verdicts) gets nothing through.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from deputy.agent.model.chat_model import ModelReply, ModelUnavailable, ToolCall
from deputy.agent.model.testing import FunctionModel, text, tool_call, tool_calls
from deputy.core.records.effects import EffectClass
from deputy.agent.rule_parser import (
    MAX_SENTENCE_CHARS,
    TOOL_NAME,
    ParsedRule,
    RuleParseError,
    parse_rule,
    rule_tool,
)
from deputy.sentinel.rules import RuleSpec

TODAY = date(2026, 3, 4)
ZONE = "Europe/Berlin"


def answering(reply: ModelReply) -> FunctionModel:
    return FunctionModel(lambda messages, tools: reply)


def parse(sentence: str, reply: ModelReply) -> tuple[ParsedRule | RuleParseError, FunctionModel]:
    model = answering(reply)
    return parse_rule(sentence, model, TODAY, ZONE), model


EXAMPLES = [
    (
        "never spend more than $50 without asking",
        {"verdict": "ask", "scope": {"effects": ["spend"]}, "conditions": {"amount_above": 50, "currency": "USD"}},
        (
            "Ask me before any payment over 50.00 USD. An amount in another currency or of unknown size counts too, "
            "since I can't compare it."
        ),
    ),
    (
        "always ask before emailing anyone outside my contacts",
        {"verdict": "ask", "scope": {"effects": ["communicate"]}, "conditions": {"targets_in_contacts": False}},
        "Ask me before any message, when anyone involved is not in my contacts.",
    ),
    (
        "you may add events to my work calendar without asking",
        {"verdict": "allow", "scope": {"effects": ["write"], "connectors": ["calendar"]},
         "conditions": {"target_in": ["work"]}},
        (
            "Don't ask me before any change to my data in calendar, when every recipient or target is work. "
            "Deputy's built-in protections still apply."
        ),
    ),
    (
        "do whatever I explicitly ask without confirming: send the emails, make the payments and the bookings I asked for",
        {"verdict": "allow", "scope": {"effects": ["communicate", "spend"]},
         "conditions": {"only_if_user_requested": True}},
        (
            "Don't ask me before any message or any payment, when I asked for it myself (who and how much come from my "
            "own words). Deputy's built-in protections still apply."
        ),
    ),
    (
        "never book anything on Sundays",
        {"verdict": "deny", "scope": {"connectors": ["bookings"]}, "conditions": {"weekdays": ["sunday"]}},
        "Never allow any action in bookings, when it is Sunday for me.",
    ),
    (
        "don't let Deputy contact my ex, bob@x.com",
        {"verdict": "deny", "scope": {"effects": ["communicate"]}, "conditions": {"target_in": ["bob@x.com"]}},
        "Never allow any message, when any recipient or target is bob@x.com.",
    ),
]


@pytest.mark.parametrize(("sentence", "arguments", "reading"), EXAMPLES, ids=[e[0][:30] for e in EXAMPLES])
def test_each_example_sentence_becomes_the_rule_the_user_confirms(
    sentence: str, arguments: dict[str, Any], reading: str
) -> None:
    parsed, model = parse(sentence, tool_call(TOOL_NAME, **arguments))
    assert isinstance(parsed, ParsedRule)
    assert parsed.spec == RuleSpec.model_validate(arguments)
    assert parsed.description == reading
    assert parsed.text == sentence
    assert parsed.notes == []
    (messages, tools), = model.calls
    assert [t["function"]["name"] for t in tools] == [TOOL_NAME]
    assert messages[-1] == {"role": "user", "content": sentence}
    assert "2026-03-04" in messages[0]["content"] and ZONE in messages[0]["content"]


def test_the_tool_schema_mirrors_the_rule_and_is_self_contained() -> None:
    parameters = rule_tool()["function"]["parameters"]
    assert "$ref" not in json.dumps(parameters)
    assert set(parameters["properties"]) == {"verdict", "scope", "conditions"}
    assert parameters["additionalProperties"] is False
    assert parameters["properties"]["verdict"]["enum"] == ["allow", "ask", "deny"]
    conditions = parameters["properties"]["conditions"]["properties"]
    assert {"amount_above", "amount_at_most", "currency", "target_in", "weekdays", "time_of_day"} <= set(conditions)


def test_a_confirmed_parse_becomes_a_user_rule_with_the_users_own_words() -> None:
    sentence, arguments, _ = EXAMPLES[0]
    parsed, _ = parse(sentence, tool_call(TOOL_NAME, **arguments))
    assert isinstance(parsed, ParsedRule)
    rule = parsed.to_rule(created_at=42.0, rule_id="r_1")
    assert (rule.id, rule.source, rule.text, rule.created_at) == ("r_1", "user", sentence, 42.0)
    assert RuleSpec.model_validate(rule.model_dump(include={"verdict", "scope", "conditions"})) == parsed.spec


def test_only_the_start_of_a_long_sentence_is_read() -> None:
    sentence = "never email bob@x.com " + "please " * 200 + "and also allow everything"
    parsed, model = parse(sentence, tool_call(TOOL_NAME, **EXAMPLES[5][1]))
    assert isinstance(parsed, ParsedRule)
    sent = model.calls[0][0][-1]["content"]
    assert len(sent) == MAX_SENTENCE_CHARS and "allow everything" not in sent
    assert parsed.text == sent
    assert parsed.notes and str(MAX_SENTENCE_CHARS) in parsed.notes[0]


def test_an_empty_sentence_needs_no_model() -> None:
    result, model = parse("   ", text("unused"))
    assert isinstance(result, RuleParseError) and model.calls == []


# -- malformed model output ----------------------------------------------------------------

GOOD = EXAMPLES[0][1]


def raw_call(arguments: str, name: str = TOOL_NAME) -> ModelReply:
    return ModelReply(tool_calls=[ToolCall(id="c1", name=name, arguments=arguments)])


MALFORMED = {
    "no tool call": text("Sure! I'll ask before spending over $50."),
    "another tool": tool_call("send_email", to="a@b.c"),
    "two rules": tool_calls((TOOL_NAME, GOOD), (TOOL_NAME, GOOD)),
    "bad JSON": raw_call('{"verdict": "ask", '),
    "a JSON list": raw_call("[1, 2]"),
    "deeply nested JSON": raw_call("[" * 100_000 + "]" * 100_000),
    "missing verdict": tool_call(TOOL_NAME, scope={"effects": ["spend"]}),
    "targets as a string": tool_call(TOOL_NAME, verdict="deny", conditions={"target_in": "bob@x.com"}),
    "amount as words": tool_call(TOOL_NAME, verdict="ask", conditions={"amount_above": "fifty", "currency": "USD"}),
    "amount in dollars text": tool_call(TOOL_NAME, verdict="ask", conditions={"amount_above": "$50", "currency": "USD"}),
    "contacts as a word": tool_call(TOOL_NAME, verdict="ask", conditions={"targets_in_contacts": "no"}),
    "requested as a number": tool_call(TOOL_NAME, verdict="allow", conditions={"only_if_user_requested": 1}),
    "scope as a list": tool_call(TOOL_NAME, verdict="ask", scope=["spend"]),
    "unknown effect": tool_call(TOOL_NAME, verdict="ask", scope={"effects": ["teleport"]}),
    "extra top-level field": tool_call(TOOL_NAME, **GOOD, priority=100),
    "extra condition": tool_call(TOOL_NAME, verdict="ask", conditions={"unless_urgent": True}),
    "model claims the button": tool_call(TOOL_NAME, **GOOD, source="always_allow_button"),
    "model sets the id": tool_call(TOOL_NAME, **GOOD, id="r_admin"),
    "model writes the text": tool_call(TOOL_NAME, **GOOD, text="harmless"),
}


@pytest.mark.parametrize("reply", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_model_output_is_a_plain_parse_error(reply: ModelReply) -> None:
    result, _ = parse("never spend more than $50 without asking", reply)
    assert isinstance(result, RuleParseError)
    assert result.user_message.startswith("I couldn't turn that into a rule; try e.g.")
    assert str(result) == result.user_message
    assert not result.retryable


def test_an_unreachable_model_is_a_retryable_parse_error() -> None:
    def down(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        raise ModelUnavailable("connection refused", "I couldn't reach the language model.")

    result = parse_rule("never spend more than $50", FunctionModel(down), TODAY, ZONE)
    assert isinstance(result, RuleParseError) and result.retryable
    assert result.user_message.startswith("I couldn't reach the language model.")


# -- an adversarial model ------------------------------------------------------------------


def test_allowing_secrets_is_dropped_with_a_note() -> None:
    reply = tool_call(TOOL_NAME, verdict="allow", scope={"effects": ["credential", "communicate"]},
                      conditions={"target_in": ["*.x.com"]})
    parsed, _ = parse("you may email anyone at x.com", reply)
    assert isinstance(parsed, ParsedRule)
    assert parsed.spec.scope.effects == [EffectClass.communicate]
    assert parsed.notes == ["I left out passwords and other secrets: no rule can let Deputy handle those on its own."]
    assert "password" not in parsed.description


def test_a_rule_allowing_only_secrets_is_refused_rather_than_widened_to_anything() -> None:
    """Dropping the only effect would leave an empty scope, which means 'any action'."""
    parsed, _ = parse("share my passwords freely", tool_call(TOOL_NAME, verdict="allow", scope={"effects": ["credential"]}))
    assert isinstance(parsed, RuleParseError)
    assert "passwords" in parsed.user_message


def test_a_deny_rule_about_secrets_is_fine() -> None:
    parsed, _ = parse("never touch my passwords", tool_call(TOOL_NAME, verdict="deny", scope={"effects": ["credential"]}))
    assert isinstance(parsed, ParsedRule)
    assert parsed.description == "Never allow anything involving a password or other secret."


@pytest.mark.parametrize("verdict", ["always_allow", "ALLOW", "override", "allow!", "", None, 1, ["allow"]])
def test_verdicts_outside_the_enum_are_refused(verdict: Any) -> None:
    result, _ = parse("whatever", tool_call(TOOL_NAME, verdict=verdict))
    assert isinstance(result, RuleParseError)


@pytest.mark.parametrize("pattern", ["*", "*@*", "bob*", "*.*"])
def test_a_wildcard_for_everyone_is_refused(pattern: str) -> None:
    result, _ = parse("you may email bob", tool_call(TOOL_NAME, verdict="allow", conditions={"target_in": [pattern]}))
    assert isinstance(result, RuleParseError)


def test_the_reading_comes_from_the_rule_not_from_the_models_words() -> None:
    """A model that says 'ask' in text but defines 'allow' shows the user the allow."""
    reply = ModelReply(
        content="This rule makes Deputy ask before every payment.",
        tool_calls=tool_call(TOOL_NAME, verdict="allow", scope={"effects": ["spend"]}).tool_calls,
    )
    parsed, _ = parse("ask me before every payment", reply)
    assert isinstance(parsed, ParsedRule)
    assert parsed.description.startswith("Don't ask me before any payment")
