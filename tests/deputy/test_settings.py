"""Configuration: secure defaults a operator relies on."""

from __future__ import annotations

from pathlib import Path

import pytest

from deputy.settings import Settings


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TELEGRAM_BOT_TOKEN", "DEPUTY_ALLOWED_USERS", "DEPUTY_SECRET", "DEPUTY_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)


def test_a_real_token_without_an_allow_list_admits_nobody(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:abc")
    assert Settings().allowed_user_ids() == frozenset()


def test_the_local_emulator_without_an_allow_list_admits_everyone() -> None:
    assert Settings().allowed_user_ids() is None


def test_allow_list_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPUTY_ALLOWED_USERS", "12, 34,")
    assert Settings().allowed_user_ids() == frozenset({12, 34})


def test_secret_is_generated_once_and_kept_private(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DEPUTY_DATA_DIR", str(tmp_path))
    first = Settings().secret_value()
    assert len(first) >= 32
    assert Settings().secret_value() == first
    assert (tmp_path / "secret").stat().st_mode & 0o077 == 0


def test_explicit_secret_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DEPUTY_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DEPUTY_SECRET", "from-the-environment")
    assert Settings().secret_value() == "from-the-environment"
    assert not (tmp_path / "secret").exists()
