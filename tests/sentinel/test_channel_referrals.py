"""A channel the user named, then pointed back at: "create #launch and add Bob to it".

People name a channel once and then say "it", "there" or "that channel". Adding someone to
it is then an account change the user asked for, and a message posted to it goes where the
user said, in the same goal, whether the pointing back is in the same sentence or a later
reply. Pointing back at nothing the user named asks for nothing, and an attacker's channel
is never the one the user meant.
"""

from __future__ import annotations

import pytest

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.sentinel.addressed import addressed_by_user
from deputy.sentinel.intent import Kind, intended_kinds
from deputy.sentinel.policy import ReviewContext, RuleVerdict, Verdict, review
from deputy.sentinel.provenance import ProvenanceContext, UntrustedItem

ALLOW_ALL = RuleVerdict(verdict=Verdict.allow, reasons=["Your rule: allow everything."])
# What creating the channel returned: the goal has read outside content.
CREATED = UntrustedItem(origin="the MCP server slack", text='{"ok": true, "channel": "launch"}', at=1.0)


def action(operation: str, effect: EffectClass, arguments: dict, targets: list[str]) -> Action:
    return Action(id="a1", goal_id="g1", user_id=7, chat_id=7, connector="mcp", operation=operation, effect=effect,
                  arguments=arguments, targets=targets, tool_call_id="c1", created_at=1.0)


def add_to(channel: str, user: str = "Bob") -> Action:
    return action("slack_add_user_to_channel", EffectClass.account, {"user": user, "channel": channel},
                  [user, channel])


def post_to(channel: str, text: str = "Welcome, everyone!") -> Action:
    return action("slack_send_channel_message", EffectClass.communicate, {"channel": channel, "body": text},
                  [channel])


def context(words: list[str], rules: RuleVerdict = ALLOW_ALL) -> ReviewContext:
    return ReviewContext(rules=rules, provenance=ProvenanceContext(
        trusted_texts=[*words, "slack"], user_words=words, untrusted=[CREATED]))


@pytest.mark.parametrize("words", [
    ["create #launch and add Bob to it"],
    ["create a channel called launch and add Bob to it"],
    ["make the launch channel, then invite Bob there"],
    ["create #launch and add Bob to the new channel"],
    ["create #launch", "now add Bob to it"],  # the pointing back in a later reply
])
def test_adding_someone_to_the_channel_pointed_back_at_is_asked_for(words: list[str]) -> None:
    assert Kind.account in intended_kinds(words)
    assert review(add_to("launch"), context(words)).verdict is Verdict.allow


@pytest.mark.parametrize("words", [
    ["create #launch and post the agenda to it"],
    ["create #launch", "drop a welcome note there"],
])
def test_a_message_to_the_channel_pointed_back_at_goes_where_the_user_said(words: list[str]) -> None:
    assert addressed_by_user(["launch"], frozenset({Kind.send}), words)
    decision = review(post_to("launch"), context(words, RuleVerdict()))
    assert decision.verdict is Verdict.allow, decision.reasons
    assert "named launch yourself" in decision.reasons[0]


@pytest.mark.parametrize(("words", "why"), [
    (["read the launch plan and add Bob to it"], "You didn't ask me to change an account"),  # "it" is a document
    (["add Bob to it"], "launch comes from the MCP server slack"),  # the channel only the service named
    (["create #launch and tell Bob who is in it"], "You didn't ask me to change an account"),  # nobody placed in it
])
def test_pointing_back_at_no_channel_asks_for_no_account_change(words: list[str], why: str) -> None:
    assert Kind.account not in intended_kinds(words)
    decision = review(add_to("launch"), context(words))
    assert decision.verdict is Verdict.ask
    assert why in " ".join(decision.reasons)


def test_the_channel_pointed_back_at_is_the_last_one_the_user_named() -> None:
    words = ["read #general, then create #launch and post the agenda to it"]
    assert addressed_by_user(["launch"], frozenset({Kind.send}), words)
    assert not addressed_by_user(["general"], frozenset({Kind.send}), words)
    # A channel only outside content names is never the one the user meant.
    assert not addressed_by_user(["eve-private"], frozenset({Kind.send}), words)
    assert review(post_to("eve-private"), context(words, RuleVerdict())).verdict is Verdict.ask
