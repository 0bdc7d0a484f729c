"""A negotiation's stopping points coming near are offered once as a change (Edit / Keep), and a
negotiation gets a weekly digest with no watch: all from the recorded rounds, no model call for
either. Real records, the sandbox marketplace's counterparts, a manual clock."""

from __future__ import annotations

from decimal import Decimal

from redis import Redis

from bench.negotiation_eval.scenarios import CAR
from deputy.agent.model.testing import FunctionModel, tool_call
from deputy.core.infrastructure.clock import ManualClock
from deputy.sandbox.negotiation.counterparts import Counterpart, Temperament
from deputy.sandbox.negotiation.operations import negotiation_catalog
from deputy.sandbox.negotiation.world import NegotiationWorld
from deputy.sentinel.negotiation.outlook import digest_lines, nearing
from deputy.sentinel.negotiation.state import NegotiationState, record_ours, record_theirs
from deputy.sentinel.stores.mandates import MandateStore
from deputy.testing.inline import InlineDeputy

USER = 62
WEEK = 7 * 86400


def test_a_round_left_is_offered_once_and_a_week_on_the_negotiation_gets_its_digest(redis: Redis) -> None:
    clock = ManualClock(1_800_000_000.0)
    world = NegotiationWorld()
    world.add("market:c1", Counterpart("Alex", Temperament.honest, limit=15200, worst=11000))
    script = iter([
        tool_call("offer", to="market:c1", amount=16200),
        tool_call("read_messages", conversation_id="c1"),
        tool_call("offer", to="market:c1", amount=15900),
        lambda: clock.advance(8 * 86400),  # a week goes by before their next reply is read
        tool_call("read_messages", conversation_id="c1"),
        tool_call("reply", text="waiting for Alex"),
    ])

    def decide(messages, tools):
        step = next(script, None)
        if step is None:  # the reply was sent back once (it named no figure the records hold): say it again
            return tool_call("reply", text="waiting for Alex")
        if callable(step):
            step()
            step = next(script)
        return step

    rig = InlineDeputy(redis, FunctionModel(decide), negotiation_catalog(), world.runners(), clock=clock)
    MandateStore(redis).put(USER, "g-neg", CAR.model_copy(update={"max_rounds": 3}))
    rig.start(USER, "Sell my Civic on the marketplace", goal_id="g-neg")

    offers = [m for m in rig.messages() if m.text.startswith("💡 my 2017 Honda Civic")]
    assert len(offers) == 1, "offered once, though the next round was still one short"
    [offer] = offers
    assert offer.text == ("💡 my 2017 Honda Civic, with market:c1: one round left before I stop and ask you "
                          "(2 of 3 used). To change the mandate, press Edit and send /negotiate change 5 rounds; "
                          "press Keep and I go on as it is.")
    assert [(b.text, b.sign) for b in offer.buttons[0]] == [("Edit", "na:g-neg"), ("Keep", "gk:g-neg")]
    assert offer.proactive, "unprompted: held in quiet hours"

    [digest] = [m for m in rig.messages() if m.text.startswith("🗞 Weekly digest: negotiating my 2017 Honda Civic")]
    state = MandateStore(redis).get(USER, "g-neg")[1]
    thread = state.thread("market:c1")
    theirs = sum(1 for r in thread.history if r.who == "them")
    assert f"• market:c1: 2 offers from me, {theirs} messages from them; round 2/3" in digest.text
    assert theirs == 2
    if thread.their_last is not None:
        assert f"their last ${thread.their_last:,.0f}, mine $15,900" in digest.text
        assert "• Best offer so far: $" in digest.text


def test_an_offer_just_past_the_floor_offers_that_figure_as_the_new_floor() -> None:
    mandate = CAR
    state = record_ours(NegotiationState(), "market:c1", Decimal(15000), "I can do $15,000.", 1.0)
    state = record_theirs(state, "market:c1", "Best I can do is $13,600, cash today.", mandate, 2.0)
    [near] = [n for n in nearing(mandate, state, "market:c1", 3.0) if n.kind == "limit"]
    assert near.text == "their offer of $13,600 is only $400 past your floor of $14,000"
    assert near.change == "at least $13,600"
    far = record_theirs(state, "market:c1", "OK, $12,000 then.", mandate, 4.0)
    assert not [n for n in nearing(mandate, far, "market:c1", 5.0) if n.kind == "limit"], "far past: nothing offered"


def test_a_no_offer_walk_away_one_round_away_and_the_digest_lines() -> None:
    mandate = CAR.model_copy(update={"walk_away": ["no offer above $14,500 after 3 rounds"], "max_rounds": 6})
    state = NegotiationState()
    for at, ours, theirs in ((1.0, 16200, "$13,000"), (2.0, 15800, "$13,400")):
        state = record_ours(state, "market:c1", Decimal(ours), f"${ours}", at)
        state = record_theirs(state, "market:c1", f"I'd pay {theirs}.", mandate, at + 0.5)
    kinds = {n.kind: n.text for n in nearing(mandate, state, "market:c1", 3.0)}
    assert kinds["no_offer"] == ("one more round without a better offer and your walk-away “no offer above $14,500 "
                                 "after 3 rounds” is met (their best so far: $13,400)")
    assert digest_lines(mandate, state, 1.5) == [
        "• market:c1: 1 offer from me, 1 message from them; round 2/6; their last $13,400, mine $15,800",
        "• Best offer so far: $13,400, $2,100 from your target of $15,500."]
