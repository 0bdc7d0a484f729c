"""Optional arguments a model wrote as null are left out, so an imported operation is not refused over them."""

from __future__ import annotations

from jsonschema import Draft202012Validator

from deputy.connectors.mcp.schema import arguments_model as mcp_arguments
from deputy.connectors.openapi.arguments import arguments_model as api_arguments
from deputy.connectors.unset_arguments import without_unset

BOOKING = {"type": "object", "required": ["body"], "properties": {"body": {
    "type": "object", "required": ["restaurant_id", "date", "party_size"],
    "properties": {"restaurant_id": {"type": "string"}, "date": {"type": "string"}, "party_size": {"type": "integer"},
                   "phone": {"type": "string"}, "notes": {"type": "string"},
                   "allergies": {"type": ["string", "null"]}}}}}
CALL = {"body": {"restaurant_id": "kaito", "date": "2026-12-10", "party_size": 2, "phone": None, "notes": None,
                 "allergies": None}}


def test_an_imported_booking_with_nulls_for_what_the_user_never_gave_is_accepted_without_them() -> None:
    model = api_arguments("restaurants_book", Draft202012Validator(BOOKING))
    assert model.model_validate(CALL).model_dump() == {"body": {
        "restaurant_id": "kaito", "date": "2026-12-10", "party_size": 2, "allergies": None}}
    mcp = mcp_arguments("book", BOOKING["properties"]["body"])
    assert "phone" not in mcp.model_validate(CALL["body"]).model_dump()


def test_a_null_for_something_required_is_still_refused() -> None:
    assert without_unset({"restaurant_id": None}, BOOKING["properties"]["body"]) == {"restaurant_id": None}
    model = api_arguments("restaurants_book", Draft202012Validator(BOOKING))
    try:
        model.model_validate({"body": {"restaurant_id": None, "date": "2026-12-10", "party_size": 2}})
    except ValueError as refused:
        assert "restaurant_id" in str(refused)
    else:
        raise AssertionError("a required id written as null was accepted")
