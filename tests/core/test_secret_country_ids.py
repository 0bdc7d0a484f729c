"""Identity numbers of more countries: named by their own words anywhere near, confirmed by their check digits."""

import random

import pytest

from deputy.core.secret_scan import country_checks as check
from deputy.core.secret_scan import find_secrets, find_secrets_after, is_lead


def _stdnum_pairs():
    stdnum = pytest.importorskip("stdnum")  # the test extra: the scanner has its own code, checked against it here
    from stdnum.bg import egn
    from stdnum.ca import bc_phn
    from stdnum.co import nit
    from stdnum.cz import rc
    from stdnum.ec import ci
    from stdnum.ee import ik
    from stdnum.gb import nhs
    from stdnum.gr import amka
    from stdnum.hr import oib
    from stdnum.is_ import kennitala
    from stdnum.lv import pvn
    from stdnum.nz import ird
    from stdnum.pe import cui
    from stdnum.ro import cnp
    from stdnum.si import emso
    from stdnum.th import pin
    assert stdnum
    return [(ik.is_valid, check.baltic_personal_code, "3DDDDDDDDDD"),
            (pvn.is_valid, check.latvian_personal_code, "1DDDDD1DDDD"),
            (rc.is_valid, check.birth_number, "DDDDDDDDDD"), (cnp.is_valid, check.romanian_cnp, "1DDDDDDDDDDDD"),
            (egn.is_valid, check.bulgarian_egn, "DDDDDDDDDD"), (oib.is_valid, check.croatian_oib, "DDDDDDDDDDD"),
            (emso.is_valid, check.emso, "DDDDDDDDDDDDD"), (amka.is_valid, check.greek_amka, "DDDDDDDDDDD"),
            (kennitala.is_valid, check.kennitala, "DDDDDDDDD9"), (ci.is_valid, check.ecuador_ci, "1DDDDDDDDD"),
            (cui.is_valid, check.peru_cui, "DDDDDDDDD"), (nit.is_valid, check.colombia_nit, "DDDDDDDDDD"),
            (pin.is_valid, check.thai_pin, "1DDDDDDDDDDDD"), (ird.is_valid, check.nz_ird, "1DDDDDDDD"),
            (bc_phn.is_valid, check.bc_phn, "9DDDDDDDDD"), (nhs.is_valid, check.nhs_number, "DDDDDDDDDD")]


def test_the_check_digits_agree_with_python_stdnum() -> None:
    draw = random.Random(5)
    for reference, ours, pattern in _stdnum_pairs():
        valid = 0
        for _ in range(600):
            body = "".join(draw.choice("0123456789") if c == "D" else c for c in pattern)
            if draw.random() < 0.7:  # a real birth date in the usual place, so that the check digit decides
                body = body[:1] + f"{draw.randint(40, 99)}{draw.randint(1, 12):02d}{draw.randint(1, 28):02d}" + body[7:]
            for last in "0123456789":
                number = body[:-1] + last
                if ours is check.kennitala and int(number[:2]) >= 40:
                    continue  # a firm's kennitala (day + 40): stdnum takes it, the scanner looks for people's
                assert bool(reference(number)) == ours(number), (ours.__name__, number)
                valid += ours(number)
        assert valid, ours.__name__


@pytest.mark.parametrize("rule, number", [
    (check.singapore_nric, "S1234567D"), (check.german_kvnr, "M123456785"),
    (check.luxembourg_matricule, "1985041212393"),
    (check.spanish_nss, "281234567840"), (check.hungarian_tax_number, "8123456786"), (check.uruguay_ci, "30687967"),
])
def test_formats_python_stdnum_lacks_pass_their_published_checks(rule, number: str) -> None:
    assert rule(number)
    assert not rule(number[:-1] + ("A" if number[-1].isalpha() and number[-1] != "A" else
                                   str((int(number[-1]) + 1) % 10) if number[-1].isdigit() else "B"))


@pytest.mark.parametrize("message, number", [
    ("Isikukood\n38504122710\nfor the rental contract", "38504122710"),  # the name on the line above
    ("38504122710 is mijn isikukood, voor de bank", "38504122710"),  # the name after the number
    ("pourquoi ils veulent mon EGN ? bon, le voici : 850412 654 0", "850412 654 0"),  # across a question
    ("CNP: 1850412401237, for the lease", "1850412401237"),
    ("Il mio OIB è 69852014737, serve per l'affitto", "69852014737"),
    ("EMŠO: 1204985501236 (sorella)", "1204985501236"),
    ("rodné číslo 850412/1230 pro pojišťovnu", "850412/1230"),
    ("kennitala mín er 120485-2029", "120485-2029"),
    ("NHS no. 943 476 5919, for the new GP", "943 476 5919"),
    ("IRD number 136-014-730 please", "136-014-730"),
    ("NRIC S1234567D for the gym membership", "S1234567D"),
    ("Krankenversichertennummer M123456785 fürs Rezept", "M123456785"),
    ("Matricule : 1985 04 12 12393, c'est pour la CNS", "1985 04 12 12393"),
    ("número de la seguridad social 28/12345678/40", "28/12345678/40"),
    ("adóazonosító jel 8123456786", "8123456786"),
    ("pour ma belle-mère, numéro d'identification thaïlandais 1103700123458", "1103700123458"),  # by the country
    ("CNIC 35202-1234567-1 for the visa letter", "35202-1234567-1"),
    ("el NIT de mi papá 79.123.456-0", "79.123.456-0"),  # a weak check, the number given as someone's
    ("numéro de permis britannique WOODA801185J99AB", "WOODA801185J99AB"),  # a UK driving licence, by its shape
])
def test_a_number_named_by_its_countrys_word_and_passing_its_check_is_taken_out(message: str, number: str) -> None:
    scan = find_secrets(message)
    assert scan.kind == "national_id" and number not in scan.redacted()


@pytest.mark.parametrize("message", [
    "Isikukood? I think it is on the card. Order 38504122711 still not shipped",  # fails the check, and an order's
    "EGN field left empty, invoice no. 8504126540 attached",  # the nearer name is an invoice's
    "CI build 30687967 failed again on main",  # a build number, far from any cédula
    "NHS no. XXX XXX 5919 on the letter",  # masked
    "rodné číslo 8504121231 (that one is wrong, I'll ask)",  # fails the check
    "NRIC S1234567E on the form is a typo",  # wrong check letter
    "EMŠO of the company: 1204985501236",  # a firm's
    "2 x 1850412401237 units of stock, CNP report attached",  # a name after the number follows it closely
])
def test_numbers_of_the_same_shape_stay(message: str) -> None:
    assert not find_secrets(message).found


def test_a_countrys_name_waits_for_its_number_in_the_next_message() -> None:
    assert is_lead("EMŠO della mia collega per il badge:")
    scan = find_secrets_after("EMŠO della mia collega per il badge:", "1204985501236")
    assert scan.found and "1204985501236" not in scan.redacted()
    scan = find_secrets_after("> please reply with your OIB", "> 69852014737")
    assert scan.found and "69852014737" not in scan.redacted()


def test_two_numbers_named_in_one_sentence_are_both_taken_out() -> None:
    scan = find_secrets("BSN 111222333 en paspoort NXC4R8K21")
    assert "111222333" not in scan.redacted() and "NXC4R8K21" not in scan.redacted()
