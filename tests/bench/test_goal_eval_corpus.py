"""The outcome evaluation's frozen split is what it was when it was frozen: nobody tunes it, nobody edits it."""

from __future__ import annotations

import json

from bench.goal_eval.corpus import CORPUS, frozen_digest, load

FROZEN_SHA256 = "5bf2e32eb4c1fffa011e16d6a0bb26fe79548653e654805964c1356e1bc3825e"
"""The frozen cases as committed in 153e895 (canonical JSON, sorted keys)."""


def test_the_frozen_split_has_not_changed() -> None:
    assert frozen_digest() == FROZEN_SHA256, (
        "The frozen split of the outcome evaluation changed. It must never be edited or tuned on; "
        "add new cases to the end of their category instead (they become frozen or dev by their number).")


def test_a_changed_frozen_case_changes_the_digest(tmp_path) -> None:
    cases = json.loads(CORPUS.read_text(encoding="utf-8"))
    frozen = next(case for case in cases if case["split"] == "frozen")
    frozen["turns"][0] += " please"
    edited = tmp_path / "goals.json"
    edited.write_text(json.dumps(cases), encoding="utf-8")
    assert frozen_digest(edited) != FROZEN_SHA256


def test_every_case_loads_and_the_splits_are_as_documented() -> None:
    frozen, dev = load("frozen"), load("dev")
    assert len(frozen) == 112 and len(dev) == 109
    assert all(int(case.id.rsplit("-", 1)[1]) % 2 == 1 for case in frozen)


def test_skip_takes_the_cases_a_limited_run_left_out_and_categories_can_be_listed() -> None:
    """`--limit 2` then `--skip 2` score every case of a category once, never one twice."""
    first = load("frozen", "calendar_read,bookings", limit=2)
    rest = load("frozen", "calendar_read,bookings", skip=2)
    whole = load("frozen", "calendar_read,bookings")
    assert {case.category for case in whole} == {"calendar_read", "bookings"}
    assert {case.id for case in first} | {case.id for case in rest} == {case.id for case in whole}
    assert not {case.id for case in first} & {case.id for case in rest}
    assert len(first) == 4
