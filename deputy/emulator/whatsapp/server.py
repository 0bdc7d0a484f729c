"""The WhatsApp emulator's aiohttp application: Graph API, user API and the chat page."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from deputy.emulator.whatsapp import graphapi, userapi
from deputy.emulator.whatsapp.hub import HUB_KEY, WaEmulatorConfig, WaHub

STATIC_DIR = Path(__file__).with_name("static")
MAX_BODY = 100 * 1024 * 1024  # WhatsApp documents may be up to 100 MB


def create_app(config: WaEmulatorConfig) -> web.Application:
    app = web.Application(client_max_size=MAX_BODY)
    hub = WaHub(config)
    app[HUB_KEY] = hub
    graphapi.setup(app)
    userapi.setup(app)
    app.router.add_get("/", _index)
    app.router.add_get("/healthz", _healthz)
    app.router.add_static("/static/", STATIC_DIR)

    async def close(_: web.Application) -> None:
        await hub.deliverer.close()

    app.on_cleanup.append(close)
    return app


async def _index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})


async def _healthz(request: web.Request) -> web.Response:
    return web.Response(text="ok")


def run(config: WaEmulatorConfig, host: str = "127.0.0.1", port: int = 8082, on_startup: list | None = None) -> None:
    print(f"WhatsApp emulator: chat page http://{host}:{port}/ ; Graph API http://{host}:{port}/v21.0 ; "
          f"delivering to {config.webhook_url}")
    app = create_app(config)
    app.on_startup.extend(on_startup or [])
    web.run_app(app, host=host, port=port, shutdown_timeout=2.0, print=None)
