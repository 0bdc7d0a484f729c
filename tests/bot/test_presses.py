"""Approve/Deny presses, from the button data to the executor's queue, on real Redis.

What a user sees: pressing Approve on their card says so, marks the card and hands the
action to the executor exactly once; pressing again, pressing someone else's button,
made-up data and late presses are all answered plainly and start nothing.
"""

from __future__ import annotations

import time

import pytest
from redis import Redis
from rq import Queue
from rq.job import Job
from rq.serializers import JSONSerializer

from deputy.agent.goals import Goal, GoalStatus
from deputy.bot.presses import FORGED, decide_press
from deputy.bot.services import BotServices
from deputy.core.records.ids import new_id
from deputy.sentinel.stores.approvals import ApprovalRequest, ApprovalStatus, Choice, new_approval_id
from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.core.records.payloads import ACTIONS_QUEUE
from deputy.sentinel.action_lifecycle import ActionEvent

OWNER, STRANGER = 101, 202
SECRET = "press-test-secret"
# Approval records get a Redis expiry derived from `expires_at`, so the fixed time is realistic.
NOW = float(int(time.time()))


@pytest.fixture
def services(redis: Redis) -> BotServices:
    services = BotServices.create(redis, SECRET, None)
    services.clock = lambda: NOW
    return services


@pytest.fixture
def actions_queue(redis: Redis) -> Queue:
    return Queue(ACTIONS_QUEUE, connection=redis, serializer=JSONSerializer)


@pytest.fixture
def request_(services: BotServices) -> ApprovalRequest:
    """A goal waiting for the owner's OK on one email, as the executor leaves it."""
    goal = services.goals.save(
        Goal(
            id=new_id("g"), user_id=OWNER, chat_id=OWNER, text="email alice@example.org that I'm late",
            status=GoalStatus.waiting_approval, step=1, created_at=NOW, updated_at=NOW,
        )
    )
    request = ApprovalRequest(
        id=new_approval_id(), action_id="a_0123456789abcdef0123", goal_id=goal.id, user_id=OWNER, chat_id=OWNER,
        fingerprint="f" * 64, reasons=["it sends a message on your behalf to alice@example.org"],
        created_at=NOW, expires_at=NOW + 3600,
    )
    services.approvals.create(request)
    return request


def button(services: BotServices, request: ApprovalRequest, choice: Choice = Choice.approve) -> str:
    return services.signer.button_data(request.id, choice, request.user_id)


def status_of(services: BotServices, request: ApprovalRequest) -> ApprovalStatus:
    return services.approvals.get(request.id)[1]


def test_the_owners_approve_hands_the_action_to_the_executor_once(
    redis: Redis, services: BotServices, request_: ApprovalRequest, actions_queue: Queue
) -> None:
    answer = decide_press(services, button(services, request_), OWNER)

    assert "Approved" in answer.toast and not answer.alert
    assert answer.card_suffix and "Approved" in answer.card_suffix
    assert status_of(services, request_) is ApprovalStatus.approved
    assert actions_queue.count == 1
    job = Job.fetch(actions_queue.job_ids[0], connection=redis, serializer=JSONSerializer)
    payload = job.args[0]
    assert (payload["action_id"], payload["goal_id"], payload["approval_id"], payload["step"]) == (
        request_.action_id, request_.goal_id, request_.id, 1
    )
    assert [e.kind for e in services.audit.entries(OWNER)] == ["approval_decided"]


def test_deny_is_recorded_and_handed_on_so_the_agent_learns_it(
    services: BotServices, request_: ApprovalRequest, actions_queue: Queue
) -> None:
    answer = decide_press(services, button(services, request_, Choice.deny), OWNER)
    assert "Denied" in answer.toast and "Denied" in answer.card_suffix
    assert status_of(services, request_) is ApprovalStatus.denied
    assert actions_queue.count == 1


@pytest.mark.parametrize("second", [Choice.approve, Choice.deny])
def test_a_second_press_counts_for_nothing(
    services: BotServices, request_: ApprovalRequest, actions_queue: Queue, second: Choice
) -> None:
    decide_press(services, button(services, request_), OWNER)
    again = decide_press(services, button(services, request_, second), OWNER)

    assert "already approved" in again.toast
    assert again.card_suffix is None
    assert status_of(services, request_) is ApprovalStatus.approved
    assert actions_queue.count == 1


def test_a_press_replayed_after_the_bot_died_before_handing_it_on_hands_it_on(
    services: BotServices, request_: ApprovalRequest, actions_queue: Queue
) -> None:
    """The decision reached Redis, the executor's job did not (the bot died in between): the
    replayed press finds the action still waiting and hands it to the executor."""
    action = Action(id=request_.action_id, goal_id=request_.goal_id, user_id=OWNER, chat_id=OWNER, connector="email",
                    operation="send_email", effect=EffectClass.communicate, arguments={}, tool_call_id="t",
                    created_at=NOW)
    services.actions.submit(action)
    services.actions.apply(action.id, ActionEvent.ask, approval_id=request_.id)
    services.approvals.decide(request_.id, OWNER, Choice.approve, NOW)  # recorded; then the bot died
    assert actions_queue.count == 0

    again = decide_press(services, button(services, request_), OWNER)
    assert "already approved" in again.toast
    assert actions_queue.count == 1


