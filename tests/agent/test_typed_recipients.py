"""A message Deputy sends reaches an address the user typed, when the user typed any.

The runner, the guard and the outbox are real (real Redis), the model is scripted: what the
user notices is the card they get, for whom, and that nothing went to someone they did not name.
"""

from __future__ import annotations


from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import tool_call
from deputy.agent.typed_recipients import missed_recipients, typed_addresses
from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from tests.agent.test_dates_and_asking import Rig, results, script

TYPED = "sam@example.com"
OTHER_SAM = "sam.okafor@work.example"
GOAL = f"pls drop a line to {TYPED} that I'll be 10 mins late"


def _reply_to_the_other_sam() -> ModelReply:
    return tool_call("reply_email", message_id="INBOX/17", to=[OTHER_SAM], body="I'll be 10 minutes late.")


def test_a_reply_to_someone_else_goes_back_and_the_card_is_for_the_address_the_user_typed(redis: Redis) -> None:
    rig = Rig(redis, script(
        _reply_to_the_other_sam(),
        tool_call("send_email", to=[TYPED], subject="Running late", body="I'll be 10 minutes late."),
    ), zone="Europe/Berlin")
    goal = rig.text(GOAL)

    first = results(goal.messages)[0]
    assert first.startswith(f"Error: not run: the user asked to write to {TYPED}") and "send_email" in first
    assert rig.action_arguments("reply_email") == [], "nothing was proposed to the other Sam"
    [card] = rig.cards()
    assert TYPED in card.text and OTHER_SAM not in card.text
    assert [a["to"] for a in rig.action_arguments("send_email")] == [[TYPED]]


def test_a_model_that_insists_is_not_sent_back_twice_and_the_user_decides(redis: Redis) -> None:
    rig = Rig(redis, script(_reply_to_the_other_sam(), _reply_to_the_other_sam()), zone="Europe/Berlin")
    goal = rig.text(GOAL)
    first, second = results(goal.messages)[:2]
    assert first.startswith("Error: not run: the user asked to write to")
    assert not second.startswith("Error: not run: the user asked to write to")
    # Nothing went out on its own: the user is asked about the other Sam (here, an address read nowhere).
    [asked] = rig.said()
    assert OTHER_SAM in asked.text


def test_a_reply_that_reaches_the_typed_address_is_not_sent_back(redis: Redis) -> None:
    rig = Rig(redis, script(
        tool_call("reply_email", message_id="INBOX/18", to=[TYPED], cc=["ann@example.org"], body="Late!"),
    ), zone="Europe/Berlin")
    goal = rig.text(f"reply to {TYPED.upper()}'s email that I'm late, cc ann@example.org")
    assert not results(goal.messages)[0].startswith("Error: not run")
    assert [a["to"] for a in rig.action_arguments("reply_email")] == [[TYPED]]


def _action(operation: str, effect: EffectClass, targets: list[str]) -> Action:
    return Action(id="a_1", goal_id="g_1", user_id=1, chat_id=1, connector="email", operation=operation,
                  effect=effect, arguments={}, targets=targets, tool_call_id="c_1", created_at=0)


def test_only_a_message_sent_to_addresses_none_of_which_the_user_typed_is_sent_back() -> None:
    words = [f"forward the hotel confirmation to {TYPED}.", "and Ann@Example.org too"]
    assert typed_addresses(words) == [TYPED, "ann@example.org"]
    send = EffectClass.communicate
    assert missed_recipients(_action("forward_email", send, ["ann@example.org"]), words) == []
    assert missed_recipients(_action("forward_email", send, [OTHER_SAM]), words) == [TYPED, "ann@example.org"]
    assert missed_recipients(_action("forward_email", send, [OTHER_SAM]), ["forward it to Sam"]) == []
    assert missed_recipients(_action("move_email", EffectClass.write, ["mailbox"]), words) == []
    assert missed_recipients(_action("post_message", send, ["#general"]), words) == []


def test_after_being_sent_back_the_model_is_offered_a_new_email_whatever_the_goals_kind(redis: Redis) -> None:
    """The first decision named "act on an email the user has", whose later offer has no new email: the
    correction says to write one, so the next offer holds it, and the card is for the address typed."""
    from deputy.agent.model.testing import FunctionModel
    from deputy.agent.model.text_tools_model import TextToolsChatModel
    from deputy.connectors.default import default_catalog
    from deputy.core.records.effects import OperationResult
    from deputy.testing.inline import InlineDeputy
    from tests.agent.test_first_decision import DECIDING, called, chose, names

    found = f"1 email(s) in INBOX match, newest first:\n- INBOX/17 | Mon | {OTHER_SAM} | Dinner? | read | Are you free"
    replies = [chose("mail_act"), called("search_email", {"text": "sam"}),
               called("reply_email", {"message_id": "INBOX/17", "to": [OTHER_SAM], "body": "I'll be 10 minutes late."}),
               called("send_email", {"to": [TYPED], "subject": "Running late", "body": "I'll be 10 minutes late."}),
               called("reply", {"text": "Waiting for your tap."})]
    model = FunctionModel(lambda messages, tools: replies.pop(0))
    rig = InlineDeputy(redis, TextToolsChatModel(model, DECIDING), default_catalog(),
                       {"email.search_email": lambda action, key: OperationResult(summary=found)})
    rig.start(9, GOAL)
    offers = [names(call[1]) for call in model.calls]
    assert "send_email" not in offers[2], "the kind's own offer"
    assert "send_email" in offers[3], "offered once the model was sent back"
    [record] = [r for r in rig.stored_actions(9) if r.action.operation in ("send_email", "reply_email")]
    assert record.action.operation == "send_email" and record.action.targets == [TYPED]
