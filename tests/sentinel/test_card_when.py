"""What a card says about when an event happens."""

from __future__ import annotations

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.sentinel.cards import detail_lines


def event_action(operation: str, **arguments: object) -> Action:
    return Action(id="a1", goal_id="g1", user_id=1, chat_id=1, connector="calendar", operation=operation,
                  tool_call_id="c1", created_at=0.0,
                  effect=EffectClass.write, arguments=arguments)


def test_moving_an_event_to_a_day_alone_says_the_time_of_day_stays() -> None:
    lines = detail_lines(event_action("move_event", event_id="personal/e1", start="2026-12-17"))
    assert "When: Thu 17 Dec, at the same time of day" in lines
    created = detail_lines(event_action("create_event", title="Holiday", start="2026-12-17"))
    assert "When: Thu 17 Dec (all day)" in created
