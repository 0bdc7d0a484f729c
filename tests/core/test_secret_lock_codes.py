"""Codes that open things, said with words between, and the numbers near such words that are no code."""

from __future__ import annotations

import pytest

from deputy.core.secret_scan import find_secrets


@pytest.mark.parametrize("message, value", [
    ("De code van de sleutelkluis bij de achterdeur is 3391", "3391"),
    ("the code to disarm the alarm at the warehouse is 55812", "55812"),
    ("Kombinationsschloss vom Spind: 0417", "0417"),
    ("the 3 numbers for the luggage lock are 508", "508"),
    ("lucchetto della bici 7713", "7713"),
    ("luggage lock combination 507", "507"),
    ("Hausalarm deaktivieren mit 4411", "4411"),
    ("la combinación del candado de la maleta es 882", "882"),
    ("CVV de la tarjeta para el hotel de Lisboa: 417.", "417"),
    ("los tres numeritos de atrás de la tarjeta: 316", "316"),
    ("la barrera del garaje se abre con 6620", "6620"),
    ("Der Code für die Garagenfernbedienung ist 9183", "9183"),
    ("la combinaison du casier est 4-17-32", "4-17-32"),
    ("das Alarmpanel mit 7310 ausschalten", "7310"),
])
def test_a_code_that_opens_something_is_caught(message: str, value: str) -> None:
    scan = find_secrets(message)
    assert scan.found and value not in scan.redacted(), message


@pytest.mark.parametrize("message", [
    "Locker 214 is mine, the code is on the app",
    "the bus 4468 goes to the gate",
    "Error code 502 again",
    "GPIO pin 17 is the LED",
    "my bike lock broke, need a new one with a 4 digit code",
    "The safe is 40 cm wide",
    "PIN code: 411001, that's the post office of my parents' address",  # India's PIN code: a postcode
    "PIN code 560001, Bangalore",
    "Room 1204, door code later",
    "the gate opens at 1130, boarding closes at 1150",
    "la puerta del garaje mide 240 cm",
])
def test_look_alikes_stay(message: str) -> None:
    assert not find_secrets(message).found, message
