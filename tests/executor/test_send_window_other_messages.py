"""Not only emails wait in the send window: a chat post and a web form the guard let through
without a card (plain writes, no `communicate` in their spec) are held the same way, shown in
full with Undo / Send now (and Edit where they carry words); Undo sends nothing. A form that
sends what was typed into the open page can't wait, and its shown message says so."""

from __future__ import annotations

from pydantic import BaseModel
from redis import Redis

from deputy.agent.goals import GoalStore
from deputy.agent.model.testing import FunctionModel, message_text, tool_call
from deputy.bot.presses import decide_press
from deputy.bot.send_window_presses import apply_send_edit
from deputy.bot.services import BotServices
from deputy.connectors.catalog import Catalog, Operation
from deputy.connectors.web.operations import SUBMIT_FORM
from deputy.core.records.actions import ActionState
from deputy.core.records.effects import EffectClass, OperationSpec
from deputy.executor.review_context import ReviewContextBuilder
from deputy.testing.inline import InlineDeputy

USER = 82
FORM = {"url": "https://shop.example/contact", "action_url": "https://shop.example/contact",
        "fields": {"order": "A-1001", "message": "The parcel arrived broken."}}


class PostArgs(BaseModel):
    channel: str
    text: str


POST_MESSAGE = Operation(
    OperationSpec(connector="chat", operation="post_message", effect=EffectClass.write,
                  description="Post a message to a team chat channel."),
    PostArgs, targets=lambda a: [a.channel],  # type: ignore[attr-defined]
)


class Rig(InlineDeputy):
    def __init__(self, redis: Redis, call: tuple[str, dict], goal: str) -> None:
        self.ran: list = []
        self.call, self.goal = call, goal
        catalog = Catalog([SUBMIT_FORM, POST_MESSAGE])
        runners = {"web.submit_form": self._record, "chat.post_message": self._record}
        super().__init__(redis, FunctionModel(self._model), catalog, runners,
                         contexts=ReviewContextBuilder(redis, GoalStore(redis), catalog),
                         executor_options={"send_window": 20})
        self.services = BotServices.create(redis, "s3cret", None)
        self.services.dispatch, self.services.clock = self.dispatch, self.clock

    def _record(self, action, key):
        self.ran.append(action)
        return f"Done: {action.operation}"

    def _model(self, messages, tools):
        if not any(m.get("role") == "tool" for m in messages):
            return tool_call(self.call[0], **self.call[1])
        return tool_call("reply", text="Done: " + message_text([m for m in messages if m.get("role") == "tool"][-1]))

    def run(self) -> str:
        return self.start(USER, self.goal, goal_id="g_other").pending_action_id

    def press(self, kind: str, action_id: str) -> str:
        answer = decide_press(self.services, self.services.buttons.data(kind, action_id, USER), USER)
        self.dispatch.drain()
        return answer.toast

    def shown(self):
        return [m for m in self.messages() if m.ref and m.ref.startswith("shown:")]


def post_rig(redis: Redis) -> Rig:
    return Rig(redis, ("post_message", {"channel": "#team", "text": "Standup moves to 10:30 today."}),
               "post in #team that standup moves to 10:30 today")


def form_rig(redis: Redis, form: dict = FORM) -> Rig:
    return Rig(redis, ("submit_form", form),
               "send the contact form at https://shop.example/contact saying my order A-1001 arrived broken")


def test_a_chat_post_waits_shown_in_full_and_undo_posts_nothing(redis: Redis) -> None:
    rig = post_rig(redis)
    action_id = rig.run()
    assert rig.ran == [], "nothing is posted before the window ends"
    [shown] = rig.shown()
    assert shown.text.startswith("⏳ Sending this post") and "Standup moves to 10:30 today." in shown.text
    assert [b.text for b in shown.buttons[0]] == ["Undo", "Send now", "Edit"]
    assert "Nothing was sent" in rig.press("su", action_id)
    rig.tick(30)
    assert rig.ran == []
    assert rig.actions.get(action_id).state is ActionState.declined


def test_a_chat_post_corrected_with_edit_goes_out_with_the_users_words(redis: Redis) -> None:
    rig = post_rig(redis)
    action_id = rig.run()
    rig.press("se", action_id)
    apply_send_edit(rig.services, USER, action_id, "Standup moves to 11:00 today.")
    rig.dispatch.drain()
    [posted] = rig.ran
    assert posted.arguments["text"] == "Standup moves to 11:00 today."


def test_a_web_form_waits_and_goes_once_when_its_window_ends_with_its_message_editable(redis: Redis) -> None:
    rig = form_rig(redis)
    action_id = rig.run()
    assert rig.ran == []
    [shown] = rig.shown()
    assert shown.text.startswith("⏳ Sending this form") and "The parcel arrived broken." in shown.text
    assert [b.text for b in shown.buttons[0]] == ["Undo", "Send now", "Edit"]
    rig.press("se", action_id)
    apply_send_edit(rig.services, USER, action_id, "The parcel arrived broken; please send a new one.")
    rig.dispatch.drain()
    [sent] = rig.ran
    assert sent.arguments["fields"] == {"order": "A-1001", "message": "The parcel arrived broken; please send a new one."}
    rig.tick(30)
    assert len(rig.ran) == 1, "sent once"


def test_a_form_that_sends_what_was_typed_into_the_open_page_goes_at_once_and_says_why(redis: Redis) -> None:
    rig = form_rig(redis, {k: v for k, v in FORM.items() if k != "fields"})
    rig.run()
    assert len(rig.ran) == 1
    [shown] = rig.shown()
    assert "It went at once" in shown.text and "waiting could lose" in shown.text
    assert not any(b.text == "Undo" for row in shown.buttons for b in row)
