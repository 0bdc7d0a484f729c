"""The pure core of probes: what counts as new, what counts as a crossing, and the guard's
answer for a probe it would have to ask about (refused, never carded at every check)."""

from __future__ import annotations

import json
from typing import Any

from redis import Redis

from deputy.agent.goals import GoalStatus
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.probes import Probe, ProbeState, compare, items_of
from deputy.agent.model.testing import FunctionModel, message_text, tool_call
from deputy.connectors.default import default_catalog
from deputy.core.records.actions import ActionState
from deputy.testing.inline import InlineDeputy

SEARCH = """2 email(s) in INBOX match from sam, newest first:
- INBOX/7 | Mon, 30 Nov 2026 09:00 | Sam <sam@example.org> | Lunch | unread | Friday works
- INBOX/3 | Fri, 27 Nov 2026 10:00 | Sam <sam@example.org> | Old note | read | hi"""


def mail_probe() -> Probe:
    return Probe(connector="email", operation="search_email", arguments={"sender": "sam"})


def test_new_items_are_keyed_by_message_id_and_the_first_reading_is_the_baseline() -> None:
    before = "\n".join(line for line in SEARCH.splitlines() if "INBOX/7" not in line)
    first = compare(mail_probe(), ProbeState(), before)
    assert not first.changed and first.state.seen == ["INBOX/3"]
    assert not compare(mail_probe(), first.state, before).changed
    news = compare(mail_probe(), first.state, SEARCH)
    assert news.changed and news.news.startswith("- INBOX/7") and "Old note" not in news.news
    again = compare(mail_probe(), news.state, SEARCH)
    assert not again.changed, "an item is news once"


def test_an_empty_search_after_a_listing_has_no_items_and_is_not_news() -> None:
    seen = compare(mail_probe(), ProbeState(), SEARCH).state
    gone = compare(mail_probe(), seen, "No emails in INBOX match from sam.")
    assert not gone.changed
    assert items_of("No emails in INBOX match from sam.", shape="listing") == ("listing", [])


def test_json_items_by_id_and_threshold_paths_with_wildcards() -> None:
    body = "200 OK\n" + json.dumps({"events": [{"id": "a", "price": "95.00"}, {"id": "b", "price": "120.00"}]})
    shape, items = items_of(body)
    assert shape == "json" and [k for k, _ in items] == ["a", "b"]
    probe = Probe(connector="openapi", operation="x", arguments={}, compare="threshold", field="events.*.price",
                  below=80)
    base = compare(probe, ProbeState(), body)
    assert base.state.value == 95 and base.state.holds is False and not base.changed
    crossed = compare(probe, base.state, body.replace("95.00", "79.50"))
    assert crossed.changed and "events.*.price is now 79.50 (it was 95)" in crossed.news
    stays = compare(probe, crossed.state, body.replace("95.00", "70.00"))
    assert not stays.changed
    above = Probe(connector="openapi", operation="x", arguments={}, compare="threshold", field="events.1.price",
                  above=150)
    assert compare(above, ProbeState(), body).state.value == 120


def test_a_missing_field_is_a_problem_naming_the_fields_there_are() -> None:
    probe = Probe(connector="openapi", operation="x", arguments={}, compare="threshold", field="cost", below=80)
    result = compare(probe, ProbeState(), '200 OK\n{"id": "a", "price": "95.00"}')
    assert result.problem == "the answer has no number at cost (its fields are: id, price)"
    assert compare(probe, ProbeState(), "<html>hello</html>").problem.startswith("the answer is not JSON")


def test_changed_compares_the_whole_answer_ignoring_whitespace() -> None:
    probe = Probe(connector="web", operation="open_page", arguments={}, compare="changed")
    base = compare(probe, ProbeState(), "Opening hours: 9-5")
    assert not compare(probe, base.state, "Opening hours:  9-5\n").changed
    assert compare(probe, base.state, "Opening hours: 10-4").changed


def test_a_probe_the_guard_would_ask_about_is_refused_and_posts_no_card(redis: Redis) -> None:
    ran: list[Any] = []
    catalog = default_catalog()

    def decide(messages: list[dict[str, Any]], tools: Any) -> ModelReply:
        if messages[-1].get("role") == "tool":
            return tool_call("reply", text="Could not watch: " + message_text(messages[-1]))
        # An address nobody gave: opening it needs the user, and nobody is there at a check.
        return tool_call("schedule_check", what="the offer page", every_minutes=5,
                         probe={"tool": "open_page", "arguments": {"url": "https://offers.example/deal"},
                                "compare": "changed"})

    deputy = InlineDeputy(redis, FunctionModel(decide), catalog, {"web.open_page": lambda a, k: ran.append(a) or "x"})
    goal = deputy.start(5, "tell me when the deal changes", goal_id="g_page")
    [message] = deputy.messages()
    assert message.buttons == [] and "Sentinel would need to ask you" in message.text
    assert ran == [] and goal.status is GoalStatus.done and goal.monitor is None
    [record] = deputy.stored_actions()
    assert record.state is ActionState.denied
