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


@pytest.mark.parametrize("lead, reply, secrets", [
    ("Passwort:", "sommer2024! nein warte: Sommer2024!", ["sommer2024", "Sommer2024"]),
    ("password", "hunter22 oops no: hunter23", ["hunter22", "hunter23"]),
    ("wachtwoord van de router:", "Zon-8823-maan sorry, Zon-8832-maan", ["Zon-8823-maan", "Zon-8832-maan"]),
])
def test_a_value_and_its_correction_are_both_taken_out(lead: str, reply: str, secrets: list[str]) -> None:
    """The mistyped value is one character from the real one: it gives it away as well."""
    scan = find_secrets_after(lead, reply)
    assert scan.found and not any(secret in scan.redacted() for secret in secrets)


def test_a_corrected_value_is_looked_for_only_where_a_secret_was_found() -> None:
    assert not find_secrets("ordered 4 items, no wait, 5 items").found
    scan = find_secrets("card 4111 1111 1111 1111, the other one is 4111 1111 1111 1112")
    assert scan.redacted().count("removed") == 2


def test_a_label_asked_as_a_question_takes_its_answer() -> None:
    assert find_secrets_after("CVV?", "417").kind == "card_code"
    assert not find_secrets_after("PIN?", "I forgot it").found


@pytest.mark.parametrize("lead, reply", [("code promo:", "SUMMER25"), ("código de reserva:", "ZK4P9M"),
                                         ("mot de passe ?", "je ne sais plus"), ("Passwort:", "weiß ich nicht mehr"),
                                         ("senha:", "não lembro")])
def test_codes_named_after_the_word_and_i_dont_know_stay(lead: str, reply: str) -> None:
    if is_lead(lead):
        assert not find_secrets_after(lead, reply).found
    assert not find_secrets(f"{lead} {reply}").found


@pytest.mark.parametrize("lead, reply, secret", [
    ("PIN della carta in the next message", "4471 (don't share)", "4471"),  # an aside after the value
    ("code de vérification ci-dessous", "it's 553 201", "553 201"),  # "it's", and a code in two groups
    ("TFN in the next message", "123 456 782", "123 456 782"),
    ("Geheimzahl kommt gleich", "4471\nthanks!", "4471"),
])
def test_a_value_announced_for_later_is_taken_out_with_the_words_around_it(lead: str, reply: str, secret: str) -> None:
    assert waits_for_value(lead) and not find_secrets(lead).found  # "ci-dessous" is no password
    scan = find_secrets_after(lead, reply)
    assert scan.found and secret not in scan.redacted()


@pytest.mark.parametrize("lead", ["Reservierungscode:", "confirmation code for the hotel:", "código del cupón:"])
def test_a_bookings_or_a_coupons_code_is_no_label_of_a_secret(lead: str) -> None:
    assert not is_lead(lead) and not find_secrets("XK9P2Q").found  # the chat reads the reference alone


def test_a_code_that_opens_something_is_a_secret_even_at_a_hotel() -> None:
    assert is_lead("the code for the hotel wifi:")
    assert find_secrets_after("door code for the Airbnb", "it's 78553#").found


@pytest.mark.parametrize("lead, reply, secrets", [
    ("cryptogramme visuel ?", "618 (au dos)", ["618"]),  # the label asked as a question, an aside after the value
    ("beveiligingscode achterop de kaart", "ok hier: 552", ["552"]),  # "ok here:" before three digits
    ("codice dispositivo dell'app della banca", "731904 - quello nuovo", ["731904"]),  # an aside after a dash
    ("¿Me pasas el pin del móvil? Te lo dejo aquí para que lo tengas:", "7720", ["7720"]),  # ends with a colon
    ("los tres números de atrás de la tarjeta son", "733 👍", ["733"]),
    ("Prüfziffer auf der Rückseite:", "418, nein sorry, 481", ["418", "481"]),  # a three-digit code corrected
    ("codice del cancello?", "5521#", ["5521"]),  # what it opens is part of the label
    ("pushTAN", "604217", ["604217"]),
    ("Forwarded:\n> what's your SIM PUK?", "> 31415926", ["31415926"]),  # someone else's request, answered
    ("mi PIN del teléfono", "4821, no perdón, 4812", ["4821", "4812"]),  # two digits swapped
])
def test_a_cards_code_or_a_pin_sent_after_its_label_is_taken_out(lead: str, reply: str, secrets: list[str]) -> None:
    assert is_lead(lead)
    scan = find_secrets_after(lead, reply)
    assert scan.found and not any(secret in scan.redacted() for secret in secrets)


def test_a_short_number_after_a_code_is_corrected_only_where_the_message_says_so() -> None:
    scan = find_secrets_after("CVV?", "418 and 481 euros left on it")
    assert "481" in scan.redacted()


def test_a_forwarded_notice_that_names_a_secret_asks_for_nothing() -> None:
    assert not is_lead("Forwarded:\n> your password was reset")


@pytest.mark.parametrize("lead, value, secret", [
    ("the alarm code changed, the new one is", "7719", "7719"),  # "changed" first, the value still to come
    ("Garagentor-Code hat sich geändert", "jetzt 55128", "55128"),  # "now" before the new value
    ("aquí va el número de iqama de mi esposo", "2345678904", "2345678904"),  # an identity number by its own name
    ("le numéro HKID de ma mère :", "C668668(9)", "C668668(9)"),
    ("the CVV is on the back, one sec", "338", "338"),  # announced: "one sec", "hang on", "un momento"
    ("pin del móvil nuevo", "found it: 4471", "4471"),
])
def test_a_value_after_a_lead_of_new_kinds_is_taken_out(lead: str, value: str, secret: str) -> None:
    assert is_lead(lead)
    scan = find_secrets_after(lead, value)
    assert scan.found and secret not in scan.redacted()
