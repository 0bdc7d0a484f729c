"""Which marks need a confirmation, and how marks change the operations both worker and executor build."""

from __future__ import annotations

import json

from bot.operation_marks import OperationView, needs_confirmation, operations_of
from connectors.base import EffectClass
from connectors.custom import CustomConnector, imported_api

DOCUMENT = json.dumps({
    "openapi": "3.0.3",
    "info": {"title": "Booking API", "version": "1"},
    "servers": [{"url": "https://booking.example"}],
    "paths": {
        "/slots": {"get": {"operationId": "listSlots", "responses": {"200": {"description": "ok"}}}},
        "/bookings": {"post": {"operationId": "book", "responses": {"201": {"description": "ok"}}}},
    },
})


def _connector(**marks: EffectClass) -> CustomConnector:
    return CustomConnector(kind="openapi", name="booking", source="https://booking.example/openapi.json",
                           document=DOCUMENT, marks=marks)


def test_less_risky_than_the_method_or_the_current_mark_needs_a_confirmation() -> None:
    post = OperationView("booking_book", "POST", "/bookings", EffectClass.write, EffectClass.write)
    assert needs_confirmation(post, EffectClass.read)
    assert not needs_confirmation(post, EffectClass.spend)
    marked = OperationView("booking_book", "POST", "/bookings", EffectClass.write, EffectClass.spend)
    assert needs_confirmation(marked, EffectClass.write)  # undoing a spend mark lowers the guard too
    get = OperationView("booking_listslots", "GET", "/slots", EffectClass.read, EffectClass.read)
    assert not any(needs_confirmation(get, e) for e in EffectClass if e is not EffectClass.credential)


def test_marks_change_the_catalog_and_marks_for_missing_operations_are_ignored() -> None:
    plain = {op.name.lower(): op.spec.effect for op in imported_api(_connector()).operations}
    assert plain == {"booking_listslots": EffectClass.read, "booking_book": EffectClass.write}
    tool = next(n for n in imported_api(_connector()).names() if n.lower() == "booking_book")
    marked = imported_api(_connector(**{tool: EffectClass.spend, "booking_gone": EffectClass.read}))
    assert {op.name: op.spec.effect for op in marked.operations}[tool] is EffectClass.spend
    views = {v.tool: v for v in operations_of(_connector(**{tool: EffectClass.spend}))}
    assert (views[tool].implied, views[tool].current, views[tool].method) == (EffectClass.write, EffectClass.spend, "POST")
