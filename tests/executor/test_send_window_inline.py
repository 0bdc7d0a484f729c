"""A message the guard let through without a card waits in its send window, shown in full:
Undo sends nothing and tells the goal, Send now and the window's end send it once, Edit
sends the user's corrected text. Presses go through the bot's signed buttons."""

from __future__ import annotations

import pytest
from redis import Redis

from deputy.agent.goals import GoalStore
from deputy.agent.model.testing import FunctionModel, message_text, tool_call
from deputy.bot.audit_view import audit_page
from deputy.bot.presses import decide_press
from deputy.bot.send_window_presses import apply_send_edit
from deputy.bot.services import BotServices
from deputy.core.records.actions import ActionState
from deputy.core.records.send_window_store import editing_send_key
from deputy.executor.review_context import ReviewContextBuilder
from deputy.sandbox.world import World
from deputy.sandbox.world_operations import world_catalog
from deputy.sentinel.stores.audit import AuditLog
from deputy.testing.inline import InlineDeputy

USER = 81
BODY = "Lunch is at noon, see you there."


class Rig(InlineDeputy):
    def __init__(self, redis: Redis, window: int = 20, body: str = BODY) -> None:
        self.world = World()
        self.told: list[str] = []
        self.body = body
        catalog = world_catalog()
        super().__init__(redis, FunctionModel(self._model), catalog, self.world.runners(),
                         contexts=ReviewContextBuilder(redis, GoalStore(redis), catalog),
                         executor_options={"send_window": window})
        self.services = BotServices.create(redis, "s3cret", None)
        self.services.dispatch, self.services.clock = self.dispatch, self.clock

    def _model(self, messages, tools):
        results = [message_text(m) for m in messages if m.get("role") == "tool"]
        if not results:
            return tool_call("send_email", to=["bob@example.com"], subject="Lunch", body=self.body)
        self.told.append(results[-1])
        return tool_call("reply", text="Done: model summary")

    def run(self) -> str:
        return self.start(USER, "email bob@example.com that lunch is at noon", goal_id="g_sw").pending_action_id

    def press(self, kind: str, action_id: str, user: int = USER) -> str:
        answer = decide_press(self.services, self.services.buttons.data(kind, action_id, USER), user)
        self.dispatch.drain()
        return answer.toast

    def shown(self):
        return [m for m in self.messages() if m.ref and m.ref.startswith("shown:")]


def test_the_message_waits_shown_in_full_and_goes_out_once_when_its_window_ends(redis: Redis) -> None:
    rig = Rig(redis)
    action_id = rig.run()
    assert rig.world.executed == [], "nothing leaves before the window ends"
    [shown] = rig.shown()
    assert "To: bob@example.com" in shown.text and "Subject: Lunch" in shown.text and BODY in shown.text
    assert [b.text for b in shown.buttons[0]] == ["Undo", "Send now", "Edit"]
    rig.tick(5)
    assert rig.world.executed == [], "a delivery job that comes early sends nothing"
    rig.tick(16)
    assert len(rig.world.executed) == 1
    assert rig.actions.get(action_id).state is ActionState.succeeded
    sent = [m for m in rig.messages() if m.edit_ref == f"shown:{action_id}"]
    assert sent and sent[-1].text.startswith("✉️ Sent this email") and BODY in sent[-1].text
    texts = rig.sent()
    assert texts.index(sent[-1].text) < texts.index("Done: model summary"), "the model's summary follows"
    rig.dispatch.action(action_id, "g_sw", rig.goals.get("g_sw").step)
    rig.dispatch.drain()
    assert len(rig.world.executed) == 1, "a second delivery attempt sends nothing"


def test_undo_sends_nothing_and_the_goal_is_told_the_user_cancelled_it(redis: Redis) -> None:
    rig = Rig(redis)
    action_id = rig.run()
    assert "Nothing was sent" in rig.press("su", action_id)
    rig.tick(30)
    assert rig.world.executed == []
    assert rig.actions.get(action_id).state is ActionState.declined
    assert "cancelled" in rig.told[-1] and "Undo" in rig.told[-1]
    assert "already undone" in rig.press("sn", action_id), "a replayed or late press changes nothing"
    assert rig.world.executed == []


def test_send_now_sends_at_once_and_a_later_undo_is_too_late(redis: Redis) -> None:
    rig = Rig(redis)
    action_id = rig.run()
    rig.press("sn", action_id)
    assert len(rig.world.executed) == 1
    assert "Too late" in rig.press("su", action_id)
    rig.tick(30)
    assert len(rig.world.executed) == 1


