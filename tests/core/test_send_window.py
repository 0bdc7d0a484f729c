"""The send window's states: one of Undo and the delivery wins, an Edit waits for the new text."""

from __future__ import annotations

import pytest
from redis import Redis

from deputy.core.records.send_window import HeldSend, Refused, SendEvent, SendState, advance, window_seconds
from deputy.core.records.send_window_store import SendWindowStore


def waiting(due: float = 20.0) -> HeldSend:
    return HeldSend(action_id="a_1", goal_id="g_1", user_id=5, chat_id=5, due=due)


def test_undo_while_waiting_stops_it_and_the_delivery_then_finds_it_undone() -> None:
    undone = advance(waiting(), SendEvent.undo, now=3)
    assert undone.state is SendState.undone
    with pytest.raises(Refused, match="already undone"):
        advance(undone, SendEvent.due, now=25)


def test_the_delivery_that_came_due_first_makes_a_later_undo_too_late() -> None:
    sending = advance(waiting(), SendEvent.due, now=20)
    assert sending.state is SendState.sending
    with pytest.raises(Refused, match="Too late"):
        advance(sending, SendEvent.undo, now=20.5)
    assert advance(sending, SendEvent.delivered, now=21).state is SendState.sent


def test_a_delivery_job_that_runs_early_does_not_send() -> None:
    with pytest.raises(Refused):
        advance(waiting(due=20), SendEvent.due, now=19.9)


def test_send_now_sends_before_the_window_ends() -> None:
    assert advance(waiting(), SendEvent.send_now, now=1).state is SendState.sending


def test_edit_holds_the_message_until_the_corrected_text_comes_and_sends_that() -> None:
    editing = advance(waiting(due=20), SendEvent.edit, now=5, edit_wait=600)
    assert editing.state is SendState.editing and editing.due == 605
    with pytest.raises(Refused):
        advance(editing, SendEvent.due, now=20)  # the first window's end no longer sends it
    sent = advance(editing, SendEvent.edited, now=30, text="Lunch is at 1pm instead.")
    assert sent.state is SendState.sending and sent.edited_body == "Lunch is at 1pm instead."


def test_an_edit_that_never_gets_its_text_is_dropped_not_sent_unseen() -> None:
    editing = advance(waiting(), SendEvent.edit, now=5, edit_wait=60)
    assert advance(editing, SendEvent.due, now=65).state is SendState.undone
    with pytest.raises(Refused, match="empty"):
        advance(editing, SendEvent.edited, now=6, text="  ")


def test_the_users_choice_beats_the_operators_and_zero_turns_it_off() -> None:
    assert window_seconds(None, 20) == 20
    assert window_seconds(45, 20) == 45
    assert window_seconds(0, 20) == 0


def test_the_store_decides_each_change_once(redis: Redis) -> None:
    store = SendWindowStore(redis)
    assert store.create(waiting())
    assert not store.create(waiting()), "a job run twice keeps the first entry"
    assert store.apply("a_1", SendEvent.undo, now=2).state is SendState.undone
    with pytest.raises(Refused):
        store.apply("a_1", SendEvent.send_now, now=3)
    assert store.get("a_1").state is SendState.undone
    with pytest.raises(Refused, match="can't find"):
        store.apply("a_missing", SendEvent.undo, now=3)
