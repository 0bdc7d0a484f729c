"""An executor that dies holding an action: it runs again if nothing began, else the user decides.

What a user relies on: an approved email is never silently lost and never sent twice
behind their back. If the executor stopped before anything happened, the email simply
goes out; if it stopped midway, the card says the outcome is unknown with what Deputy
knows, and Try again / Drop it. The goal waits for that choice and its final answer never
claims the email went out.
"""

from __future__ import annotations

import pytest
from redis import Redis
from test_executor_approvals import USER, Rig

from deputy.agent.goals import GoalStatus
from deputy.agent.model.testing import message_text, text, tool_call
from deputy.connectors.progress import report
from deputy.core.records.outbox import OutboxMessage
from deputy.sentinel.action_lifecycle import ActionEvent, after
from deputy.core.records.actions import Action, ActionState
from deputy.sentinel.stores.approvals import ApprovalStatus, Choice

CAVEAT = "I couldn't confirm whether the email to bob@example.com was sent."
KNOWN = "the mail server accepted the connection; I can't tell whether the email went out"


class ProcessKilled(BaseException):
    """Stands for SIGKILL: nothing after it runs in the executor."""


def dying_runner(rig: Rig, deaths: list[str]):
    """The world's email runner, except that it dies midway while `deaths` has entries."""
    real = rig.world.runners()["email.send_email"]

    def run(action: Action, key: str):
        if deaths:
            report(deaths.pop(0))
            raise ProcessKilled()
        return real(action, key)

    return run


def approve_and_die(rig: Rig, deaths: list[str]) -> tuple[str, str]:
    rig.executor._runners["email.send_email"] = dying_runner(rig, deaths)
    rig.start()
    record = rig.pending()
    with pytest.raises(ProcessKilled):
        rig.press(record.approval_id, Choice.approve)
    rig.dispatch._jobs.clear()
    assert rig.actions.get(record.action.id).state is ActionState.executing
    return record.action.id, record.approval_id


def rerun_job(rig: Rig, action_id: str, approval_id: str) -> None:
    """What the watchdog does once the dead executor's lease lapses: the same job again."""
    rig.dispatch.action(action_id, "g_rig", rig.goals.get("g_rig").step, approval_id)
    rig.dispatch.drain()


def unknown_card(rig: Rig) -> OutboxMessage:
    cards = [m for m in rig.cards() if any(b.text == "Try again" for row in m.buttons for b in row)]
    assert len(cards) == 1
    return cards[0]


def test_an_action_whose_executor_died_before_starting_simply_runs(redis: Redis) -> None:
    rig = Rig(redis)
    rig.start()
    record = rig.pending()
    rig.approvals.decide(record.approval_id, USER, Choice.approve, rig.clock())
    assert rig.actions.claim(record.action.id, "dead-executor")  # ...and it died right there

    rerun_job(rig, record.action.id, record.approval_id)
    assert len(rig.world.executed) == 1
    assert rig.actions.get(record.action.id).state is ActionState.succeeded
    assert not [m for m in rig.cards() if "Outcome unknown" in m.text], "nothing to ask: nothing had begun"
    assert rig.goals.get("g_rig").status is GoalStatus.done


def test_an_action_whose_executor_died_midway_gets_an_outcome_unknown_card(redis: Redis) -> None:
    rig = Rig(redis)
    action_id, approval_id = approve_and_die(rig, [KNOWN])
    calls_before = len(rig.model.calls)

    rerun_job(rig, action_id, approval_id)
    assert rig.world.executed == [], "not run again behind the user's back"
    assert rig.actions.get(action_id).state is ActionState.outcome_unknown
    card = unknown_card(rig)
    assert card.edit_ref == f"card:{approval_id}", "the card the user approved says it"
    assert "Outcome unknown" in card.text and KNOWN in card.text and "bob@example.com" in card.text
    assert [b.text for b in card.buttons[0]] == ["Try again", "Drop it"]
    assert rig.goals.get("g_rig").status is GoalStatus.waiting_approval
    assert len(rig.model.calls) == calls_before, "the goal waits for the user's choice"

    # The job running once more (another watchdog, a duplicate) asks nothing new.
    rerun_job(rig, action_id, approval_id)
    assert len([m for m in rig.cards() if "Outcome unknown" in m.text]) == 1


def test_try_again_runs_it_exactly_once_more(redis: Redis) -> None:
    rig = Rig(redis)
    action_id, approval_id = approve_and_die(rig, [KNOWN])
    rerun_job(rig, action_id, approval_id)
    retry_id = unknown_card(rig).buttons[0][0].data.split(":")[1]

    rig.press(retry_id, Choice.approve)
    rig.press(retry_id, Choice.approve)  # a second press counts for nothing
    assert len(rig.world.executed) == 1
    assert rig.actions.get(action_id).state is ActionState.succeeded
    assert rig.goals.get("g_rig").status is GoalStatus.done
    assert message_text(rig.model.calls[-1][0][-1]).startswith("Done: send_email"), "the goal learns it ran"


