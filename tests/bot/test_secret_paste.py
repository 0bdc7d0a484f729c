"""Pasted secrets are caught in the forms people type them, and what merely resembles one is left alone.

The corpora are data files beside this test: every line of `secret_pastes.txt` must be deleted from the
chat, every line of `not_secrets.txt` must stay. A detection that regresses fails the line it misses.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deputy.bot.secret_paste import deleted_notice, pasted_secret

DATA = Path(__file__).parent / "data"


def _lines(name: str) -> list[str]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [line.replace("\\n", "\n") for line in text.splitlines() if line.strip() and not line.startswith("#")]


SECRETS = _lines("secret_pastes.txt")
LOOK_ALIKES = _lines("not_secrets.txt")


def test_the_corpora_are_large_enough_to_mean_something() -> None:
    assert len(SECRETS) >= 100 and len(LOOK_ALIKES) >= 100
    assert len(set(SECRETS)) == len(SECRETS) and len(set(LOOK_ALIKES)) == len(LOOK_ALIKES)


@pytest.mark.parametrize("message", SECRETS)
def test_a_pasted_secret_is_caught(message: str) -> None:
    assert pasted_secret(message) is not None


@pytest.mark.parametrize("message", LOOK_ALIKES)
def test_a_look_alike_is_left_alone(message: str) -> None:
    assert pasted_secret(message) is None


@pytest.mark.parametrize(("message", "kind"), [
    ("4111 1111 1111 1111 12/27 123", "a card number"),
    ("the cvv is 123", "a card's security code or a PIN"),
    ("pw: hunter2", "a password"),
    ("login: bob / hunter2", "a password"),
    ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "an access key"),
])
def test_the_notice_says_what_was_removed_and_how_to_store_it_safely(message: str, kind: str) -> None:
    assert pasted_secret(message) == kind
    notice = deleted_notice(kind)
    assert notice.startswith(f"I deleted your message because it looked like it contained {kind}")
    assert "/connect" in notice and "\n" not in notice
    assert message not in notice and "hunter2" not in notice
