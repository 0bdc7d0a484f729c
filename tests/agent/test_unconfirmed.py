"""The line code adds to a goal's ending for each action whose outcome stayed unknown."""

from __future__ import annotations

from deputy.agent.goals import Goal
from deputy.agent.unconfirmed import pass_up, unconfirmed_line, with_caveats
from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass


def action(connector: str, operation: str, targets: list[str]) -> Action:
    return Action(id="a", goal_id="g", user_id=1, chat_id=1, connector=connector, operation=operation,
                  effect=EffectClass.communicate, arguments={}, targets=targets, tool_call_id="t", created_at=0)


def goal(goal_id: str = "g") -> Goal:
    return Goal(id=goal_id, user_id=1, chat_id=1, text="t", messages=[], created_at=0, updated_at=0)


def test_an_email_and_any_other_action_get_their_own_sentence() -> None:
    assert unconfirmed_line(action("email", "send_email", ["bob@example.org"])) == \
        "I couldn't confirm whether the email to bob@example.org was sent."
    assert unconfirmed_line(action("shop", "checkout", ["shop.example"])) == \
        "I couldn't confirm whether shop.checkout (shop.example) happened."


def test_the_caveat_is_said_once_and_a_part_passes_it_to_its_main_goal() -> None:
    part, main = goal("g_part"), goal("g_main")
    part.unconfirmed = [unconfirmed_line(action("email", "send_email", ["bob@example.org"]))]
    pass_up(main, part)
    text = with_caveats(main, "Done.")
    assert text == "Done.\n\n⚠️ I couldn't confirm whether the email to bob@example.org was sent."
    assert with_caveats(main, "Anything else?") == "Anything else?"


def test_a_goal_saved_before_these_lines_still_gets_one() -> None:
    old = goal()
    old.unconfirmed = ["bob@example.org"]  # what older records kept: the targets only
    assert "I couldn't confirm whether this happened: bob@example.org." in with_caveats(old, "Done.")
