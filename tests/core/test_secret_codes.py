"""One-time codes, backup codes and combinations, in the phrasings of banks, apps and people; look-alikes stay."""

import pytest

from deputy.core.secret_scan import find_secrets


@pytest.mark.parametrize("message, code", [
    ("pushTAN für die Überweisung an K. Brandt über 1.250,00 EUR: 604 217", "604 217"),  # a clause before the value
    ("Code 3-D Secure pour votre achat de 42,50 € chez Darty : 771503", "771503"),
    ("Votre code 3D Secure est 771503", "771503"),
    ("codice di accesso: 71 09 44 (appena arrivato)", "71 09 44"),  # in pairs of digits
    ("the authenticator shows 604 217 right now", "604 217"),
    ("Use 6042179 as your account security code", "6042179"),
    ("enter 604217 to verify your account", "604217"),
    ("Recovery codes:\n1. 4821 9930\n2. 1177 2045\n3. 5630 8812", "5630 8812"),  # a numbered list
    ("Backup-Codes fürs Konto: 4821 9930, 1177 2045, 5630 8812, 9054 3321", "9054 3321"),  # all on the label's line
    ("combinación del candado: 12-34-56", "12-34-56"),  # a lock's combination is a password too
    ("Spind-Kombination 07-21-38, Schrank 14", "07-21-38"),
])
def test_a_code_to_type_in_is_taken_out(message: str, code: str) -> None:
    scan = find_secrets(message)
    assert scan.found and code not in scan.redacted()


@pytest.mark.parametrize("message", [
    "I need the confirmation code for order 55512, please: 88123",  # the code of an order
    "mTAN-Verfahren wird ab 01.07.2025 abgeschaltet: 2025",
    "backup codes are on paper, version 2 of the list: 2024",
    "code de réduction : 12345",
    "2FA is on, the recovery codes are printed in the safe",
])
def test_codes_of_orders_and_talk_about_codes_stay(message: str) -> None:
    assert not find_secrets(message).found
