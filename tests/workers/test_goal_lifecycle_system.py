"""Random sequences of what users and machines do to goals keep the lifecycle's promises.

Hypothesis drives the real runner, executor, guard and the bot's goal controls (on real
Redis, inline) through random interleavings of new goals, approvals, denials, pauses,
resumes, edits, cancels, expired cards and crashed jobs run again, and checks after
every move what a user relies on:
- an action runs at most once, and only after its owner approved its card;
- a cancelled goal never runs another step and nothing of it is sent afterwards;
- every goal that is not finished waits for exactly one thing: its card, the user's
  answer, or the user's Resume; none is left running with nothing queued to run it.
"""

from __future__ import annotations

import dataclasses
import re

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test
from redis import Redis

from deputy.agent.goals import Goal, GoalStatus, GoalStore
from deputy.agent.model.testing import FunctionModel, message_text, tool_call
from deputy.bot.goal_controls import apply_edit, press_goal_control
from deputy.bot.services import BotServices
from deputy.core.records.actions import ActionState
from deputy.testing.stack import ask_before_sending
from deputy.executor.review_context import ReviewContextBuilder, stored_rules
from deputy.sandbox.world import World
from deputy.sandbox.world_operations import world_catalog
from deputy.sentinel.stores.approvals import ApprovalStatus, Choice
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.testing.inline import InlineDeputy

USERS = (501, 502, 503)
TTL = 600
_ADDRESS = re.compile(r"[\w.]+@example\.com")


def email_then_report(messages, tools):
    """Emails whoever the latest words of the user name; once the result is back, reports it."""
    spoken = [i for i, m in enumerate(messages) if m.get("role") == "user"]
    since = messages[spoken[-1] + 1:] if spoken else messages
    results = [message_text(m) for m in since if m.get("role") == "tool"]
    if results:
        return tool_call("reply", text=f"Outcome: {results[-1][:80]}")
    recipient = _ADDRESS.findall(" ".join(message_text(messages[i]) for i in spoken))[-1]
    return tool_call("send_email", to=[recipient], subject="Hello", body="Lunch is at noon.")


