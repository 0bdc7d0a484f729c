"""The scanner against the seventh blind corpus (`tests/bot/secret_corpus/dev7/`): codes and PINs of more things,
identity numbers in new layouts, passwords and passphrases, and look-alikes next to all three.

Written without reading the scanner and split by a fixed rule into `dev7` (tuned on) and `frozen5` (held out: never
tuned on, its cases and misses never read). Both parts are pinned by their hashes; `dev7` must stay where tuning left
it, and `frozen5` may not fall below its one measurement. The general mechanisms the tuning added are tested here too,
with phrasings of their own, and so are the look-alikes they must leave alone.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from bench.secret_recall import evaluate, load
from deputy.core.secret_scan import find_secrets

DEV7_SHA256 = "30c64ddd29283c6a463f884252a3b5250ccd1aad61fc947ee315b8fa90eedbf0"
FROZEN5_SHA256 = "cdbfb072bac63764ee6c111ce022425025efa447b913f0f15e11074c5f3bc481"

# Where tuning on dev7 left it (before: codes and PINs 23/31, look-alikes 38/40, identity numbers 34/39, passwords 22/27).
DEV7_REACHED = {"cvc_pin": 31, "lookalike": 40, "national_id": 39, "password_phrase": 27}
# frozen5, measured once after tuning on dev7 (aggregate only; its misses never printed).
FROZEN5_FLOOR = {"cvc_pin": 16, "lookalike": 26, "national_id": 22, "password_phrase": 15}


def test_the_seventh_set_is_as_written() -> None:
    for split, expected, size in (("dev7", DEV7_SHA256, 137), ("frozen5", FROZEN5_SHA256, 93)):
        items = load(split)
        digest = hashlib.sha256(json.dumps(items, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        assert digest == expected and len(items) == size, split


def test_seventh_development_set_stays_where_tuning_left_it() -> None:
    results = evaluate(load("dev7"))
    worse = {kind: f"{good} < {DEV7_REACHED[kind]}" for kind, (good, _) in results.items() if good < DEV7_REACHED[kind]}
    assert not worse, f"the seventh development set fell back: {worse}"


def test_frozen5_does_not_regress() -> None:
    results = evaluate(load("frozen5"))
    worse = {kind: f"{good} < {FROZEN5_FLOOR[kind]}" for kind, (good, _) in results.items()
             if good < FROZEN5_FLOOR[kind]}
    assert not worse, f"fewer caught than at frozen5's measurement: {worse}"


def _found(message: str) -> list[str]:
    scan = find_secrets(message)
    return [scan.text[hit.start: hit.end] for hit in scan.hits]


@pytest.mark.parametrize(("message", "secret"), [
    # A thing a code opens, then a colon or an arrow, then the code.
    ("Garage remote: 55190, the button on the left", "55190"),
    ("tresor im büro → 7720", "7720"),
    # A line that names codes, then the list of them.
    ("the codes for the cabin:\n* gate 4410\n* shed 9182\nsee you friday", "9182"),
    # "clave", "chiave", "chave": the key or code of a thing.
    ("chiave del cancello 6614 non dirla a nessuno", "6614"),
    # A pasted chat: the question, then the answer after the speaker's mark.
    ("[09:12] Marta: código del garaje?\n[09:13] Yo: 5521, el de abajo", "5521"),
    # The card's back, the count of its digits left out; an ellipsis does not end the clause.
    ("the digits on the back are 4412", "4412"),
    ("pide el cvv... es 351", "351"),
    # Digits after a colon, within the clause that names a password.
    ("Passwort für die Kindersicherung am Fernseher bei Oma: 290461", "290461"),
    # A passphrase after a colon in the password's clause; a passphrase's own name.
    ("the password for the backup drive, all lower case: lantern orchid falcon", "lantern orchid falcon"),
    ("frase de contraseña del gestor: nube-rio-pino-sal", "nube-rio-pino-sal"),
    # A token only a generator makes, wherever it stands.
    ("changed it, now it's Rk#7v!Qz2mWp", "Rk#7v!Qz2mWp"),
    # Identity numbers: a Romanian article on the name, a grouping of its own, named by the office that asks for it.
    ("CNP-ul fratelui meu 1810301418726", "1810301418726"),
    ("social security no. for the form: 417 053 319", "417 053 319"),
    ("o contribuinte dela? para a fatura: 171916034", "171916034"),
    ("Finanzamt fragt nach deiner Identifikationsnummer, hier: 29184635873", "29184635873"),
])
def test_the_new_mechanisms_find_the_secret(message: str, secret: str) -> None:
    assert secret in _found(message)


@pytest.mark.parametrize("message", [
    "Locker: 2145 is next to the showers",
    "Gate: 1234 boarding at 10:40",
    "the numbers on the back of the ticket are 12345",
    "order #731-83-7826 never arrived",
    "número de pedido 50865169-W, ya lo devolví",
    "[10:42] Ana: what time?\n[10:43] Yo: 1930, ok",
    "what is the zip code?\n10115, Berlin",
    "the password policy: 12345 is banned",
    "contra del gobierno: todos en la calle",
    "Provider=SQLOLEDB;Data Source=db-1.lan",
    "email me at John.Doe99@Gmail.com!!",
    "#Hashtag2024 #Summer!",
])
def test_look_alikes_stay(message: str) -> None:
    assert _found(message) == []
