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


@pytest.mark.parametrize("message, code", [
    ("alarm panel: disarm with 8264, then OFF", "8264"),
    ("codice d'accesso all'allarme 5182, hai 20 secondi", "5182"),
    ("code sim 3390 si le téléphone redémarre", "3390"),
    ("Prüfnummer (3 Ziffern, Rückseite): 518", "518"),  # an aside with a digit between the label and the value
    ("secruity code 227 (typo, the security code)", "227"),  # a misspelt label
    ("Cód. segurança: 604", "604"),
    ("the 3 numbers on the back of the card are 981", "981"),
    ("de code van het sleutelkastje bij de deur: 4420", "4420"),  # a key safe's code opens a door
    ("mot de passe de l'appli bancaire 918273", "918273"),
    ("door code: 4 8 2 1", "4 8 2 1"),  # spaced digits
    ("digits on the back: 915", "915"),
])
def test_a_cards_code_a_sims_or_an_alarms_code_is_taken_out(message: str, code: str) -> None:
    scan = find_secrets(message)
    assert scan.found and code not in scan.redacted()


def test_a_cards_expiry_stays_and_the_code_after_it_on_its_own_line_goes() -> None:
    scan = find_secrets("5555 5555 5555 4444\nexp 09/28\n731\nbook the room with it")
    assert "5555 5555 5555 4444" not in scan.redacted() and "731" not in scan.redacted()
    assert "exp 09/28" in scan.redacted()  # without the number the expiry opens nothing; the user sees which card


@pytest.mark.parametrize("message", [
    "room 318 on the 3rd floor, the 3 numbers on the door",
    "bus 214 to the alarm shop, then 12 minutes walk",
    "the 3 digits on the back are worn off, can you call the bank?",
])
def test_numbers_near_code_words_that_are_no_code_stay(message: str) -> None:
    assert not find_secrets(message).found
