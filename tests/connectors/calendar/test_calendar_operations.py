"""What the agent and the guard see of the calendar: names, effects, tags, targets and schemas."""

from __future__ import annotations

import json

from deputy.core.records.effects import EffectClass, RiskTag
from deputy.connectors.calendar.operations import CALENDAR_OPERATIONS, CALENDAR_SERVICE
from deputy.connectors.calendar.runners import CalendarRunners
from deputy.connectors.catalog import Catalog
from deputy.connectors.default import default_catalog


def test_every_operation_declares_its_effect_and_risks() -> None:
    catalog = Catalog(CALENDAR_OPERATIONS)
    declared = {op.name: (op.spec.effect, set(op.spec.tags)) for op in CALENDAR_OPERATIONS}
    assert declared == {
        "list_events": (EffectClass.read, set()),
        "free_busy": (EffectClass.read, set()),
        "create_event": (EffectClass.write, set()),
        "schedule_meeting": (EffectClass.write, {RiskTag.share}),
        "move_event": (EffectClass.write, set()),
        "cancel_event": (EffectClass.write, {RiskTag.delete}),
    }
    assert all(op.spec.connector == "calendar" and op.service == CALENDAR_SERVICE for op in CALENDAR_OPERATIONS)
    assert catalog.services() == [CALENDAR_SERVICE]
    # Every Deputy offers them, next to its other operations (names unique across all).
    assert set(default_catalog().names()) >= set(declared)


def test_every_operation_has_a_runner() -> None:
    runners = CalendarRunners(None).runners()
    assert set(runners) == {f"calendar.{op.name}" for op in CALENDAR_OPERATIONS}


def test_targets_name_the_calendar_and_the_people_invited() -> None:
    catalog = Catalog(CALENDAR_OPERATIONS)

    def targets(name: str, **raw: object) -> list[str]:
        operation = catalog.get(name)
        assert operation is not None
        return operation.targets(operation.validate(raw))

    assert targets("list_events", start="2026-12-01") == [CALENDAR_SERVICE]
    assert targets("free_busy", start="2026-12-01", end="2026-12-02", calendar="Work") == ["Work"]
    assert targets("create_event", title="Dentist", start="2026-12-03T08:30") == [CALENDAR_SERVICE]
    assert targets("schedule_meeting", title="Dinner", start="2026-12-04T19:30", calendar="Personal",
                   attendees=["sam@example.com", "Sam@example.com", "kim@example.org"]) == [
        "Personal", "sam@example.com", "kim@example.org"
    ]
    assert targets("move_event", event_id="personal/abc", start="2026-12-03T09:00") == [CALENDAR_SERVICE]
    assert targets("cancel_event", event_id="personal/abc") == [CALENDAR_SERVICE]


def test_reads_are_marked_as_bringing_outside_content() -> None:
    for operation in CALENDAR_OPERATIONS:
        assert (operation.result_origin is not None) == (operation.spec.effect is EffectClass.read)


def test_schemas_are_short_and_match_the_argument_models() -> None:
    for operation in CALENDAR_OPERATIONS:
        tool = operation.tool_schema()
        assert tool["function"]["name"] == operation.name
        parameters = tool["function"]["parameters"]
        assert len(json.dumps(parameters)) < 1500, operation.name
        fields = set(operation.arguments.model_fields)
        assert set(parameters["properties"]) <= fields, operation.name
        assert set(parameters["required"]) <= set(parameters["properties"])


def test_the_guard_allows_a_private_entry_and_asks_before_invitations_or_deletions() -> None:
    from calendar_testkit import make_action

    from deputy.sentinel.policy import ReviewContext, Verdict, review
    from deputy.sentinel.provenance import ProvenanceContext

    asked = "Put the dentist on Thursday 08:30 in my calendar and invite sam@example.com to dinner Friday"
    context = ReviewContext(provenance=ProvenanceContext(trusted_texts=[asked, CALENDAR_SERVICE]))

    def verdict(operation: str, **arguments: object) -> Verdict:
        return review(make_action(operation, dict(arguments)), context).verdict

    assert verdict("create_event", title="Dentist", start="2026-12-03T08:30") is Verdict.allow
    assert verdict("list_events", start="2026-12-03") is Verdict.allow
    assert verdict("schedule_meeting", title="Dinner", start="2026-12-04T19:30",
                   attendees=["sam@example.com"]) is Verdict.ask
    assert verdict("cancel_event", event_id="personal/demo-dentist@sandbox.deputy") is Verdict.ask
    # An address the user never gave is not even a candidate for "always allow".
    assert verdict("schedule_meeting", title="Dinner", start="2026-12-04T19:30",
                   attendees=["mallory@evil.example"]) is Verdict.ask
