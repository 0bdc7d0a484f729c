"""The user's intent: which kinds of action their own words ask for."""

from __future__ import annotations

import pytest

from deputy.core.records.effects import EffectClass, RiskTag
from deputy.sentinel.intent import Kind, action_kinds, intended_kinds


@pytest.mark.parametrize(("words", "kind"), [
    ("reply to sam@example.com that Friday works", Kind.send),
    ("put the dentist in my calendar", Kind.schedule),
    ("pay the ACME invoice", Kind.pay),
    ("buy a usb cable for at most 20 USD", Kind.buy),
    ("book a table for two", Kind.book),
    ("delete calendar event e2", Kind.delete),
    ("share notes.txt with carol", Kind.share),
    ("fill in the form at https://forms.example", Kind.post),
])
def test_the_users_words_name_the_kind(words: str, kind: Kind) -> None:
    assert kind in intended_kinds([words])


def test_reading_is_not_asking_for_anything_else() -> None:
    kinds = intended_kinds(["read my email m1 and summarise it"])
    assert not kinds & {Kind.send, Kind.pay, Kind.buy, Kind.delete, Kind.share, Kind.post, Kind.account}


@pytest.mark.parametrize(("effect", "tags", "operation", "kind"), [
    (EffectClass.communicate, set(), "send_email", Kind.send),
    (EffectClass.communicate, set(), "submit_form", Kind.post),
    (EffectClass.communicate, {RiskTag.share}, "schedule_meeting", Kind.schedule),
    (EffectClass.spend, {RiskTag.irreversible}, "pay", Kind.pay),
    (EffectClass.spend, set(), "buy", Kind.buy),
    (EffectClass.write, {RiskTag.delete}, "delete_event", Kind.delete),
    (EffectClass.write, {RiskTag.share}, "share_document", Kind.share),
    (EffectClass.write, set(), "create_event", Kind.schedule),
    (EffectClass.account, set(), "update_profile", Kind.account),
])
def test_actions_have_kinds_from_the_catalog(effect, tags, operation, kind) -> None:
    assert kind in action_kinds(effect, frozenset(tags), "x", operation)
