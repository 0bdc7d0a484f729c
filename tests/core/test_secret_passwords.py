"""Passwords said in a sentence: the value is taken out, the words around it stay."""

import pytest

from deputy.core.secret_scan import find_secrets


@pytest.mark.parametrize("message, secret, kept", [
    ("the passcode for Friday's webinar is Q7mWv2", "Q7mWv2", "Friday's webinar"),  # a possessive is no "is"
    ("security answer is Miss Marple (both capitalised)", "Miss Marple", "(both capitalised)"),
    ("recovery key for the old laptop: 123123-456456-012012-345345-678678-111111-222222-333333",
     "123123-456456-012012-345345-678678-111111-222222-333333", "old laptop"),  # BitLocker's format, by its check
    ("WLAN-Schlüssel: Sonne-Mond-77", "Sonne-Mond-77", "WLAN-Schlüssel"),
    ("just use hunter2 as the password for the demo account, no wait, use mvPgVsCX", "mvPgVsCX", "demo account"),
])
def test_the_value_is_taken_out_and_its_words_stay(message: str, secret: str, kept: str) -> None:
    text = find_secrets(message).redacted()
    assert secret not in text and kept in text


@pytest.mark.parametrize("message", [
    "the wifi network is Casa_5G, no password needed",
    "BitLocker is on; the recovery key is saved in my Microsoft account",
    "new password rules: Coca-Cola and Wi-Fi are banned words",
])
def test_names_of_things_stay(message: str) -> None:
    assert not find_secrets(message).found
