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


def test_an_upper_bound_of_nothing_is_left_out_of_a_shop_search() -> None:
    # "can you buy the book Piranesi for me": the model searched for books costing at most 0 and found none.
    from deputy.connectors.openapi.document import parse_openapi
    from deputy.connectors.openapi.importer import import_openapi
    import json

    spec = {"openapi": "3.1.0", "info": {"title": "Shop"}, "servers": [{"url": "http://127.0.0.1:9"}], "paths": {
        "/products": {"get": {"operationId": "search_products", "responses": {"200": {"description": "ok"}},
                              "parameters": [{"name": name, "in": "query", "schema": {"type": kind}} for name, kind in (
                                  ("q", "string"), ("max_price", "number"), ("min_price", "number"),
                                  ("in_stock", "boolean"), ("limit", "integer"))]}}}}
    search = import_openapi(parse_openapi(json.dumps(spec)), service="shop").operations[0]
    filled = {"q": "Piranesi", "max_price": 0, "min_price": 0, "in_stock": True, "limit": 0}
    assert unasked_filters_dropped(search, filled, ["can you buy the book Piranesi for me"]) == {
        "q": "Piranesi", "min_price": 0, "in_stock": True}
    bounded = {"q": "headphones", "max_price": 50, "limit": 5}
    assert unasked_filters_dropped(search, bounded, ["headphones under 50"]) == bounded


def test_a_connected_services_search_keeps_only_text_filters_in_the_users_words() -> None:
    # "I need another pack of those AA batteries": the model added a category of its own and found nothing.
    from deputy.connectors.openapi.document import parse_openapi
    from deputy.connectors.openapi.importer import import_openapi
    import json

    params = [{"name": name, "in": "query", "schema": {"type": "string"}} for name in ("q", "category", "city")]
    spec = {"openapi": "3.1.0", "info": {"title": "Shop"}, "servers": [{"url": "http://127.0.0.1:9"}], "paths": {
        "/products": {"get": {"operationId": "search_products", "responses": {"200": {"description": "ok"}},
                              "parameters": params}}}}
    search = import_openapi(parse_openapi(json.dumps(spec)), service="shop").operations[0]
    assert unasked_filters_dropped(search, {"q": "AA batteries", "category": "Electronics"},
                                   ["I need another pack of those AA batteries"]) == {"q": "AA batteries"}
    assert unasked_filters_dropped(search, {"q": "Piranesi", "category": "Books"},
                                   ["can you buy the book Piranesi for me"]) == {"q": "Piranesi", "category": "Books"}
    assert unasked_filters_dropped(search, {"q": "thai", "city": "London"},
                                   ["a table for 3 at an indian restaurant in london"]) == {"city": "London"}
    # Deputy's own mail search keeps its own rules: a sender the model wrote stays.
    assert unasked_filters_dropped(SEARCH, {"from": "Sam"}, ["did he reply?"]) == {"from": "Sam"}
