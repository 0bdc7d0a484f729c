"""The scanner's learned second opinion: new phrasings caught, look-alikes kept, weights from the current corpora."""

from __future__ import annotations

import numpy as np
import pytest

from bench.learned_train import fingerprint
from deputy.core.secret_scan import find_secrets
from deputy.core.secret_scan.learned import WEIGHTS, candidates, learned_spans


def test_shipped_weights_were_learned_from_the_current_development_corpora() -> None:
    data = np.load(WEIGHTS, allow_pickle=False)
    assert str(data["corpora"]) == fingerprint(), "rebuild with: python -m bench.learned_train"
    assert 0.5 <= float(data["threshold"]) < 1.0
    assert len(data["names"]) == len(data["weights"])


@pytest.mark.parametrize("text, value", [
    ("neues Kennwort lautet jetzt Hx7_pq!92aZ", "Hx7_pq!92aZ"),
    ("wifi da casa nova, anota ai: Rb4#kq9Lm2x", "Rb4#kq9Lm2x"),
    ("Kennwort vom NAS, nicht weitersagen: Mz3!tq8Pw", "Mz3!tq8Pw"),
    ("mot de passe provisoire reçu par sms : Tz9!pq4Lw", "Tz9!pq4Lw"),
])
def test_the_model_alone_takes_a_password_in_a_new_phrasing(text: str, value: str) -> None:
    assert value in [text[s:e] for s, e in learned_spans(text, [])]
    assert value not in find_secrets(text).redacted()


def test_a_value_the_rules_misread_is_still_removed() -> None:
    scan = find_secrets("neues Kennwort lautet jetzt Hx7_pq!92aZ")
    assert "Hx7_pq!92aZ" not in scan.redacted()
    assert any(h.kind == "learned" for h in scan.hits)


@pytest.mark.parametrize("text, value", [
    ("el código de la puerta del garaje, apúntalo: 8841", "8841"),
    ("Sozialversicherungsnummer meiner Mutter, fürs Formular: 12 150385 M 027", "150385"),
])
def test_pins_and_identity_numbers_in_a_new_phrasing_are_removed(text: str, value: str) -> None:
    assert value not in find_secrets(text).redacted()


@pytest.mark.parametrize("text", [
    "order number 4471-2298-1100", "call me at +1 415 555 0198", "meeting at 14:30 tomorrow",
    "it costs 49.99 EUR", "tracking 1Z999AA10123456784", "invoice INV-2024-0042", "flight LH 1234 at 10:45",
    "room 4.12, floor 3", "Bestellnummer 577134011, Rückgabe über DHL", "pedido n.º 88213, chega amanhã",
])
def test_look_alikes_are_kept(text: str) -> None:
    assert learned_spans(text, []) == []
    assert not find_secrets(text).found


def test_candidates_read_digit_groups_whole_and_leave_labels_out() -> None:
    text = "SSN: 858 99 4052, PIN:1234 (card)"
    assert [text[s:e] for s, e in candidates(text)] == ["858 99 4052", "1234"]