def test_edit_sends_the_users_corrected_text_instead(redis: Redis) -> None:
    rig = Rig(redis)
    action_id = rig.run()
    rig.press("se", action_id)
    assert redis.get(editing_send_key(USER)).decode() == action_id
    rig.tick(30)
    assert rig.world.executed == [], "the first window's end does not send a message being corrected"
    assert "sending it now" in apply_send_edit(rig.services, USER, action_id, "Lunch moved to 1pm, sorry!")
    rig.dispatch.drain()
    [sent] = rig.world.executed
    assert sent.arguments["body"] == "Lunch moved to 1pm, sorry!"
    content = [e.detail.get("content") for e in AuditLog(redis).entries(USER) if e.kind == "action_succeeded"]
    assert content and "Lunch moved to 1pm, sorry!" in content[-1] and "To: bob@example.com" in content[-1]
    assert "Lunch moved to 1pm" in audit_page(AuditLog(redis), USER).text, "/audit shows what went out"


def test_a_press_by_someone_else_or_with_forged_data_is_refused(redis: Redis) -> None:
    rig = Rig(redis)
    action_id = rig.run()
    assert "isn't valid for you" in rig.press("su", action_id, user=USER + 1)
    forged = f"su:{action_id}:AAAAAAAAAAAAAAAA"
    assert "isn't valid for you" in decide_press(rig.services, forged, USER).toast
    rig.tick(30)
    assert len(rig.world.executed) == 1


def test_with_no_window_it_goes_at_once_and_is_still_shown_in_full(redis: Redis) -> None:
    # Long, and still what the user asked to say (a body about something else would wait for a card).
    long_body = "Lunch is at noon. " + "See you at the usual table by the window. " * 40
    rig = Rig(redis, window=0, body=long_body)
    rig.run()
    assert len(rig.world.executed) == 1
    [shown] = rig.shown()
    assert shown.text.startswith("✉️ Sent this email") and "press Show all" in shown.text
    assert [b.text for row in shown.buttons for b in row] == ["Show all"]
    rig.press("sf", rig.world.executed[0].id)
    assert any(long_body.strip() in text for text in rig.sent())


@pytest.mark.parametrize("window", [None, 45])
def test_the_users_setting_decides_the_window(redis: Redis, window) -> None:
    from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore

    UserSettingsStore(redis).save(USER, UserSettings(send_window=0 if window is None else window))
    rig = Rig(redis, window=20)
    rig.run()
    assert len(rig.world.executed) == (1 if window is None else 0)


def test_a_corrected_message_whose_sending_was_cut_off_is_tried_again_with_the_correction(redis: Redis) -> None:
    from deputy.core.records.effects import ConnectorOutcomeUnknown
    from deputy.sentinel.stores.approvals import Choice

    rig = Rig(redis)
    send = rig.executor._runners["email.send_email"]
    cut_off = [True]

    def flaky(action, key):  # the first try is cut off midway
        if cut_off:
            cut_off.pop()
            raise ConnectorOutcomeUnknown("The mail server stopped answering midway.")
        return send(action, key)

    rig.executor._runners = {**rig.executor._runners, "email.send_email": flaky}
    action_id = rig.run()
    rig.press("se", action_id)
    apply_send_edit(rig.services, USER, action_id, "Lunch moved to 1pm, sorry!")
    rig.dispatch.drain()
    assert rig.world.executed == [] and rig.actions.get(action_id).state is ActionState.outcome_unknown
    card = rig.cards()[-1]
    assert "Outcome unknown" in card.text
    assert "Lunch moved to 1pm, sorry!" in card.text and BODY not in card.text, "the card shows what may have gone"
    InlineDeputy.press(rig, card.ref.removeprefix("card:"), USER, Choice.approve)  # Try again
    [sent] = rig.world.executed
    assert sent.arguments["body"] == "Lunch moved to 1pm, sorry!"


class _Died(BaseException):
    """The executor process dying mid-send (nothing catches it)."""


def test_a_corrected_message_whose_executor_died_midway_shows_the_correction_on_its_card(redis: Redis) -> None:
    from deputy.core.records.payloads import ActionJob

    rig = Rig(redis)
    dies = [True]

    def dying(action, key):
        if dies:
            dies.pop()
            raise _Died()
        raise AssertionError("not tried again without the user's choice")

    rig.executor._runners = {**rig.executor._runners, "email.send_email": dying}
    action_id = rig.run()
    rig.press("se", action_id)
    apply_send_edit(rig.services, USER, action_id, "Lunch moved to 1pm, sorry!")
    try:
        rig.dispatch.drain()
    except _Died:
        pass
    assert rig.actions.get(action_id).state is ActionState.executing
    rig.executor.handle(ActionJob(action_id=action_id, goal_id="g_sw", step=rig.goals.get("g_sw").step))
    assert rig.actions.get(action_id).state is ActionState.outcome_unknown
    card = rig.cards()[-1]
    assert "Outcome unknown" in card.text
    assert "Lunch moved to 1pm, sorry!" in card.text and BODY not in card.text
