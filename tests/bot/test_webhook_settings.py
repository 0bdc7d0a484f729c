"""What an operator sets for webhook mode, and what `deputy bot` makes of it."""

from __future__ import annotations

import pytest

from deputy.apps.bot import webhook_config
from deputy.settings import Settings


def settings(**env: str) -> Settings:
    return Settings(**{"DEPUTY_SECRET": "signing-secret", "DEPUTY_WEBHOOK_URL": "https://bot.example.org/telegram", **env})


def test_the_webhook_secret_is_derived_from_the_signing_secret_but_is_not_it() -> None:
    config = webhook_config(settings())
    assert config.secret == webhook_config(settings()).secret  # every replica derives the same one
    assert "signing-secret" not in config.secret
    assert config.secret != webhook_config(Settings(DEPUTY_SECRET="another", DEPUTY_WEBHOOK_URL="https://x/t")).secret
    assert webhook_config(settings(DEPUTY_WEBHOOK_SECRET="chosen_by-me")).secret == "chosen_by-me"
    assert config.secret not in repr(config)  # never in a log line or a traceback


def test_listen_address_and_path() -> None:
    config = webhook_config(settings(DEPUTY_WEBHOOK_LISTEN="0.0.0.0:8443"))
    assert (config.host, config.port, config.path) == ("0.0.0.0", 8443, "/telegram")
    assert webhook_config(settings()).host == "127.0.0.1"  # not reachable from elsewhere unless asked


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"DEPUTY_WEBHOOK_SECRET": "has spaces"}, "DEPUTY_WEBHOOK_SECRET"),
        ({"DEPUTY_WEBHOOK_LISTEN": "8443"}, "DEPUTY_WEBHOOK_LISTEN"),
        ({"DEPUTY_WEBHOOK_URL": "bot.example.org/telegram"}, "DEPUTY_WEBHOOK_URL"),
        ({"DEPUTY_WEBHOOK_URL": "http://bot.example.org/telegram"}, "DEPUTY_WEBHOOK_URL must be https://"),
        ({"DEPUTY_WEBHOOK_URL": "https://bot.example.org:8080/telegram"}, "ports 443, 80, 88 or 8443"),
    ],
)
def test_wrong_settings_stop_the_bot_with_a_sentence_saying_what_to_fix(env: dict[str, str], says: str) -> None:
    with pytest.raises(SystemExit, match=says):
        webhook_config(settings(**env))


def test_an_empty_webhook_url_means_long_polling() -> None:
    assert not Settings(DEPUTY_WEBHOOK_URL="").webhook_url  # compose passes "" when it is unset


def test_telegrams_ports_are_taken_and_plain_http_only_when_the_local_setting_allows_it() -> None:
    for url in ("https://bot.example.org/t", "https://bot.example.org:8443/t", "https://bot.example.org:88/t"):
        assert webhook_config(settings(DEPUTY_WEBHOOK_URL=url)).url == url
    local = "http://127.0.0.1:48123/telegram"  # the emulator posts to a bot on this machine
    assert webhook_config(settings(DEPUTY_WEBHOOK_URL=local, DEPUTY_WEBHOOK_ALLOW_HTTP="on")).url == local
    with pytest.raises(SystemExit, match="DEPUTY_WEBHOOK_ALLOW_HTTP"):
        webhook_config(settings(DEPUTY_WEBHOOK_URL=local))