@pytest.mark.parametrize(
    "data",
    ["", "garbage", "ap1:abc:y:AAAAAAAAAAAAAAAAAAAAAA", "ap1:" + "x" * 5000 + ":y:sig"],
    ids=["empty", "garbage", "made-up-signature", "very-long"],
)
def test_forged_data_is_refused_and_starts_nothing(
    services: BotServices, request_: ApprovalRequest, actions_queue: Queue, data: str
) -> None:
    assert decide_press(services, data, OWNER) == FORGED
    assert FORGED.alert and FORGED.card_suffix is None
    assert status_of(services, request_) is ApprovalStatus.pending
    assert actions_queue.count == 0
    assert [e.kind for e in services.audit.entries(OWNER)] == ["press_rejected"]


def test_a_forged_approve_for_a_real_request_is_refused(
    services: BotServices, request_: ApprovalRequest, actions_queue: Queue
) -> None:
    """The real approval id with a signature made up by whoever knows it."""
    prefix, approval_id, _, signature = button(services, request_, Choice.deny).split(":")
    assert decide_press(services, f"{prefix}:{approval_id}:y:{signature}", OWNER) == FORGED
    assert status_of(services, request_) is ApprovalStatus.pending
    assert actions_queue.count == 0


def test_another_user_pressing_the_owners_button_is_refused(
    services: BotServices, request_: ApprovalRequest, actions_queue: Queue
) -> None:
    """Button data forwarded to (or copied by) someone else is worthless to them."""
    assert decide_press(services, button(services, request_), STRANGER) == FORGED
    assert status_of(services, request_) is ApprovalStatus.pending
    assert actions_queue.count == 0
    # The owner's own press still works afterwards.
    assert "Approved" in decide_press(services, button(services, request_), OWNER).toast
    assert actions_queue.count == 1


def test_a_press_after_expiry_is_told_it_expired(
    services: BotServices, request_: ApprovalRequest, actions_queue: Queue
) -> None:
    services.clock = lambda: request_.expires_at + 1
    answer = decide_press(services, button(services, request_), OWNER)

    assert "expired" in answer.toast and "nothing was done" in answer.toast
    assert answer.card_suffix and "Expired" in answer.card_suffix
    assert status_of(services, request_) is ApprovalStatus.expired
    # Handed on only so the executor records the action as expired and the agent can say so.
    [job_id] = actions_queue.job_ids
    assert Job.fetch(job_id, connection=services.redis, serializer=JSONSerializer).args[0]["approval_id"] == request_.id


def test_a_repeat_press_after_expiry_is_still_told_it_expired(
    services: BotServices, request_: ApprovalRequest
) -> None:
    services.clock = lambda: request_.expires_at + 1
    decide_press(services, button(services, request_), OWNER)
    again = decide_press(services, button(services, request_), OWNER)
    assert "expired" in again.toast and "already" not in again.toast


def test_a_press_for_a_request_that_no_longer_exists(services: BotServices, actions_queue: Queue) -> None:
    data = services.signer.button_data("gone12345678", Choice.approve, OWNER)
    answer = decide_press(services, data, OWNER)
    assert "can't find" in answer.toast and "nothing was done" in answer.toast
    assert actions_queue.count == 0


def test_non_ascii_button_data_is_refused_as_forged(
    services: BotServices, request_: ApprovalRequest, actions_queue: Queue
) -> None:
    assert decide_press(services, f"ap1:{request_.id}:y:✓✓✓✓", OWNER) == FORGED
    assert actions_queue.count == 0


@pytest.mark.parametrize("choice, says, suffix", [
    (Choice.approve, "Trying it once more", "Trying again"),
    (Choice.deny, "Dropped", "Dropped"),
])
def test_an_outcome_unknown_card_counts_one_choice_of_its_owner(
    services: BotServices, request_: ApprovalRequest, actions_queue: Queue, choice: Choice, says: str, suffix: str
) -> None:
    """Try again / Drop it: signed, owner-only, counted once, like Approve / Deny."""
    unknown = request_.model_copy(update={"id": new_approval_id(), "kind": "outcome_unknown"})
    services.approvals.create(unknown)
    data = button(services, unknown, choice)

    assert decide_press(services, data, STRANGER) == FORGED
    answer = decide_press(services, data, OWNER)
    assert says in answer.toast and suffix in (answer.card_suffix or "")
    assert actions_queue.count == 1
    again = decide_press(services, data, OWNER)
    assert "already chose" in again.toast
    assert actions_queue.count == 1
