"""The sandbox issuer's memory across restarts of `deputy run`: a JSON file in the data dir.

Kept: the enrolled cards (reference, last four digits, expiry, holder; never the full
number) and the transactions (so statements and refunds of earlier purchases still work).
Not kept: payment tokens, their single-use virtual cards and pending confirmation codes:
they live minutes, and after a restart the shops listen on new addresses anyway, so an old
token could not pay anywhere. A card Deputy enrolled before is found again under its old
reference; Deputy enrols a card again if the issuer no longer knows it.
"""

from __future__ import annotations

import json
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

from deputy.sandbox.issuer import IssuedCard, Issuer, Transaction

VERSION = 1


def _masked(number: str) -> str:
    return "*" * max(0, len(number) - 4) + number[-4:]


def dump(issuer: Issuer) -> dict[str, Any]:
    return {
        "version": VERSION,
        "cards": [{"ref": c.ref, "number": _masked(c.number), "expiry": list(c.expiry), "holder": c.holder}
                  for c in issuer.cards.values()],
        "transactions": [{**t.__dict__, "amount": str(t.amount), "refunded": str(t.refunded)}
                         for t in issuer.transactions.values()],
    }


def load_into(issuer: Issuer, state: dict[str, Any]) -> None:
    if state.get("version") != VERSION:
        return
    for card in state.get("cards", []):
        issuer.cards[card["ref"]] = IssuedCard(card["ref"], card["number"], tuple(card["expiry"]), card["holder"])
    for txn in state.get("transactions", []):
        issuer.transactions[txn["id"]] = Transaction(**{**txn, "amount": Decimal(txn["amount"]),
                                                        "refunded": Decimal(txn["refunded"])})


class IssuerFile:
    """Loads the issuer from `path` (if there is one) and saves it after every change."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def load(self, issuer: Issuer) -> Issuer:
        try:
            load_into(issuer, json.loads(self._path.read_text()))
        except FileNotFoundError:
            pass
        except (ValueError, KeyError, TypeError):
            # A damaged file must not stop the sandbox: start empty, Deputy enrols the cards again.
            self._path.rename(self._path.with_suffix(".damaged"))
        return issuer

    def save(self, issuer: Issuer) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        partial = self._path.with_suffix(".tmp")
        partial.write_text(json.dumps(dump(issuer)))
        os.replace(partial, self._path)
