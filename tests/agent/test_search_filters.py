"""Search filters come from the user's words, never from the model filling every parameter."""

from __future__ import annotations

import pytest

from deputy.agent.search_filters import unasked_filters_dropped
from deputy.connectors.catalog import InvalidArguments
from deputy.connectors.default import default_catalog

SEARCH = default_catalog().get("search_email")
SEND = default_catalog().get("send_email")
FILLED = {"from": "dave@example.com", "since": "2026-11-29", "unseen": True, "folder": "INBOX", "limit": 10}


def test_a_search_keeps_only_the_filters_the_user_asked_for() -> None:
    # "find the emails from dave" searched only today's unread mail and found nothing.
    kept = unasked_filters_dropped(SEARCH, FILLED, ["Find the emails from dave@example.com"])
    assert kept == {"from": "dave@example.com", "folder": "INBOX", "limit": 10}
    SEARCH.validate(kept)


@pytest.mark.parametrize(
    ("words", "kept"),
    [
        ("Do I have any unread emails from dave@example.com?", {"unseen"}),
        ("What did dave@example.com send me since Monday?", {"since"}),
        ("Any new mail from dave@example.com this week?", {"since", "unseen"}),
    ],
)
def test_a_filter_the_user_named_stays(words: str, kept: set[str]) -> None:
    assert set(unasked_filters_dropped(SEARCH, FILLED, [words])) & {"since", "unseen"} == kept


def test_writes_are_never_changed() -> None:
    email = {"to": ["a@example.org"], "subject": "Hi", "body": "Hello", "since": "x"}
    assert unasked_filters_dropped(SEND, email, ["email a@example.org hello"]) == email


def test_an_optional_parameter_written_as_empty_text_was_not_given() -> None:
    args = SEARCH.validate({"from": "", "subject": " ", "text": "", "unseen": True})
    assert args.model_dump(exclude_none=True, by_alias=True).get("unseen") is True
    # A required one is never taken away: its own rules decide.
    assert SEND.validate({"to": ["a@example.org"], "subject": "", "body": "Hi"}).subject == ""
    with pytest.raises(InvalidArguments):
        SEARCH.validate({"limit": 0})


def test_a_check_with_no_interval_beside_a_daily_time_is_a_daily_check() -> None:
    # "Check every day whether flights drop": every_minutes 0 is filler beside daily_at, not an error.
    from deputy.agent.model.chat_model import ToolCall
    from deputy.agent.tools import ToolArgumentError, parse_schedule

    call = ToolCall(id="c", name="schedule_check", arguments='{"what": "flights to Lisbon", "every_minutes": 0, '
                                                          '"daily_at": "08:00", "at": "", "in_minutes": -1}')
    args = parse_schedule(call)
    assert (args.daily_at, args.every_minutes, args.at, args.in_minutes) == ("08:00", None, None, None)
    with pytest.raises(ToolArgumentError):  # an interval the user cannot mean is still refused
        parse_schedule(ToolCall(id="c", name="schedule_check", arguments='{"what": "x", "every_minutes": 99999999}'))
