"""Identity numbers by their published check digits, and by the words that name them; look-alikes stay."""

import pytest

from deputy.core.secret_scan import find_secrets
from deputy.core.secret_scan import id_checksums as check


@pytest.mark.parametrize("rule, value", [
    (check.nir, "255081416802538"), (check.steuer_id, "86095742719"), (check.pesel, "44051401359"),
    (check.nif_pt, "123456789"), (check.cartao_cidadao, "000000000ZZ4"), (check.bsn, "111222333"),
    (check.cpf, "11144477735"), (check.verhoeff, "2363"), (check.codice_fiscale, "RSSMRA85T10A562S"),
    (check.se_personnummer, "8112289874"), (check.norway_fnr, "15108695088"), (check.ahv, "7561234567897"),
    (check.china_resident_id, "11010519491231002X"),
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


def test_a_finnish_identity_code_and_a_passports_machine_readable_line_pass_their_checks() -> None:
    assert check.hetu("131052-308T") and not check.hetu("131052-308U")
    line = "L898902C36UTO7408122F1204159ZE184226B<<<<<10"  # ICAO 9303's specimen passport
    assert check.mrz_td3(line) and not check.mrz_td3(line[:-1] + "1")


@pytest.mark.parametrize("message, number", [
    ("the Kela form wants the henkilötunnus 131052-308T", "131052-308T"),  # Finland, by its check character alone
    ("AHV 756.1234.5678.97, für die Krankenkasse", "756.1234.5678.97"),  # Switzerland
    ("my colleague's ID for the invitation letter: 11010519491231002X", "11010519491231002X"),  # China
    ("P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10",
     "L898902C36UTO7408122F1204159ZE184226B<<<<<10"),  # a passport's machine-readable zone
    ("fødselsnummer til skjemaet: 15108695088", "15108695088"),  # Norway, by its name
    ("CPR-nr. 131052-3087 til lægen", "131052-3087"),  # Denmark
    ("my PPS number is 1234567TW", "1234567TW"),  # Ireland
    ("Sozialversicherungsnummer meines Sohnes 1237 010180", "1237 010180"),  # Austria
    ("mon numéro AVS est le 7561234567897", "7561234567897"),
    ("firma el contrato con Y-1234567-X", "Y-1234567-X"),  # a Spanish NIE written with hyphens, by its letter
    ("driving licence number MORGA753116SM9IJ (section 5)", "MORGA753116SM9IJ"),  # 16 characters in one piece
    ("Texas DL# 12345678 for the rental", "12345678"),
    ("my wife's passport number, which the booking form asks for: X1234567", "X1234567"),
    ("social insurance number 046 454 286 for the T4", "046 454 286"),
])
def test_identity_numbers_of_more_countries_are_taken_out(message: str, number: str) -> None:
    scan = find_secrets(message)
    assert scan.kind == "national_id" and number not in scan.redacted()


@pytest.mark.parametrize("message", [
    "CPR training on Friday 140324-1100",  # a short label that is also an ordinary word wants its number close
    "the DL 1234 to Atlanta is delayed",
    "invoice 11010519491231002X for the server order",  # a reference that happens to pass a check digit
    "SIRET de la boulangerie : 442 819 357 00017",  # a firm's number passes Luhn, as a card's does
])
def test_references_and_short_labels_used_otherwise_stay(message: str) -> None:
    assert not find_secrets(message).found


@pytest.mark.parametrize("message", [
    "o NIF da empresa na fatura é 522787665",  # a company's number is on every invoice
    "the form says SSN e.g. 987-65-4321 but I don't have one yet",
    "no gov.br aparece CPF ***.365.734-**",
    "NI number format is QQ 12 34 56 C (that's the HMRC example)",
    "my passport expires on 2031-04-12",
])
def test_examples_companies_and_masked_numbers_stay(message: str) -> None:
    assert not find_secrets(message).found


@pytest.mark.parametrize("rule, module", [
    (check.my_number, "jp.in_"), (check.korea_rrn, "kr.rrn"), (check.tc_kimlik, "tr.tckimlik"),
    (check.israel_id, "il.idnr"), (check.australia_tfn, "au.tfn"), (check.curp, "mx.curp"),
    (check.south_africa_id, "za.idnr"), (check.chile_rut, "cl.rut"),
])
def test_the_newer_checks_agree_with_python_stdnum(rule, module: str) -> None:
    """Each check against a separate implementation, on numbers of the right shape (some of them valid)."""
    import importlib
    import random

    stdnum = importlib.import_module(f"stdnum.{module}")
    digits = random.Random(module)
    shapes = {"jp.in_": "#" * 12, "kr.rrn": "88%02d%02d1######", "tr.tckimlik": "1" + "#" * 10, "il.idnr": "#" * 9,
              "au.tfn": "#" * 9, "za.idnr": "88%02d%02d####0##", "cl.rut": "#" * 8 + "?",
              "mx.curp": "BADD88%02d%02dHDFRRN0#"}
    valid = 0
    for _ in range(3000):
        shape = shapes[module]
        shape = shape % (digits.randint(1, 12), digits.randint(1, 28)) if "%" in shape else shape
        number = "".join(digits.choice("0123456789") if c == "#" else digits.choice("0123456789K") if c == "?" else c
                         for c in shape)
        assert rule(number) == stdnum.is_valid(number), number
        valid += rule(number)
    assert valid >= 10  # the valid side was tried too (Turkey has two check digits: one number in a hundred)


@pytest.mark.parametrize("message, number", [
    ("My Number (マイナンバー): 1234 5678 9018 for the city office", "1234 5678 9018"),  # Japan, with its check digit
    ("RRN 750219-1941454 for the visa", "750219-1941454"),  # Korea
    ("T.C. kimlik numarası: 10000000146", "10000000146"),  # Turkey
    ("teudat zehut of my husband 000000018", "000000018"),  # Israel
    ("my TFN is 123 456 782", "123 456 782"),  # Australia
    ("mi CURP es BADD110313HCMLNS06", "BADD110313HCMLNS06"),  # Mexico, standing alone by its shape and check digit
    ("RUN 12.345.678-5 para el trámite", "12.345.678-5"),  # Chile
    ("4891737N (PPS number)", "4891737N"),  # the label after the number
    ("337546940 is my wife's BSN", "337546940"),
    ("Steuer-ID\n95 186 423 600", "95 186 423 600"),  # the label alone on its line, the number on the next
    ("DNI para la reserva: 40363468", "40363468"),  # what the number is for, not what it numbers
    ("The bank needs my social to open the account, it's 115 74 7588", "115 74 7588"),
])
def test_numbers_named_in_more_ways_are_taken_out(message: str, number: str) -> None:
    scan = find_secrets(message)
    assert scan.kind == "national_id" and number not in scan.redacted()


@pytest.mark.parametrize("message", [
    "Is 078-05-1120 the SSN from the Woolworth wallet story?",  # voided by the SSA: printed on a wallet insert
    "my number is 0123 4567 8901 if the courier calls",  # "my number" is a phone's, unless My Number's check holds
    "call my number +8190 1234 5678",
    "run 12345678 tests before the release",  # "RUN" is Chile's only with its check character
    "0612345678 for my passport appointment",  # a phone number about a passport, not its number
    "postcode 1012 AB, my kimlik card is at home",
    "ID no. of the parcel: 1Z999AA10123456784",
    "Protokollnummer 95186423601 zur Steuer-ID-Anfrage",
    "My passport expired, so I booked the appointment at the town hall, ref 20261207",  # the nearer name numbers it
    "Steuer-ID beantragt, Bearbeitungsnummer 2026 0412 7788",
    "NIE solicitado, expediente 28/123456/2026",
    "RUT 76.086.428-5 (Falabella) en la boleta",  # a firm's numbers, by the issuer's ranges and letters
    "NIF 500100144 (Galp) na fatura",
    "NIF: B12345674",
    "steuernummer der GmbH 143/123/45678",
    "the specimen Personalausweis of Erika Mustermann has number L01X00T47",  # a specimen, whatever its check says
    "sample passport MRZ: L898902C36UTO7408122F1204159ZE184226B<<<<<10",
])
def test_specimens_phones_and_numbers_near_a_label_that_names_something_else_stay(message: str) -> None:
    assert not find_secrets(message).found
