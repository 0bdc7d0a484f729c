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
the name readable, so the user still sees which account a message was about. A fourth (`dev4/`, commit
96bb927907842623d64cdc40f60f2370a0124ba1), aimed at identity numbers of 30 countries and split secrets, has a
development part (`dev4`, tuned on: every case is held) and a held-out part (`frozen2`, never tuned on, its misses
never printed); both are pinned by their hashes. A fifth (`dev5/`, commit 11ed800), aimed at identity numbers of
about 40 countries, secrets split over two messages and security codes or PINs on their own, is split the same way:
`dev5` tuned on, `frozen3` held out (never tuned on, its cases and misses never read), both pinned by their hashes. A
sixth (`dev6/`, commit b4d373b), aimed at identity numbers of about 50 countries no earlier set used, split secrets and
codes or PINs of more things, is split the same way: `dev6` tuned on, `frozen4` held out, both pinned by their hashes.
"""

from __future__ import annotations

import hashlib
import json

from bench.secret_recall import CORPUS, evaluate, load

FROZEN_SHA256 = "a131880c51a7c202f557076214f7aa81db1eb556927c002dfc990955f4976ee0"
DEV2_SHA256 = "3769f97de35128eab65ae6f641451bb0ae636f66694bf6510be1049b38a86dc0"
DEV3_SHA256 = "b5c1fa3641e38774a98b9e4b9c49f65d86fc126c4c965e30e432d98939e6bc9c"
DEV4_SHA256 = "84ac8639c4b62faf37f0e216ee76fc3deb301ad416b794ca03dba32c1c975bdf"
FROZEN2_SHA256 = "c6491604305113045ae8d167a78bb356a08c10a4ec279c426c676d67f36a374a"
DEV5_SHA256 = "825bfb247a79e1ffcad45175a18ce3eb69fdc6c7a41c38c5ef013c6e9f86d979"
FROZEN3_SHA256 = "6f708c687f39c9f6d5827c6549acbf260e2a19897bf0610b02ba2d87beede94b"
DEV6_SHA256 = "9eebecff9ff501e9554ba76a25e7b16470d8715b771f17b5da797ba8b814d074"
FROZEN4_SHA256 = "1539b9ac4f8a421572a34390c1960da3497b0e826dfc8883e70e8543393d1647"


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


def test_the_fourth_set_is_as_written() -> None:
    for split, expected, size in (("dev4", DEV4_SHA256, 151), ("frozen2", FROZEN2_SHA256, 105)):
        items = load(split)
        digest = hashlib.sha256(json.dumps(items, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        assert digest == expected and len(items) == size, split


def test_the_fifth_set_is_as_written() -> None:
    for split, expected, size in (("dev5", DEV5_SHA256, 167), ("frozen3", FROZEN3_SHA256, 111)):
        items = load(split)
        digest = hashlib.sha256(json.dumps(items, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        assert digest == expected and len(items) == size, split


# Caught (or kept, for look-alikes) on the frozen part at its latest measurement (the fifth, after tuning on dev5, and
# the fourth, after tuning on dev4, gave the same per kind as the third, after tuning on the third development set:
# identity numbers and split secrets 8/9, every other kind whole, 135/136 kept; the second was 124/128 and 135/136,
# the first, before the second development set, 114/128 and 134/136).
FROZEN_FLOOR = {"card": 12, "connection_string": 9, "cvc_pin": 8, "iban": 9, "jwt": 7, "login": 9, "lookalike": 135,
                "national_id": 8, "otp": 8, "password_phrase": 16, "private_key": 7, "seed_phrase": 7, "split": 8,
                "vendor_key": 18}


# The same for the fourth corpus's held-out part, measured once after tuning on dev4: 75/76 caught, 29/29 kept; after
# tuning on dev5: 76/76 (a security code more).
FROZEN2_FLOOR = {"card": 3, "connection_string": 3, "cvc_pin": 3, "iban": 3, "jwt": 3, "login": 3, "lookalike": 29,
                 "national_id": 27, "otp": 3, "password_phrase": 3, "private_key": 2, "seed_phrase": 3, "split": 17,
                 "vendor_key": 3}


# The same for the fifth corpus's held-out part, measured once after tuning on dev5 (before any tuning: security codes
# 13/18, look-alikes 22/23, identity numbers 12/41, split secrets 22/29).
FROZEN3_FLOOR = {"cvc_pin": 17, "lookalike": 22, "national_id": 34, "split": 27}


def test_the_sixth_set_is_as_written() -> None:
    for split, expected, size in (("dev6", DEV6_SHA256, 162), ("frozen4", FROZEN4_SHA256, 109)):
        items = load(split)
        digest = hashlib.sha256(json.dumps(items, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        assert digest == expected and len(items) == size, split


# The same for the sixth corpus's held-out part, measured once after tuning on dev6 (before any tuning: security codes
# 10/15, look-alikes 30/31, identity numbers 13/47, split secrets 11/16).
FROZEN4_FLOOR = {"cvc_pin": 13, "lookalike": 30, "national_id": 45, "split": 16}


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


def test_fourth_development_set_stays_where_tuning_left_it() -> None:
    """Every secret of `dev4` caught and every look-alike kept, as after tuning on it (before: identity numbers 37/40,
    passwords 3/4, look-alikes 42/43)."""
    missed = {kind: f"{good}/{total}" for kind, (good, total) in evaluate(load("dev4")).items() if good < total}
    assert not missed, f"the fourth development set is no longer caught whole: {missed}"


def test_fifth_development_set_stays_where_tuning_left_it() -> None:
    """Every secret of `dev5` caught and every look-alike kept, as after tuning on it (before: identity numbers 23/61,
    security codes and PINs 16/27, split secrets 32/44, look-alikes 35/35)."""
    missed = {kind: f"{good}/{total}" for kind, (good, total) in evaluate(load("dev5")).items() if good < total}
    assert not missed, f"the fifth development set is no longer caught whole: {missed}"


# Where tuning on dev6 left it: every kind whole but one identity number (a cédula behind a misspelt label, "mi cedual
# es ...", left alone: a misspelling is not a name the scanner should learn one at a time).
DEV6_REACHED = {"cvc_pin": 21, "lookalike": 46, "national_id": 70, "split": 24}


def test_sixth_development_set_stays_where_tuning_left_it() -> None:
    """`dev6` as after tuning on it (before: security codes and PINs 14/21, look-alikes 45/46, identity numbers 24/71,
    split secrets 12/24)."""
    results = evaluate(load("dev6"))
    worse = {kind: f"{good} < {DEV6_REACHED[kind]}" for kind, (good, _) in results.items() if good < DEV6_REACHED[kind]}
    assert not worse, f"the sixth development set fell back: {worse}"


def test_the_frozen_part_does_not_regress() -> None:
    results = evaluate(_items("frozen"))
    worse = {kind: f"{good} < {FROZEN_FLOOR[kind]}" for kind, (good, _) in results.items() if good < FROZEN_FLOOR[kind]}
    assert not worse, f"fewer caught than at the latest frozen measurement: {worse}"


def test_frozen2_does_not_regress() -> None:
    results = evaluate(load("frozen2"))
    worse = {kind: f"{good} < {FROZEN2_FLOOR[kind]}" for kind, (good, _) in results.items()
             if good < FROZEN2_FLOOR[kind]}
    assert not worse, f"fewer caught than at frozen2's measurement: {worse}"


def test_frozen3_does_not_regress() -> None:
    results = evaluate(load("frozen3"))
    worse = {kind: f"{good} < {FROZEN3_FLOOR[kind]}" for kind, (good, _) in results.items()
             if good < FROZEN3_FLOOR[kind]}
    assert not worse, f"fewer caught than at frozen3's measurement: {worse}"


def test_frozen4_does_not_regress() -> None:
    results = evaluate(load("frozen4"))
    worse = {kind: f"{good} < {FROZEN4_FLOOR[kind]}" for kind, (good, _) in results.items()
             if good < FROZEN4_FLOOR[kind]}
    assert not worse, f"fewer caught than at frozen4's measurement: {worse}"
