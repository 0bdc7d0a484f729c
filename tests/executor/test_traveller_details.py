"""The traveller's details are vault data: typed on the private connect page, filled into a booking by
the executor (never the model), else the name on the user's card, else a plain request for them."""

from __future__ import annotations

import pytest
from pydantic import SecretStr
from redis import Redis

from deputy.core.records.effects import ConnectorError
from deputy.credential_page.forms import FORMS, validate
from deputy.executor.travel import traveller_details
from deputy.vault import CredentialKind, KdfCost, Vault

CHEAP = KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1)


def test_the_connect_form_keeps_the_details_sealed_and_the_executor_fills_them(redis: Redis) -> None:
    vault = Vault(redis, SecretStr("k"), kdf=CHEAP)
    form = FORMS["traveller"]
    values, problems = validate(form, {"name": "Dana Demo", "date_of_birth": "1990-04-02",
                                       "passport_number": "x1234567"})
    assert problems == []
    [entry] = form.entries(values)
    vault.put(3, entry.handle, entry.secret, "password", entry.label, public=entry.public)
    assert "X1234567" not in str(entry.public) and "Dana" not in entry.label
    assert traveller_details(redis, vault)(3, 1) == [{"name": "Dana Demo", "date_of_birth": "1990-04-02",
                                                      "passport_number": "X1234567"}]
    _, bad = validate(form, {"name": "Dana Demo", "date_of_birth": "2 April 1990", "passport_number": "12"})
    assert len(bad) == 2


def test_without_details_the_card_holder_is_the_traveller_and_without_a_card_deputy_asks(redis: Redis) -> None:
    vault = Vault(redis, SecretStr("k"), kdf=CHEAP)
    with pytest.raises(ConnectorError, match="/connect traveller"):
        traveller_details(redis, vault)(4, 1)
    vault.put(4, "cred:card/main", SecretStr("4111111111111111"), CredentialKind.card, "Visa",
              {"holder": "Sam Demo", "expiry": "12/30"})
    assert traveller_details(redis, vault)(4, 1) == [{"name": "Sam Demo"}]
    with pytest.raises(ConnectorError, match="for 2 travellers and I have the details of 1"):
        traveller_details(redis, vault)(4, 2)  # the card holder's name is never used for two people


def add(vault: Vault, user_id: int, raw: dict[str, str]) -> str:
    values, problems = validate(FORMS["traveller"], raw)
    assert problems == []
    [entry] = FORMS["traveller"].entries(values)
    vault.put(user_id, entry.handle, entry.secret, "password", entry.label, public=entry.public)
    return entry.label


def test_each_person_travelling_has_their_own_details_the_user_first(redis: Redis) -> None:
    vault = Vault(redis, SecretStr("k"), kdf=CHEAP)
    assert add(vault, 5, {"name": "Sam Demo", "passport_number": "S7654321", "companion": "Sam"}) == \
        "Traveller details: Sam"
    with pytest.raises(ConnectorError, match="for 2 travellers and I have the details of 1"):
        traveller_details(redis, vault)(5, 2)
    add(vault, 5, {"name": "Dana Demo", "passport_number": "X1234567"})
    add(vault, 5, {"name": "Alex Demo", "passport_number": "A1111111", "companion": "Alex (my brother)"})
    two = traveller_details(redis, vault)(5, 2)
    assert [p["name"] for p in two] == ["Dana Demo", "Alex Demo"], "the user first, then companions by short name"
    assert [p["passport_number"] for p in traveller_details(redis, vault)(5, 3)] == ["X1234567", "A1111111",
                                                                                     "S7654321"]
    add(vault, 5, {"name": "Sam Demo", "passport_number": "S0000000", "companion": "sam"})  # Sam's new passport
    assert traveller_details(redis, vault)(5, 3)[2]["passport_number"] == "S0000000", "replaced, not added"
