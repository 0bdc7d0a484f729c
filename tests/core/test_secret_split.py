"""A secret split over two messages: which first message waits for a value, and what counts as the value."""

import pytest

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
