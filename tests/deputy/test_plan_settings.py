"""The operator's plans: the shipped ones by default, their own file, a default plan, a flood limit for public bots."""

from __future__ import annotations

import pytest

from deputy.settings import Settings


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TELEGRAM_BOT_TOKEN", "DEPUTY_PLANS_FILE", "DEPUTY_DEFAULT_PLAN", "DEPUTY_MESSAGES_PER_MINUTE"):
        monkeypatch.delenv(name, raising=False)


def test_without_a_plans_file_the_shipped_free_plus_and_pro_apply() -> None:
    book = Settings().plan_book()
    assert list(book.plans) == ["free", "plus", "pro"] and book.default == "free"


def test_the_operators_own_file_and_default_plan(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    plans = tmp_path / "plans.toml"
    plans.write_text('default = "family"\n[plans.family]\ntitle = "Family"\nday = { goals = 20 }\n'
                     '[plans.guest]\ntitle = "Guest"\nday = { goals = 2 }\n')
    monkeypatch.setenv("DEPUTY_PLANS_FILE", str(plans))
    assert Settings().plan_book().get(None).title == "Family"
    monkeypatch.setenv("DEPUTY_DEFAULT_PLAN", "guest")
    assert Settings().plan_book().get(None).day.goals == 2
    monkeypatch.setenv("DEPUTY_DEFAULT_PLAN", "gold")
    with pytest.raises(SystemExit, match="DEPUTY_DEFAULT_PLAN 'gold' is not one of the plans: family, guest"):
        Settings().plan_book()


def test_a_broken_plans_file_stops_the_process_with_what_to_fix(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    plans = tmp_path / "plans.toml"
    plans.write_text('default = "free"\n[plans.free]\ntitle = "Free"\nday = { goals = -1 }\n')
    monkeypatch.setenv("DEPUTY_PLANS_FILE", str(plans))
    with pytest.raises(SystemExit, match="plans.free.day.goals"):
        Settings().plan_book()
    monkeypatch.setenv("DEPUTY_PLANS_FILE", str(tmp_path / "missing.toml"))
    with pytest.raises(SystemExit, match="cannot read the plans file"):
        Settings().plan_book()


def test_a_public_bot_limits_message_floods_and_the_local_chat_page_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().flood_limit() is None
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:abc")
    assert Settings().flood_limit() == 30
    monkeypatch.setenv("DEPUTY_MESSAGES_PER_MINUTE", "5")
    assert Settings().flood_limit() == 5
