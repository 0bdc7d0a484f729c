"""`deputy whatsapp` configuration: the local emulator without a token, clear errors with a partial one."""

from __future__ import annotations

import pytest

from deputy.settings import Settings
from deputy.apps.whatsapp import LOCAL_PHONE_NUMBER_ID, config_from


def test_without_a_token_the_surface_talks_to_the_local_emulator() -> None:
    config = config_from(Settings(DEPUTY_WHATSAPP_CHAT_PORT="9123", DEPUTY_WHATSAPP_LISTEN="127.0.0.1:9124"))
    assert config.api_base == "http://127.0.0.1:9123/v21.0" and config.phone_number_id == LOCAL_PHONE_NUMBER_ID
    assert (config.host, config.port, config.path) == ("127.0.0.1", 9124, "/whatsapp")


def test_a_real_number_needs_every_value_and_none_is_shown() -> None:
    with pytest.raises(SystemExit, match="DEPUTY_WHATSAPP_APP_SECRET, DEPUTY_WHATSAPP_VERIFY_TOKEN"):
        config_from(Settings(DEPUTY_WHATSAPP_TOKEN="EAAG-real", DEPUTY_WHATSAPP_PHONE_NUMBER_ID="123"))
    with pytest.raises(SystemExit, match="DEPUTY_WHATSAPP_TOKEN"):
        config_from(Settings(DEPUTY_WHATSAPP_TOKEN="", DEPUTY_WHATSAPP_PHONE_NUMBER_ID="123"))
    config = config_from(Settings(DEPUTY_WHATSAPP_TOKEN="EAAG-real", DEPUTY_WHATSAPP_PHONE_NUMBER_ID="123",
                                  DEPUTY_WHATSAPP_APP_SECRET="app-secret", DEPUTY_WHATSAPP_VERIFY_TOKEN="verify",
                                  DEPUTY_WHATSAPP_TEMPLATE="my_news"))
    assert config.api_base == "https://graph.facebook.com/v21.0" and config.template.name == "my_news"
    assert "EAAG-real" not in repr(config) and "app-secret" not in repr(config)
    with pytest.raises(SystemExit, match="host:port"):
        config_from(Settings(DEPUTY_WHATSAPP_LISTEN="8444"))
