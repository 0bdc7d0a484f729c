"""The emulator's aiohttp application: Bot API, user API and the web chat page."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from aiohttp import web

from deputy.emulator import botapi, userapi
from deputy.emulator.hub import EMULATOR_KEY, Emulator
from deputy.emulator.rules import ApiRules
from deputy.emulator.tgobjects import BotProfile

STATIC_DIR = Path(__file__).with_name("static")
#: Telegram lets bots upload files up to 50 MB; aiohttp's default body limit is 1 MB.
MAX_BODY = 50 * 1024 * 1024


def create_app(
    *,
    bot_name: str = "Deputy",
    bot_username: str = "deputy_bot",
    bot_id: int = BotProfile.id,
    clock: Callable[[], float] = time.time,
    emulator: Emulator | None = None,
    whatsapp_page: str | None = None,
    rules: ApiRules | None = None,
) -> web.Application:
    """Build the emulator app. The :class:`Emulator` is at ``app[EMULATOR_KEY]``.

    ``rules``: the real Bot API's rules unless relaxed (see :mod:`deputy.emulator.rules`)."""
    emu = emulator or Emulator(BotProfile(bot_id, bot_name, bot_username), clock, rules=rules)
    app = web.Application(client_max_size=MAX_BODY)
    app[EMULATOR_KEY] = emu
    botapi.setup(app)
    userapi.setup(app)
    app.router.add_get("/", _index)
    app.router.add_get("/whatsapp", _switch_to(whatsapp_page))
    app.router.add_static("/static/", STATIC_DIR)
    app.on_response_prepare.append(_no_cache)
    app.on_shutdown.append(_release_waiters)
    return app


async def _index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC_DIR / "index.html")


def _switch_to(page: str | None):
    """The header's switch to the WhatsApp page, where one runs."""

    async def switch(request: web.Request) -> web.Response:
        if not page:
            return web.Response(status=404, text="No WhatsApp page runs beside this chat (see `deputy run`).")
        raise web.HTTPFound(page)

    return switch


async def _no_cache(request: web.Request, response: web.StreamResponse) -> None:
    # The page is a dev tool: always serve the current files, never a stale cached copy.
    if request.path == "/" or request.path.startswith("/static/"):
        response.headers["Cache-Control"] = "no-cache"


async def _release_waiters(app: web.Application) -> None:
    # Long polls and SSE streams would otherwise hold the shutdown until they time out.
    app[EMULATOR_KEY].close()
    await app[EMULATOR_KEY].webhook.delete()


async def serve(
    host: str = "127.0.0.1", port: int = 8080, *, app: web.Application | None = None,
    rules: ApiRules | None = None,
) -> web.AppRunner:
    """Start serving in the running event loop; stop with ``await runner.cleanup()``.

    ``port=0`` picks a free port: read it with :func:`bound_port`.
    """
    runner = web.AppRunner(app or create_app(rules=rules), shutdown_timeout=2.0)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner


def bound_port(runner: web.AppRunner) -> int:
    """The TCP port a runner started by :func:`serve` listens on."""
    return int(runner.addresses[0][1])


def run(host: str = "127.0.0.1", port: int = 8080, on_startup: list | None = None,
        whatsapp_page: str | None = None, rules: ApiRules | None = None) -> None:
    """Serve until interrupted (Ctrl+C). Blocking. `on_startup`: more aiohttp start-up callbacks."""
    print(f"Telegram emulator: chat page http://{host}:{port}/ ; bot base_url http://{host}:{port}/bot")
    app = create_app(whatsapp_page=whatsapp_page, rules=rules if rules is not None else ApiRules.from_environment())
    app.on_startup.extend(on_startup or [])
    web.run_app(app, host=host, port=port, shutdown_timeout=2.0, print=None)
