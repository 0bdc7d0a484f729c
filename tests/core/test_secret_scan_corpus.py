"""The scanner against a corpus written without reading it (tests/bot/secret_corpus/README.md).

The corpus was committed verbatim before any tuning (commit d350d74020f16479c42578767e2154c91c3b1299);
its frozen part is never tuned on, and this test fails if anyone changes it. On the dev part
(tuned on) every kind must be caught at 95 % or more and 99 % of look-alikes kept; on the frozen
part the latest measurement is a floor no change may fall below (BENCHMARKS.md has the numbers;
the goal is 98 % per kind). A second development set (`dev2/`), written later by someone else
who had not read the scanner either, was committed verbatim before it was tuned on; it is
pinned by its hash too, so the figures reported on it are on the set as written. So is a third (`dev3/`,
commit 6d1ffee4a51c643cd3cfd92bbcfcdacb751a482f), aimed at logins, identity numbers of more countries and split
secrets. In its logins the user name is context to keep, not a secret: Deputy hides the password and leaves
the name readable, so the user still sees which account a message was about.
"""

from __future__ import annotations

import hashlib
import json

from bench.secret_recall import CORPUS, evaluate, load

FROZEN_SHA256 = "a131880c51a7c202f557076214f7aa81db1eb556927c002dfc990955f4976ee0"
DEV2_SHA256 = "3769f97de35128eab65ae6f641451bb0ae636f66694bf6510be1049b38a86dc0"
DEV3_SHA256 = "b5c1fa3641e38774a98b9e4b9c49f65d86fc126c4c965e30e432d98939e6bc9c"


def _items(split: str) -> list[dict]:
    return [item for item in json.loads(CORPUS.read_text(encoding="utf-8")) if item["split"] == split]


def test_the_frozen_part_is_unchanged() -> None:
    frozen = _items("frozen")
    digest = hashlib.sha256(json.dumps(frozen, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    assert digest == FROZEN_SHA256 and len(frozen) == 264


def test_the_second_development_set_is_as_written() -> None:
    dev2 = load("dev2")
    digest = hashlib.sha256(json.dumps(dev2, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    assert digest == DEV2_SHA256 and len(dev2) == 366


def test_the_third_development_set_is_as_written() -> None:
    dev3 = load("dev3")
    digest = hashlib.sha256(json.dumps(dev3, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    assert digest == DEV3_SHA256 and len(dev3) == 274


# Caught (or kept, for look-alikes) on the frozen part at its latest measurement (the third, after tuning on the third
# development set: 125/128 caught, 135/136 kept; the second was 124/128 and 135/136, the first, before the second
# development set, 114/128 and 134/136).
FROZEN_FLOOR = {"card": 12, "connection_string": 9, "cvc_pin": 8, "iban": 9, "jwt": 7, "login": 9, "lookalike": 135,
                "national_id": 8, "otp": 8, "password_phrase": 16, "private_key": 7, "seed_phrase": 7, "split": 8,
                "vendor_key": 18}


def test_dev_secrets_are_caught_and_look_alikes_kept() -> None:
    results = evaluate(_items("dev"))
    looks_kept, looks_total = results.pop("lookalike")
    assert looks_kept / looks_total >= 0.99, f"look-alikes kept {looks_kept}/{looks_total}"
    low = {kind: f"{good}/{total}" for kind, (good, total) in results.items() if good / total < 0.95}
    assert not low, f"kinds under 95 % on dev: {low}"


def test_second_development_set_secrets_are_caught_and_look_alikes_kept() -> None:
    results = evaluate(load("dev2"))
    looks_kept, looks_total = results.pop("lookalike")
    assert looks_kept / looks_total >= 0.99, f"look-alikes kept {looks_kept}/{looks_total}"
    low = {kind: f"{good}/{total}" for kind, (good, total) in results.items() if good / total < 0.95}
    assert not low, f"kinds under 95 % on the second development set: {low}"


def test_third_development_set_secrets_are_caught_and_look_alikes_kept() -> None:
    results = evaluate(load("dev3"))
    looks_kept, looks_total = results.pop("lookalike")
    assert looks_kept / looks_total >= 0.99, f"look-alikes kept {looks_kept}/{looks_total}"
    low = {kind: f"{good}/{total}" for kind, (good, total) in results.items() if good / total < 0.95}
    assert not low, f"kinds under 95 % on the third development set: {low}"


def test_the_frozen_part_does_not_regress() -> None:
    results = evaluate(_items("frozen"))
    worse = {kind: f"{good} < {FROZEN_FLOOR[kind]}" for kind, (good, _) in results.items() if good < FROZEN_FLOOR[kind]}
    assert not worse, f"fewer caught than at the latest frozen measurement: {worse}"
