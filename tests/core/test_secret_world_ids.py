"""Identity numbers of Latin America, Asia, Africa and Eastern Europe: each check against python-stdnum where it has
the number, the published examples where it has not, and messages that give such a number or only look like one."""

from __future__ import annotations

import random

import pytest
from stdnum import luhn
from stdnum.ar import cuit
from stdnum.gh import tin
from stdnum.gt import nit as gt_nit
from stdnum.md import idno
from stdnum.mu import nid
from stdnum.mz import nuit
from stdnum.py import ruc
from stdnum.ru import inn
from stdnum.si import emso
from stdnum.sv import nit as sv_nit
from stdnum.ua import rntrc
from stdnum.ve import rif
from stdnum.vn import mst

from deputy.core.secret_scan import country_checks, find_secrets
from deputy.core.secret_scan import world_checks as check

_RANDOM = random.Random(20261207)
_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _digits(count: int) -> str:
    return "".join(_RANDOM.choice("0123456789") for _ in range(count))


def _date(year_digits: int = 2) -> str:
    return f"{_RANDOM.randint(0, 99):02d}"[-year_digits:] + f"{_RANDOM.randint(1, 12):02d}{_RANDOM.randint(1, 28):02d}"


# (our check, stdnum's for the same kind of number, a generator of candidates of the number's shape)
_AGAINST_STDNUM = {
    "cuil": (check.argentina_cuil, lambda x: cuit.is_valid(x) and x[:2] in ("20", "23", "24", "27"),
             lambda: _RANDOM.choice(["20", "23", "24", "27", "30"]) + _digits(9)),
    "rif": (check.venezuela_rif, lambda x: rif.is_valid(x) and x[0] in "VE", lambda: _RANDOM.choice("VEJ") + _digits(9)),
    "gt_nit": (check.mod11_nit, lambda x: gt_nit.is_valid(x),
               lambda: _digits(_RANDOM.randint(5, 11)) + _RANDOM.choice("0123456789K")),
    "sv_nit": (check.salvador_nit, sv_nit.is_valid, lambda: _RANDOM.choice("019") + _digits(13)),
    "py_ruc": (check.paraguay_ruc, lambda x: ruc.is_valid(x) and not (len(x) == 9 and x[:2] == "80"),
               lambda: _digits(_RANDOM.randint(6, 9))),
    "rnokpp": (check.ukraine_rnokpp, rntrc.is_valid, lambda: _digits(10)),
    "inn": (check.russia_inn, inn.is_valid, lambda: _digits(12)),
    "mu_nid": (check.mauritius_nid, nid.is_valid, lambda: _RANDOM.choice("ABRS") + _date() + _digits(6)
               + _RANDOM.choice(_ALNUM)),
    "nuit": (check.mozambique_nuit, nuit.is_valid, lambda: _digits(9)),
    "gh_tin": (check.ghana_tin, lambda x: tin.is_valid(x), lambda: _RANDOM.choice("PCGQV") + "00" + _digits(7)
               + _RANDOM.choice("0123456789X")),
    "vn_mst": (check.vietnam_mst, mst.is_valid, lambda: _digits(10)),
    "idnp": (check.moldova_idnp, lambda x: idno.is_valid(x) or (x[0] == "2" and idno.calc_check_digit(x[:12]) == x[12]),
             lambda: "2" + _digits(12)),
    "jmbg": (country_checks.emso, emso.is_valid, lambda: _date()[4:] + _date()[2:4] + _RANDOM.choice(["9", "0"])
             + _digits(8)),  # DDMM, then the year's last three digits (9xx, 0xx), region, serial, check
    "emirates": (check.emirates_id, lambda x: luhn.is_valid(x), lambda: "784" + str(_RANDOM.randint(1940, 2020)) + _digits(8)),
    "saudi": (check.saudi_id, lambda x: luhn.is_valid(x), lambda: _RANDOM.choice("12") + _digits(9)),
}


@pytest.mark.parametrize("name", sorted(_AGAINST_STDNUM))
def test_each_check_agrees_with_stdnum(name: str) -> None:
    ours, theirs, candidate = _AGAINST_STDNUM[name]
    valid = 0
    for _ in range(20_000):
        number = candidate()
        assert ours(number) == theirs(number), number
        valid += ours(number)
    assert valid >= 100, f"too few valid {name} numbers drawn to say anything: {valid}"


def test_published_examples_pass_and_one_changed_digit_fails() -> None:
    for valid, number in ((check.taiwan_id, "A123456789"), (check.hkid, "A1234563"), (check.snils, "11223344595")):
        assert valid(number)
        for position, char in enumerate(number):
            if char.isdigit():
                changed = number[:position] + str((int(char) + 1) % 10) + number[position + 1:]
                assert not valid(changed), changed


@pytest.mark.parametrize("message, value", [
    ("Necesito registrar a mi hijo, su CUIL es 20-44556677-3", None),
    ("My Taiwanese ID card: F131104093 for the train pass", "F131104093"),
    ("hkid of my dad: C668668(9)", "C668668(9)"),
    ("ma fille a un IIN kazakh, le voici : 050512600233", "050512600233"),
    ("Emirates ID 784-1990-5421369-1 for the tenancy contract", "784-1990-5421369-1"),
    ("Iqama do meu marido: 2345678904", "2345678904"),
    ("Número de DUI de mi papá 00016297-5", "00016297-5"),
    ("la tarjeta de identidad hondureña de mi mamá: 0801-1975-04321", "0801-1975-04321"),
    ("Số CCCD của mẹ tôi là 079185001234", "079185001234"),
])
def test_a_number_given_with_its_name_is_caught(message: str, value: str | None) -> None:
    scan = find_secrets(message)
    assert scan.found and scan.kind == "national_id", message
    if value is not None:
        assert value not in scan.redacted()


def test_the_examples_above_pass_their_checks() -> None:
    assert check.argentina_cuil("20445566773") and check.taiwan_id("F131104093") and check.hkid("C6686689")
    assert check.kazakhstan_iin("050512600233") and check.emirates_id("784199054213691")
    assert check.saudi_id("2345678904") and check.salvador_dui("000162975")


@pytest.mark.parametrize("message", [
    "Our company's INN is 7707083893, please put it on the invoice",  # a firm's INN: ten digits
    "RIF de la empresa: J-30123456-7",
    "RUC de la empresa 80012345-6",
    "Moldovan company IDNO 1003600012345",
    "Tracking K220463121 for the parcel from Taipei",
    "Reference A123456788 for the shipment to Taiwan",  # a Taiwanese ID's shape, failing its check, a reference
    "el número de envío a Taiwán es A123456788",
    "Emirates ID 784199054213692 was rejected",  # fails Luhn
    "Order 784-1990-5421369-1 from the Dubai shop",
    "Ukrainian phone: 0671234567",
    "Invoice 2154089391 from the Saudi supplier is paid",
    "My Emirates ID expired last month, how do I renew it?",
    "What documents do I need for a DNI?",
])
def test_look_alikes_stay(message: str) -> None:
    assert not find_secrets(message).found, message