class GoalLifecycle(RuleBasedStateMachine):
    redis: Redis  # set by the test

    def __init__(self) -> None:
        super().__init__()
        self.redis.flushdb()
        self.world = World()
        catalog = world_catalog()
        contexts = ReviewContextBuilder(self.redis, GoalStore(self.redis), catalog,
                                        rules=stored_rules(RuleStore(self.redis)))
        self.deputy = InlineDeputy(self.redis, FunctionModel(email_then_report), catalog, self.world.runners(),
                                   approval_ttl=TTL, contexts=contexts)
        services = BotServices.create(self.redis, "lifecycle-secret", None)
        self.bot = dataclasses.replace(services, dispatch=self.deputy.dispatch, clock=self.deputy.clock)
        for user in USERS:
            ask_before_sending(self.redis, user)  # every email waits for its card
        self.goal_of: dict[int, str] = {}
        self.approved: set[str] = set()  # approval ids the owner approved
        self.frozen: dict[str, tuple[int, int]] = {}  # cancelled goal -> (its step, emails sent) then

    # -- what happens -----------------------------------------------------------------

    @rule(user=st.sampled_from(USERS))
    def a_user_texts_a_goal(self, user: int) -> None:
        if user in self.goal_of:
            return
        self.goal_of[user] = self.deputy.start(user, f"email friend{user}@example.com that lunch is at noon").id

    @rule(user=st.sampled_from(USERS), choice=st.sampled_from([Choice.approve, Choice.deny]))
    def the_owner_answers_the_card(self, user: int, choice: Choice) -> None:
        approval_id = self._open_card(user)
        if approval_id is None:
            return
        if choice is Choice.approve:
            self.approved.add(approval_id)
        self.deputy.press(approval_id, user, choice)

    @rule(user=st.sampled_from(USERS), control=st.sampled_from(["gp", "gr", "gx"]))
    def the_owner_presses_pause_resume_or_stop(self, user: int, control: str) -> None:
        goal = self._goal(user)
        if goal is None:
            return
        if control == "gx" and not goal.status.finished:
            self.frozen[goal.id] = (goal.step, len(self._sent(goal.id)))
        press_goal_control(self.bot, control, goal.id, user)
        self.deputy.dispatch.drain()

    @rule(user=st.sampled_from(USERS))
    def the_owner_edits_the_goal(self, user: int) -> None:
        goal = self._goal(user)
        if goal is not None:
            apply_edit(self.bot, goal.id, user, f"actually email other{user}@example.com instead")
            self.deputy.dispatch.drain()

    @rule(user=st.sampled_from(USERS))
    def a_card_expires(self, user: int) -> None:
        approval_id = self._open_card(user)
        if approval_id is not None:
            self.deputy.clock.advance(TTL + 1)
            self.deputy.executor.expire(approval_id)
            self.deputy.dispatch.drain()

    @rule(user=st.sampled_from(USERS))
    def a_crashed_step_job_runs_again(self, user: int) -> None:
        goal = self._goal(user)
        if goal is not None:
            for step in {max(goal.step - 1, 0), goal.step}:
                self.deputy.dispatch.step(goal.id, step)
            self.deputy.dispatch.drain()

    @precondition(lambda self: bool(self.world.executed))
    @rule(data=st.data())
    def an_action_job_is_delivered_twice(self, data: st.DataObject) -> None:
        action = data.draw(st.sampled_from(self.world.executed))
        record = self.deputy.actions.get(action.id)
        self.deputy.dispatch.action(action.id, action.goal_id, self.deputy.goal(action.goal_id).step,
                                    record.approval_id if record else None)
        self.deputy.dispatch.drain()

    # -- what must hold ---------------------------------------------------------------

    @invariant()
    def each_action_runs_at_most_once_and_only_after_its_owner_approved_it(self) -> None:
        ids = [action.id for action in self.world.executed]
        assert len(ids) == len(set(ids)), f"an action ran twice: {ids}"
        for action in self.world.executed:
            record = self.deputy.actions.get(action.id)
            assert record is not None and record.approval_id in self.approved, f"{action.id} ran without approval"

    @invariant()
    def a_cancelled_goal_stays_still(self) -> None:
        for goal_id, (step, sent) in self.frozen.items():
            goal = self.deputy.goal(goal_id)
            assert goal.status is GoalStatus.cancelled
            assert goal.step == step, "a cancelled goal ran another step"
            assert len(self._sent(goal_id)) == sent, "something was sent for a cancelled goal"

    @invariant()
    def every_unfinished_goal_waits_for_exactly_one_thing(self) -> None:
        assert not self.deputy.dispatch._jobs, "every move ran to completion"
        for user, goal_id in self.goal_of.items():
            goal = self.deputy.goal(goal_id)
            waits_for = []
            record = self.deputy.actions.get(goal.pending_action_id or "")
            card = self.deputy.approvals.get(record.approval_id) if record and record.approval_id else None
            if card is not None and card[1] is ApprovalStatus.pending and \
                    record.state is ActionState.awaiting_approval:
                waits_for.append("its card")
            if self.redis.get(f"deputy:user:{user}:awaiting") == goal_id.encode():
                waits_for.append("the user's answer")
            if goal.status is GoalStatus.paused:
                waits_for = ["the user's Resume"]  # its card, if it had one, waits along with it
            if goal.status.finished:
                assert waits_for == [], f"a {goal.status.value} goal still waits for {waits_for}"
                continue
            assert goal.status not in (GoalStatus.running, GoalStatus.acting), \
                f"{goal.status.value} with nothing queued to run it"
            assert len(waits_for) == 1, f"{goal.status.value} goal waits for {waits_for or 'nothing'}"

    def _goal(self, user: int) -> Goal | None:
        goal_id = self.goal_of.get(user)
        return self.deputy.goal(goal_id) if goal_id else None

    def _open_card(self, user: int) -> str | None:
        goal = self._goal(user)
        record = self.deputy.actions.get(goal.pending_action_id or "") if goal else None
        return record.approval_id if record is not None else None

    def _sent(self, goal_id: str) -> list:
        return [action for action in self.world.executed if action.goal_id == goal_id]


def test_random_lives_of_goals_keep_the_lifecycle_promises(redis: Redis) -> None:
    machine = type("Machine", (GoalLifecycle,), {"redis": redis})
    run_state_machine_as_test(machine, settings=settings(
        max_examples=25, stateful_step_count=25, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]))


def test_stopping_a_goal_closes_its_open_card_and_a_late_approve_sends_nothing(redis: Redis) -> None:
    machine = type("Machine", (GoalLifecycle,), {"redis": redis})()
    machine.a_user_texts_a_goal(501)
    approval_id = machine._open_card(501)
    assert approval_id is not None

    machine.the_owner_presses_pause_resume_or_stop(501, "gx")
    edits = [m for m in machine.deputy.messages() if m.edit_ref == f"card:{approval_id}"]
    assert len(edits) == 1 and "You stopped this goal, so this was not done." in edits[0].text
    assert not edits[0].buttons, "the closed card has no buttons left"

    machine.deputy.press(approval_id, 501, Choice.approve)  # an old copy of the card, tapped anyway
    assert machine.world.executed == []
    assert machine.deputy.goal(machine.goal_of[501]).status is GoalStatus.cancelled


def test_a_goal_paused_at_its_card_and_resumed_still_says_it_waits_for_the_card(redis: Redis) -> None:
    machine = type("Machine", (GoalLifecycle,), {"redis": redis})()
    machine.a_user_texts_a_goal(502)
    machine.the_owner_presses_pause_resume_or_stop(502, "gp")
    machine.the_owner_presses_pause_resume_or_stop(502, "gr")
    assert machine.deputy.goal(machine.goal_of[502]).status is GoalStatus.waiting_approval

    machine.the_owner_answers_the_card(502, Choice.approve)
    assert [a.arguments["to"] for a in machine.world.executed] == [["friend502@example.com"]]
    assert machine.deputy.goal(machine.goal_of[502]).status is GoalStatus.done
