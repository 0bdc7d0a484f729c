"""The records of a listing an MCP tool or an API returns, each named by its telling fields, however it is printed.

What a user notices: the card names the one record a value came from. A listing reaches Deputy
as a JSON array, as one JSON object per content block (the MCP SDK's way with a list), as YAML,
or as an object keyed by the records' ids or names; each record is found with its exact text,
and what merely looks like a list (a bulleted note, one record's own fields) is not split.
"""

from __future__ import annotations

import json

import yaml

from deputy.core.records.record_listings import listed_records

EMAILS = [{"id_": "5", "subject": "Slides", "attachments": []},
          {"id_": "6", "subject": "Kick-off", "attachments": [{"id_": "9", "title": "Kick-off meeting"}]},
          {"id_": "7", "subject": "Urgent", "attachments": [{"id_": "9", "title": "Kick-off meeting"}]}]


def test_one_json_object_per_block_is_one_record_each_whatever_lists_it_holds() -> None:
    text = "\n".join(json.dumps(email, indent=2) for email in EMAILS)
    items = listed_records(text, "the MCP server mail")
    assert [i.origin for i in items] == [
        f"the record {n} (id_ '{e['id_']}', subject '{e['subject']}') of the MCP server mail"
        for n, e in enumerate(EMAILS, start=1)]
    assert [json.loads(i.text) for i in items] == EMAILS


def test_a_yaml_listing_splits_into_its_records_at_the_top_or_under_a_key() -> None:
    events = [{"id_": str(n), "title": f"Event {n}", "description": "word " * 30, "participants": ["a@x.example"]}
              for n in range(1, 4)]
    for printed in (yaml.safe_dump(events), yaml.safe_dump({"events": events, "count": 3})):
        items = listed_records(printed, "X")
        assert [i.origin for i in items] == [f"the record {n} (id_ '{n}', title 'Event {n}') of X" for n in range(1, 4)]
        assert [yaml.safe_load(i.text)[0] for i in items] == events  # each record's own text, exactly as shown


def test_records_keyed_by_id_or_by_name_are_named_by_their_key() -> None:
    by_id = json.dumps({"c1": {"name": "Acme"}, "c2": {"name": "Globex"}})
    assert [i.origin for i in listed_records(by_id, "X")] == ["the record 'c1' (name 'Acme') of X",
                                                              "the record 'c2' (name 'Globex') of X"]
    by_name = {"City Hub": "Rating: 4.3\nGreat view.", "Le Marais Boutique": "Rating: 4.2"}
    for printed in (json.dumps(by_name, indent=2), yaml.safe_dump(by_name)):
        assert [i.origin for i in listed_records(printed, "X")] == ["the record 'City Hub' of X",
                                                                    "the record 'Le Marais Boutique' of X"]


def test_what_only_looks_like_a_listing_is_not_split() -> None:
    assert listed_records(json.dumps({"name": "Acme", "notes": "Renewal in March."}), "X") == []
    assert listed_records("- Note: buy milk\n- Reminder: call the plumber", "X") == []
    assert listed_records("Rating: 4.3\nReviews: good", "X") == []
    assert listed_records(yaml.safe_dump([{"id": 1, "title": "Only one"}]), "X") == []


def test_a_records_fields_are_those_at_its_own_level_never_what_a_field_holds() -> None:
    """A file's content that reads "id: 12" is that field's text, not the record's id."""
    from deputy.core.records.record_listings import record_fields

    printed = yaml.safe_dump([{"id": "13", "name": "packing.txt", "content": "Packing list\nid: 12"},
                              {"id": "14", "name": "recipe.docx", "content": "Lasagne"}], sort_keys=False)
    first, second = (record_fields(item.text) for item in listed_records(printed, "the drive"))
    assert (first["id"], first["name"]) == ("13", "packing.txt") and second["id"] == "14"
    as_json = json.dumps([{"fileId": 7, "title": "Budget", "note": "{\"fileId\": 9}"}, {"fileId": 8, "title": "x"}])
    assert record_fields(listed_records(as_json, "the drive")[0].text) == {
        "fileId": 7, "title": "Budget", "note": "{\"fileId\": 9}"}
    assert record_fields("Just a sentence: not a record") == {}