def test_drop_it_records_it_dropped_and_the_goal_is_told_the_truth(redis: Redis) -> None:
    rig = Rig(redis)
    action_id, approval_id = approve_and_die(rig, [KNOWN])
    rerun_job(rig, action_id, approval_id)
    drop_id = unknown_card(rig).buttons[0][1].data.split(":")[1]

    rig.press(drop_id, Choice.deny)
    assert rig.world.executed == []
    record = rig.actions.get(action_id)
    assert record.state is ActionState.dropped
    told = message_text(rig.model.calls[-1][0][-1])
    assert "outcome is unknown" in told and "chose to drop it" in told and KNOWN in told
    assert rig.goals.get("g_rig").status is GoalStatus.done


def test_a_retry_that_dies_midway_again_gets_a_new_card(redis: Redis) -> None:
    rig = Rig(redis)
    action_id, approval_id = approve_and_die(rig, [KNOWN, KNOWN])
    rerun_job(rig, action_id, approval_id)
    retry_id = unknown_card(rig).buttons[0][0].data.split(":")[1]
    with pytest.raises(ProcessKilled):
        rig.press(retry_id, Choice.approve)
    rig.dispatch._jobs.clear()
    rerun_job(rig, action_id, retry_id)
    cards = [m for m in rig.cards() if "Outcome unknown" in m.text]
    assert len(cards) == 2, "the same note, but another run: a new card"
    assert rig.approvals.get(retry_id)[1] is ApprovalStatus.approved


def test_an_executor_presumed_dead_cannot_start_or_record_after_another_took_over(redis: Redis) -> None:
    rig = Rig(redis)
    rig.start()
    action_id = rig.pending().action.id
    rig.redis.hset(f"deputy:action:{action_id}", "state", "awaiting_approval")
    assert rig.actions.claim(action_id, "paused-executor")
    assert rig.actions.lost(rig.actions.get(action_id)) is ActionState.awaiting_approval
    assert rig.actions.claim(action_id, "new-executor")
    assert not rig.actions.progress(action_id, "paused-executor", "started"), "it must not begin"
    assert not rig.actions.finish(action_id, "paused-executor", ActionEvent.succeed, "Sent")
    assert rig.actions.progress(action_id, "new-executor", "started")


def test_the_lifecycle_allows_only_its_moves() -> None:
    S = ActionState
    assert after(S.executing, ActionEvent.lost_before_start, approved=True) is S.awaiting_approval
    assert after(S.executing, ActionEvent.lost_before_start) is S.submitted
    assert after(S.executing, ActionEvent.lost_midway) is S.outcome_unknown
    assert after(S.outcome_unknown, ActionEvent.retry) is S.executing
    assert after(S.outcome_unknown, ActionEvent.drop) is S.dropped
    assert after(S.outcome_unknown, ActionEvent.claim) is None, "only the user's Try again runs it again"
    assert after(S.succeeded, ActionEvent.retry) is None
    assert after(S.dropped, ActionEvent.retry) is None
    assert not S.outcome_unknown.terminal and S.dropped.terminal


def test_a_model_that_says_done_after_a_drop_cannot_mislead_the_user(redis: Redis) -> None:
    """Whatever the model claims, the answer says the outcome of the dropped email is unknown."""
    rig = Rig(redis)
    action_id, approval_id = approve_and_die(rig, [KNOWN])
    rerun_job(rig, action_id, approval_id)
    rig.model.fn = lambda messages, tools: tool_call("reply", text="Done.")
    rig.press(unknown_card(rig).buttons[0][1].data.split(":")[1], Choice.deny)

    answer = [m for m in rig.messages() if m.text.startswith("Done.")][-1]
    assert CAVEAT in answer.text


def test_a_plain_text_done_after_a_drop_carries_the_caveat_too(redis: Redis) -> None:
    """Hosted models often end with plain text instead of the reply tool: the line is there all the same."""
    rig = Rig(redis)
    action_id, approval_id = approve_and_die(rig, [KNOWN])
    rerun_job(rig, action_id, approval_id)
    rig.model.fn = lambda messages, tools: text("Done.")
    rig.press(unknown_card(rig).buttons[0][1].data.split(":")[1], Choice.deny)

    answer = [m for m in rig.messages() if m.text.startswith("Done.")][-1]
    assert CAVEAT in answer.text
    assert rig.goals.get("g_rig").status is GoalStatus.done
