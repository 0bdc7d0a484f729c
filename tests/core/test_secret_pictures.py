"""Text read from a picture: the usual misreadings of digits do not let a card through, and ordinary text stays."""

import pytest

from deputy.core.secret_scan.pictures import picture_secrets


@pytest.mark.parametrize("read", [
    "BANK OF SOMEWHERE\nA242 4242 4242 4242\nVALID THRU 09/29",  # the first 4 read as an A
    "VISA\n4111 1211 1111 1111\nexp 09/27",  # one digit misread: Luhn fails, the shape and the card's words remain
    "wifi password: Xk9#mm2Lq-77",
])
def test_a_card_or_password_is_found_in_what_was_read(read: str) -> None:
    assert picture_secrets(read).found


@pytest.mark.parametrize("read", ["Order 1234 5678 9012 3456 shipped on 12/05", "Bins go out on Tuesday\nDentist 3pm",
                                  "Boarding pass  Gate B12  Seat 14A  Flight LH 1234"])
def test_an_ordinary_picture_holds_no_secret(read: str) -> None:
    assert not picture_secrets(read).found
