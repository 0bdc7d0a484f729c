"""The verbs people use for each mark: "add X to the channel", "post in", "invite", "pay", "top up".

An imported operation's kind comes from its mark (communicate, account, spend); the user's
words ask for a kind through a small vocabulary per mark, read with what follows the verb.
Wordings beyond the vocabulary's own examples either ask for the right kind or ask nothing
(a card); a verb the user did not say never makes an action asked for.
"""

from __future__ import annotations

import pytest

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass, RiskTag
from deputy.sentinel.intent import Kind, action_kinds, intended_kinds
from deputy.sentinel.policy import ReviewContext, RuleVerdict, Verdict, review
from deputy.sentinel.provenance import ProvenanceContext, UntrustedItem

# Imported operations as their marks make them: (effect, tags, operation name).
ADD_TO_CHANNEL = (EffectClass.account, frozenset(), "slack_add_user_to_channel")
INVITE_TO_WORKSPACE = (EffectClass.account, frozenset(), "slack_invite_user_to_workspace")
CHANNEL_MESSAGE = (EffectClass.communicate, frozenset(), "slack_send_channel_message")
POST_MESSAGE = (EffectClass.communicate, frozenset(), "chat_post_message")
DIRECT_MESSAGE = (EffectClass.communicate, frozenset(), "slack_send_direct_message")
SEND_MONEY = (EffectClass.spend, frozenset(), "bank_send_money")
TOP_UP = (EffectClass.spend, frozenset(), "telco_top_up_phone")
SHOP_ORDER = (EffectClass.spend, frozenset(), "shop_place_order")
DELETE_FILE = (EffectClass.write, frozenset({RiskTag.delete}), "drive_delete_file")


def asks_for(words: str, operation: tuple[EffectClass, frozenset[RiskTag], str]) -> bool:
    effect, tags, name = operation
    return bool(action_kinds(effect, tags, "mcp", name) & intended_kinds([words]))


@pytest.mark.parametrize(("words", "operation"), [
    # an account change: someone goes into (or out of) a channel
    ("add Bob to the channel", ADD_TO_CHANNEL),
    ("add Bob to #general", ADD_TO_CHANNEL),
    ("please add Alice and Bob to the general channel on Slack", ADD_TO_CHANNEL),
    ("invite Dora to the design channel", ADD_TO_CHANNEL),
    ("invite Dora to our Slack workspace", INVITE_TO_WORKSPACE),
    ("remove Eve from #random", ADD_TO_CHANNEL),
    # a message where people talk
    ("post to #general that the party is on Friday", CHANNEL_MESSAGE),
    ("post in the team channel that I'm late", CHANNEL_MESSAGE),
    ("post the summary on Slack", POST_MESSAGE),
    ("add the meeting notes to #general", CHANNEL_MESSAGE),
    ("DM Bob the link", DIRECT_MESSAGE),
    ("send Bob a direct message saying hi", DIRECT_MESSAGE),
    # money
    ("pay Ann 20 EUR for the tickets", SEND_MONEY),
    ("transfer 50 EUR to my savings", SEND_MONEY),
    ("top up my phone with 15 EUR", TOP_UP),
    ("top-up my prepaid card", TOP_UP),
])
def test_each_marks_verbs_ask_for_it(words: str, operation) -> None:
    assert asks_for(words, operation)


@pytest.mark.parametrize(("words", "operation"), [
    ("put Bob in #general", ADD_TO_CHANNEL),
    ("bring Carla into the team channel", ADD_TO_CHANNEL),
    ("welcome Ann to the team", ADD_TO_CHANNEL),
    ("kick Eve out of the group chat", ADD_TO_CHANNEL),
    ("drop a note in the team channel that lunch moved to 1pm", CHANNEL_MESSAGE),
    ("leave a message in #random for whoever is around", CHANNEL_MESSAGE),
    ("write in the family group that I land at 6", CHANNEL_MESSAGE),
    ("send 20 dollars to Ann", SEND_MONEY),
    ("give Ann €20 for the cinema", SEND_MONEY),
    ("send Tom 35 euros", SEND_MONEY),
    ("wire the deposit to the landlord", SEND_MONEY),
])
def test_wordings_beyond_the_examples_generalise(words: str, operation) -> None:
    assert asks_for(words, operation)


