"""What a chat surface's handlers are given, read from the settings: one place for Telegram and WhatsApp.

Both surfaces run the same handlers and outbox consumer, so they must be built alike: a setting
passed to one and forgotten for the other (spoken replies, the web view's links, the test clock, the key that
opens a confidential user's data while they are unlocked)
would quietly make a WhatsApp user's Deputy a lesser one.
"""

from __future__ import annotations

from deputy.bot.services import BotServices
from deputy.core.confidential import install_unlock_key
from deputy.core.infrastructure.clock import process_clock
from deputy.core.infrastructure.redis_clients import sync_client
from deputy.settings import Settings


def chat_services(settings: Settings) -> BotServices:
    install_unlock_key(settings.unlock_key_value())  # a confidential user's data opens while they are unlocked
    services = BotServices.create(
        sync_client(settings.redis_url, patient=False), settings.secret_value(), settings.allowed_user_ids(),
        settings.connect_base_url(), redis_url=settings.redis_url, audit_key=settings.audit_key_value(),
        audit_keep=settings.audit_keep, plans=settings.plan_book(), messages_per_minute=settings.flood_limit(),
        workspace_limits=settings.workspace_limits(), web_url=settings.web_base_url(),
        transcriber=settings.transcriber(), egress_allow=settings.egress_allow(),
        spoken_replies=settings.spoken_replies == "voice",
    )
    services.clock = process_clock()  # real time, or an end-to-end test's clock (DEPUTY_TEST_CLOCK_FILE)
    return services


__all__ = ["chat_services"]
