"""Entry point for `deputy whatsapp`: the WhatsApp Cloud API surface."""

from __future__ import annotations

import asyncio
import logging
import signal
from typing import TYPE_CHECKING

from deputy.apps.chat_services import chat_services
from deputy.runtime.health import LoopProbe, redis_check, serve_health
from deputy.settings import Settings

if TYPE_CHECKING:
    from deputy.whatsapp.surface import WhatsAppConfig

log = logging.getLogger(__name__)

# With no real token the surface talks to the local WhatsApp emulator, which shares these values.
LOCAL_TOKEN = "local-whatsapp-token"
LOCAL_PHONE_NUMBER_ID = "100000000000001"
LOCAL_APP_SECRET = "local-whatsapp-app-secret"
LOCAL_VERIFY_TOKEN = "local-verify-token"


def config_from(settings: Settings) -> WhatsAppConfig:
    """DEPUTY_WHATSAPP_* checked, with messages that say what to fix (the local emulator's values without a token)."""
    from deputy.bot.webhook import parse_listen
    from deputy.whatsapp.sender import Template
    from deputy.whatsapp.surface import WhatsAppConfig

    try:
        host, port = parse_listen(settings.whatsapp_listen)
    except ValueError:
        raise SystemExit(f"DEPUTY_WHATSAPP_LISTEN must be host:port, e.g. 0.0.0.0:8444 "
                         f"(got {settings.whatsapp_listen!r})") from None
    template = Template(settings.whatsapp_template, settings.whatsapp_template_language)
    if settings.whatsapp_token is None:
        return WhatsAppConfig(LOCAL_TOKEN, LOCAL_PHONE_NUMBER_ID, LOCAL_APP_SECRET, LOCAL_VERIFY_TOKEN,
                              f"http://127.0.0.1:{settings.whatsapp_chat_port}/v21.0", host, port, template=template)
    missing = [name for name, value in (
        ("DEPUTY_WHATSAPP_TOKEN", settings.whatsapp_token.get_secret_value()),
        ("DEPUTY_WHATSAPP_PHONE_NUMBER_ID", settings.whatsapp_phone_number_id),
        ("DEPUTY_WHATSAPP_APP_SECRET", settings.whatsapp_app_secret),
        ("DEPUTY_WHATSAPP_VERIFY_TOKEN", settings.whatsapp_verify_token)) if not value]
    if missing:
        raise SystemExit(f"For a real WhatsApp number, set {', '.join(missing)} (see docs/running/whatsapp.md).")
    return WhatsAppConfig(settings.whatsapp_token.get_secret_value(), str(settings.whatsapp_phone_number_id),
                          settings.whatsapp_app_secret.get_secret_value(),  # type: ignore[union-attr]
                          settings.whatsapp_verify_token.get_secret_value(),  # type: ignore[union-attr]
                          settings.whatsapp_api_base, host, port, template=template)


def serve(settings: Settings) -> None:
    from deputy.whatsapp.surface import serve as serve_surface

    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set: point it at your Redis, e.g. redis://127.0.0.1:6379/0")
    config = config_from(settings)
    services = chat_services(settings)
    live = LoopProbe()
    serve_health(settings.health_port, settings.health_host, live, {"redis": redis_check(settings.redis_url)})

    async def main() -> None:
        live.bind()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await serve_surface(services, config, settings.redis_url or "", stop)

    asyncio.run(main())


def run_emulator(settings: Settings, host: str, port: int | None, webhook: str | None,
                 telegram_page: str | None) -> None:
    """`deputy wa-emulator`: the local WhatsApp Cloud API, delivering to the local surface."""
    from deputy.emulator.whatsapp import WaEmulatorConfig, run

    listen = settings.whatsapp_listen.replace("0.0.0.0", "127.0.0.1")
    config = WaEmulatorConfig(
        webhook_url=webhook or f"http://{listen}/whatsapp", token=LOCAL_TOKEN, app_secret=LOCAL_APP_SECRET,
        phone_number_id=LOCAL_PHONE_NUMBER_ID, templates={settings.whatsapp_template},
        telegram_page=telegram_page or f"http://127.0.0.1:{settings.chat_port}/")
    run(config, host=host, port=port or settings.whatsapp_chat_port)
