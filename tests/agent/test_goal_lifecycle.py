"""The goal lifecycle table: which moves a goal may make, and where each leads."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deputy.agent.goal_lifecycle import (
    ACTIVE,
    GoalEvent,
    IllegalGoalMove,
    NextStep,
    advance,
    allowed,
    hand_on,
    if_waiting_on,
    next_job,
    next_turn,
)
from deputy.agent.goals import Goal, GoalStatus, Monitor

S = GoalStatus


def goal(status: GoalStatus = S.running, **fields) -> Goal:
    return Goal(id="g_life", user_id=1, chat_id=1, text="email bob", status=status, created_at=0, updated_at=0,
                **fields)


@pytest.mark.parametrize("event", list(GoalEvent))
def test_a_cancelled_goal_never_moves_again(event: GoalEvent) -> None:
    with pytest.raises(IllegalGoalMove, match="while cancelled"):
        advance(goal(S.cancelled), event)


@pytest.mark.parametrize("status", ACTIVE)
def test_a_paused_goal_resumes_where_it_was_and_a_card_it_waited_on_is_picked_up_again(status: GoalStatus) -> None:
    paused = advance(goal(status), GoalEvent.pause)
    assert paused.status is S.paused and paused.paused_from is status
    resumed = advance(paused, GoalEvent.resume)
    assert resumed.status is (S.acting if status is S.waiting_approval else status)
    assert resumed.paused_from is None


def test_pausing_twice_keeps_where_it_was_and_a_finished_goal_cannot_be_paused() -> None:
    paused = advance(goal(S.waiting_user), GoalEvent.pause)
    assert not allowed(paused.status, GoalEvent.pause)
    for finished in (S.done, S.failed, S.cancelled):
        assert not allowed(finished, GoalEvent.pause)


def test_an_edit_waits_while_an_action_card_or_parts_are_out_and_starts_a_new_step_otherwise() -> None:
    for busy in (S.acting, S.waiting_approval, S.waiting_children):
        assert not allowed(busy, GoalEvent.edit)
    edited = next_turn(goal(S.done, step=4, steps_base=1), GoalEvent.edit, now=99.0)
    assert (edited.status, edited.step, edited.steps_base, edited.updated_at) == (S.running, 5, 5, 99.0)


def test_only_a_waiting_goal_takes_an_answer_and_only_a_stopped_one_is_retried() -> None:
    with pytest.raises(IllegalGoalMove):
        next_turn(goal(S.running), GoalEvent.answered, now=1.0)
    with pytest.raises(IllegalGoalMove):
        advance(goal(S.done), GoalEvent.retry)
    assert advance(goal(S.failed), GoalEvent.retry).status is S.running


def test_a_step_run_again_after_a_crash_may_repeat_the_move_it_made() -> None:
    assert advance(goal(S.acting), GoalEvent.act).status is S.acting
    assert advance(goal(S.scheduled), GoalEvent.watch).status is S.scheduled
    with pytest.raises(IllegalGoalMove):
        advance(goal(S.done), GoalEvent.act)  # but a finished goal does not start acting again


@settings(max_examples=300)
@given(st.lists(st.sampled_from(list(GoalEvent)), max_size=30))
def test_any_sequence_of_events_keeps_the_goal_in_a_state_that_makes_sense(events: list[GoalEvent]) -> None:
    current = goal(S.running)
    for event in events:
        before = current.status
        if not allowed(before, event):
            with pytest.raises(IllegalGoalMove):
                advance(current, event)
            assert current.status is before, "a refused move changes nothing"
            continue
        advance(current, event)
        assert before is not S.cancelled, "nothing moves a cancelled goal"
        # Paused goals remember an active status to go back to; no other goal carries one.
        assert (current.paused_from is not None) == (current.status is S.paused)
        if current.status is S.paused:
            assert current.paused_from in ACTIVE


# A move names the job that follows it.

def test_the_users_moves_name_the_goals_next_step_and_a_steps_own_moves_name_none() -> None:
    answered = next_turn(goal(S.waiting_user, step=4), GoalEvent.answered, now=10)
    assert next_job(answered) == NextStep("g_life", 5)
    assert next_job(next_turn(goal(S.failed, step=2), GoalEvent.retry, now=10)) == NextStep("g_life", 3)
    # Inside a step: the step that made the move goes on, nothing else is queued.
    for status, event in [(S.running, GoalEvent.act), (S.acting, GoalEvent.observed), (S.running, GoalEvent.finish),
                          (S.acting, GoalEvent.card), (S.running, GoalEvent.ask_user)]:
        assert next_job(advance(goal(status), event)) is None, event
    assert next_job(advance(goal(S.running), GoalEvent.pause)) is None


def test_resuming_between_checks_queues_the_next_check_at_its_time() -> None:
    paused = advance(goal(S.scheduled, step=7, monitor=Monitor(what="is it back in stock?", every_seconds=3600,
                                                                  next_at=5_000)), GoalEvent.pause)
    resumed = advance(paused, GoalEvent.resume)
    assert next_job(resumed) == NextStep("g_life", 7, not_before=5_000)
    queued: list[tuple] = []
    hand_on(resumed, lambda goal_id, step, delay=0: queued.append((goal_id, step, delay)), now=4_000)
    assert queued == [("g_life", 7, 1_000)]


def test_hand_on_queues_only_what_the_last_move_named() -> None:
    queued: list[tuple] = []

    def queue(goal_id: str, step: int, delay: float = 0) -> None:
        queued.append((goal_id, step, delay))

    hand_on(advance(goal(S.waiting_approval, step=3), GoalEvent.approved), queue, now=0)
    hand_on(goal(S.running), queue, now=0)  # as stored: no move was made
    hand_on(None, queue, now=0)  # the goal is gone
    assert queued == [("g_life", 3, 0)]


def test_a_goal_moves_on_an_actions_card_only_while_it_waits_on_that_action() -> None:
    waiting = if_waiting_on("a_1", GoalEvent.card, S.acting)
    assert waiting(goal(S.acting, pending_action_id="a_1")).status is S.waiting_approval
    assert waiting(goal(S.acting, pending_action_id="a_2")) is None  # an earlier action's job, delivered again
    assert waiting(goal(S.paused, pending_action_id="a_1")) is None


def test_an_approved_action_run_again_after_a_crash_hands_the_goal_on_again() -> None:
    again = if_waiting_on("a_1", GoalEvent.approved, S.waiting_approval, S.acting)
    moved = again(goal(S.acting, step=2, pending_action_id="a_1"))
    assert moved is not None and moved.status is S.acting and next_job(moved) == NextStep("g_life", 2)
