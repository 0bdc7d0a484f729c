"""Undo on a change made without a card: begun once by the press, reverted by the connector, and
honest when it could not be."""

from __future__ import annotations

import pytest
from redis import Redis

from deputy.agent.goals import GoalStore
from deputy.agent.model.testing import FunctionModel, message_text, tool_call
from deputy.bot.presses import decide_press
from deputy.bot.services import BotServices
from deputy.core.records.effects import ConnectorError, ConnectorRejected, OperationResult
from deputy.core.records.undo_store import STUCK, UNDO_PERIOD, UndoEntry, UndoRefused, UndoState, request
from deputy.executor.review_context import ReviewContextBuilder
from deputy.sandbox.world_operations import world_catalog
from deputy.testing.inline import InlineDeputy

USER = 91


class Rig(InlineDeputy):
    def __init__(self, redis: Redis) -> None:
        self.reverted: list[dict] = []
        self.fail_next: ConnectorError | None = None
        catalog = world_catalog()
        runners = {"calendar.create_event": lambda action, key: OperationResult(
            summary="Created.", undo={"kind": "delete", "uid": key})}
        super().__init__(redis, FunctionModel(self._model), catalog, runners,
                         contexts=ReviewContextBuilder(redis, GoalStore(redis), catalog),
                         executor_options={"reverters": {"calendar": self._revert}})
        self.services = BotServices.create(redis, "s3cret", None)
        self.services.dispatch, self.services.clock = self.dispatch, self.clock

    def _revert(self, action, undo) -> str:
        if self.fail_next is not None:
            failure, self.fail_next = self.fail_next, None
            raise failure
        self.reverted.append(undo)
        return "Removed “Piano” from your calendar."

    @staticmethod
    def _model(messages, tools):
        if any(m.get("role") == "tool" for m in messages):
            return tool_call("reply", text="Done.")
        return tool_call("create_event", title="Piano", start="2026-12-10T14:00", end="2026-12-10T15:00")

    def press_undo(self, action_id: str) -> str:
        answer = decide_press(self.services, self.services.buttons.data("uw", action_id, USER), USER)
        self.dispatch.drain()
        return answer.toast


def test_undo_reverts_through_the_connector_once_and_says_what_it_did(redis: Redis) -> None:
    rig = Rig(redis)
    goal = rig.start(USER, "put piano on 2026-12-10 from 14:00 to 15:00 in my calendar", goal_id="g_uw")
    action_id = next(r.action.id for r in rig.stored_actions(USER))
    [shown] = [m for m in rig.messages() if m.ref == f"shown:{action_id}"]
    assert shown.text.startswith("📅 Added to your calendar") and [b.text for b in shown.buttons[0]] == ["Undo"]
    assert goal.status.value == "done"
    assert "Undoing" in rig.press_undo(action_id)
    assert rig.reverted == [{"kind": "delete", "uid": action_id}]
    assert any(text.startswith("↩️ Undone: Removed “Piano”") for text in rig.sent())
    assert "already undone" in rig.press_undo(action_id)
    assert len(rig.reverted) == 1


def piano_added(rig: Rig, goal_id: str) -> str:
    """The id of the calendar change a goal made without a card."""
    rig.start(USER, "put piano on 2026-12-10 from 14:00 to 15:00 in my calendar", goal_id=goal_id)
    return next(r.action.id for r in rig.stored_actions(USER))


def test_an_undo_that_fails_says_so_and_can_be_pressed_again(redis: Redis) -> None:
    rig = Rig(redis)
    action_id = piano_added(rig, "g_uw2")
    rig.fail_next = ConnectorError("The calendar server did not answer.")
    rig.press_undo(action_id)
    assert any("couldn't undo it: The calendar server did not answer" in text for text in rig.sent())
    rig.press_undo(action_id)
    assert len(rig.reverted) == 1


def test_an_undo_the_service_refuses_says_why_without_inviting_another_press(redis: Redis) -> None:
    rig = Rig(redis)
    action_id = piano_added(rig, "g_uw3")
    rig.fail_next = ConnectorRejected("The email is no longer in Archive (it was moved or deleted since).")
    rig.press_undo(action_id)
    [said] = [text for text in rig.sent() if "couldn't undo it" in text]
    assert said == "⚠️ I couldn't undo it: The email is no longer in Archive (it was moved or deleted since)."


def test_undo_is_refused_once_done_while_running_and_after_its_period() -> None:
    entry = UndoEntry(action_id="a", user_id=1, chat_id=1, goal_id="g", until=UNDO_PERIOD, revert={})
    running = request(entry, now=10)
    assert running.state is UndoState.undoing
    with pytest.raises(UndoRefused, match="already"):
        request(running, now=11)
    assert request(running, now=10 + STUCK).state is UndoState.undoing, "a cut-off undo can be begun again"
    with pytest.raises(UndoRefused, match="too late"):
        request(entry, now=UNDO_PERIOD)
