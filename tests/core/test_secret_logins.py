"""Logins in the layouts people send them: the password is taken out, the user name stays readable."""

import pytest

from deputy.core.secret_scan import find_secrets


@pytest.mark.parametrize("message, name, password", [
    ("for the gym app it's mara.k / tiger1987, book me a class", "mara.k", "tiger1987"),
    ("Konto von Opa bei der Bank: j.doe88 / Sunflower7", "j.doe88", "Sunflower7"),
    ("for the school portal it's emma.b and tiger77", "emma.b", "tiger77"),
    ("log in with bob and Hunter22 and download the invoice", "bob", "Hunter22"),
    ("for netflix: anna@example.com hunter22", "anna@example.com", "hunter22"),
    ("username and password for the portal: emma.b hunter22", "emma.b", "hunter22"),
    # the quotes around a value are no part of it: what is kept still reads as the message did
    ("Credentials for the test box: username `ops`, password `Xy7!pQ2#zz`", "`ops`, password `", "Xy7!pQ2#zz"),
    ('{"host": "intranet.example.com", "user": "kim", "password": "Rz8#kLm2!q"}', '"kim", "password": "', "Rz8#kLm2!q"),
    ("usr/pwd: bob/hunter22", "bob", "hunter22"),
    ("creds -> bob / hunter22", "bob", "hunter22"),
    ("Steam: anna_k92 : Dragon!2022", "anna_k92", "Dragon!2022"),
    ("anna.k@example.com;Sonne!2024", "anna.k@example.com", "Sonne!2024"),  # as a spreadsheet exports it
])
def test_the_password_is_taken_out_and_the_user_name_stays(message: str, name: str, password: str) -> None:
    kept = find_secrets(message).redacted()
    assert password not in kept
    assert name in kept


@pytest.mark.parametrize("message", [
    "versions: node18 / python3.11",
    "the flight is LH2034 / LH2035 return",
    "ticket PROJ-1234 / PROJ-1235 for the login page",
    "new user: anna.k / role: editor2",  # the next field's label is no password
    "my paypal link: paypal.me/AnnaK22",  # an address and its path
    "The wifi is Casa_5G, the password is on the fridge",  # the network's name, its password said apart
    "docker run -e POSTGRES_PASSWORD_FILE=/run/secrets/db-passwd -d postgres:16",  # a file holds it
])
def test_pairs_and_names_that_are_no_login_stay(message: str) -> None:
    assert not find_secrets(message).found
