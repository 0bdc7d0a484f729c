"""Identity numbers by their published check digits, and by the words that name them; look-alikes stay."""

import pytest

from deputy.core.secret_scan import find_secrets
from deputy.core.secret_scan import id_checksums as check


@pytest.mark.parametrize("rule, value", [
    (check.nir, "255081416802538"), (check.steuer_id, "86095742719"), (check.pesel, "44051401359"),
    (check.nif_pt, "123456789"), (check.cartao_cidadao, "000000000ZZ4"), (check.bsn, "111222333"),
    (check.cpf, "11144477735"), (check.verhoeff, "2363"), (check.codice_fiscale, "RSSMRA85T10A562S"),
    (check.se_personnummer, "8112289874"),
])
def test_each_issuers_published_example_passes_its_check(rule, value: str) -> None:
    assert rule(value)
    assert not rule(value[:-1] + str((int(value[-1]) + 1) % 10) if value[-1].isdigit() else value[:-1] + "A")


@pytest.mark.parametrize("message", [
    "for the Belgian form they need my national number 58.11.14-750.28",
    "PESEL-Nummer für die polnische Behörde: 44051401359",
    "il mio cf è rssmra85t10a562s",
    "meine steuerliche identifikationsnummer ist 86 095 742 719",
    "Reisepassnummer C01X00T47",
])
def test_an_identity_number_is_taken_out(message: str) -> None:
    assert find_secrets(message).kind == "national_id"


@pytest.mark.parametrize("message", [
    "o NIF da empresa na fatura é 522787665",  # a company's number is on every invoice
    "the form says SSN e.g. 987-65-4321 but I don't have one yet",
    "no gov.br aparece CPF ***.365.734-**",
    "NI number format is QQ 12 34 56 C (that's the HMRC example)",
    "my passport expires on 2031-04-12",
])
def test_examples_companies_and_masked_numbers_stay(message: str) -> None:
    assert not find_secrets(message).found