@pytest.mark.parametrize(("words", "operation"), [
    # reading or talking about a channel asks for nothing in it
    ("read #general and summarise it", CHANNEL_MESSAGE),
    ("read #general and summarise it", ADD_TO_CHANNEL),
    ("what did Bob post in #general?", CHANNEL_MESSAGE),
    ("what did Bob post in #general?", POST_MESSAGE),
    ("who added Eve to the channel?", ADD_TO_CHANNEL),
    ("show me the members of #general", ADD_TO_CHANNEL),
    # the thing placed is a message, so nobody joins; a person placed is no message
    ("add the summary to #general", ADD_TO_CHANNEL),
    ("post the summary in #general", ADD_TO_CHANNEL),
    ("add Bob to #general", CHANNEL_MESSAGE),
    ("put Bob in #general", DIRECT_MESSAGE),
    # money is never asked for by a message, a noun, or a channel
    ("read my document invoice.pdf and tell me what it says", SEND_MONEY),
    ("check my last bill", SEND_MONEY),
    ("post in #general that rent is 900 EUR", SEND_MONEY),
    ("add Bob to #general", SEND_MONEY),
    ("send 20 dollars to Ann", ADD_TO_CHANNEL),
    ("send 20 dollars to Ann", DELETE_FILE),
    ("top up my phone with 15 EUR", SHOP_ORDER),
    # a channel word asks for no deletion
    ("remove Eve from #random", SEND_MONEY),
])
def test_a_verb_the_user_did_not_say_asks_for_nothing(words: str, operation) -> None:
    assert not asks_for(words, operation)


# Through the whole review, with a rule that allows everything: what the words do not ask
# for still waits for the user once the goal has read outside content.
ALLOW_ALL = RuleVerdict(verdict=Verdict.allow, reasons=["Your rule: allow everything."])
CHANNEL = ("the MCP server slack", "bob: lunch at 1?\ncarla: the deploy is done")


def action(operation, arguments: dict, targets: list[str]) -> Action:
    effect, tags, name = operation
    return Action(id="a1", goal_id="g1", user_id=7, chat_id=7, connector="mcp", operation=name, effect=effect,
                  tags=sorted(tags), arguments=arguments, targets=targets, tool_call_id="c1", created_at=1.0)


def context(words: str) -> ReviewContext:
    return ReviewContext(rules=ALLOW_ALL, provenance=ProvenanceContext(
        trusted_texts=[words, "slack"], user_words=[words],
        untrusted=[UntrustedItem(origin=CHANNEL[0], text=CHANNEL[1], at=1.0)]))


@pytest.mark.parametrize("words", ["read #general, then add Bob to the channel",
                                   "read #general and put Bob in #general"])
def test_adding_someone_the_user_named_goes_through_their_rule(words: str) -> None:
    add = action(ADD_TO_CHANNEL, {"user": "Bob", "channel": "general"}, ["Bob", "general"])
    assert review(add, context(words)).verdict is Verdict.allow


def test_an_account_change_nobody_asked_for_waits_for_the_user() -> None:
    add = action(ADD_TO_CHANNEL, {"user": "Bob", "channel": "general"}, ["Bob", "general"])
    decision = review(add, context("read #general and tell me what Bob said about general"))
    assert decision.verdict is Verdict.ask
    assert "You didn't ask me to change an account" in " ".join(decision.reasons)


def test_a_post_the_user_asked_for_goes_through_and_a_payment_beside_it_does_not() -> None:
    words = "read #general and post in #general that the deploy is done"
    post = action(CHANNEL_MESSAGE, {"channel": "general", "text": "The deploy is done."}, ["general"])
    assert review(post, context(words)).verdict is Verdict.allow
    pay = action(SEND_MONEY, {"recipient": "general", "amount": 20}, ["general"])
    assert review(pay, context(words)).verdict is Verdict.ask


@pytest.mark.parametrize(("words", "addressed"), [
    ("post in #general that the deploy is done", True),
    ("drop a note in the general channel: cake is gone", True),
    ("dm general the link", True),
    ("tell me what bob said in #general", False),
    ("read #general and summarise it", False),
])
def test_a_channel_is_addressed_only_where_a_message_is_placed_in_it(words: str, addressed: bool) -> None:
    from deputy.sentinel.addressed import addressed_by_user

    assert addressed_by_user(["general"], frozenset({Kind.send}), [words]) is addressed


@pytest.mark.parametrize("words", ["fwd the brightlane invoice to my accountant", "pls fwd this to sam@example.org"])
def test_the_usual_abbreviation_of_forward_asks_for_the_forward(words: str) -> None:
    forward = action_kinds(EffectClass.communicate, frozenset(), "email", "forward_email")
    assert forward & intended_kinds([words])
