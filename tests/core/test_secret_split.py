"""A secret split over two messages: which first message waits for a value, and what counts as the value."""

import pytest

from deputy.core.secret_scan import find_secrets, find_secrets_after, waits_for_value
from deputy.core.secret_scan.split import is_lead, lone_value


@pytest.mark.parametrize("text", ["the wifi password is", "my password is:", "mein Passwort lautet",
                                  "le mot de passe est", "user is admin, password in next msg", "router login: admin"])
def test_a_message_that_names_a_secret_without_its_value_waits_for_it(text: str) -> None:
    assert is_lead(text)


@pytest.mark.parametrize("text", ["remember my bike lock code is wombat-2468", "what is my pin?",
                                  "remember my locker nickname is heliotrope"])
def test_a_message_that_gave_its_value_or_asks_about_one_waits_for_nothing(text: str) -> None:
    assert not is_lead(text)


def test_a_command_is_never_the_second_half_of_a_secret() -> None:
    assert lone_value("/lock") is None
    assert lone_value("Xk9#mm2Lq") is not None


@pytest.mark.parametrize("text", ["my password is", "the code:", "PIN?", "the wifi pw, so you have it", "PIN kommt gleich",
                                  "my netflix password", "Steuer-ID kommt hier", "security answer (first pet)"])
def test_a_label_alone_waits_for_its_value_and_starts_nothing(text: str) -> None:
    assert waits_for_value(text)


@pytest.mark.parametrize("text", ["reset my github password", "change my password please", "book with my card",
                                  "what is my pin?", "send me the promo code", "I forgot my wifi password"])
def test_a_goal_that_mentions_a_secret_is_not_held(text: str) -> None:
    assert not waits_for_value(text)


def test_the_next_message_is_read_as_the_labels_continuation() -> None:
    assert find_secrets_after("Steuer-ID kommt hier", "86095742719").kind == "national_id"
    assert find_secrets_after("Das Passwort ist", "Slide_garden498!").kind == "password"
    assert not find_secrets_after("the code:", "actually, just remind me to buy a padlock tomorrow").found
    assert not find_secrets_after("reset my github password", "tomorrow I need it").found


@pytest.mark.parametrize("lead, value, secret", [
    ("backup codes, keep them somewhere safe", "4821 9930\n1177 2045", "1177 2045"),  # "codes", plural, names them
    ("passphrase for the NAS, 4 words", "lantern copper meadow violet", "lantern copper meadow violet"),
    ("password for the vpn, next message", "correct horse battery staple", "correct horse battery staple"),
    ("SV-Nummer für den Arbeitgeber", "1237 010180", "1237 010180"),
    ("Das Kennwort fürs Gäste-WLAN:", "Igel!Birne4471", "Igel!Birne4471"),
])
def test_a_value_after_its_label_is_taken_out(lead: str, value: str, secret: str) -> None:
    assert is_lead(lead)
    scan = find_secrets_after(lead, value)
    assert scan.found and secret not in scan.redacted()


def test_a_label_that_ends_with_the_things_name_keeps_the_name() -> None:
    assert not find_secrets("Das Kennwort fürs Gäste-WLAN:").found  # "Gäste-WLAN" names the network
    assert waits_for_value("Das Kennwort fürs Gäste-WLAN:")


@pytest.mark.parametrize("reply", ["ok see you later", "thanks got it", "sounds good, will do"])
def test_a_plain_reply_after_a_password_label_is_no_passphrase(reply: str) -> None:
    assert not find_secrets_after("password for the vpn, next message", reply).found
