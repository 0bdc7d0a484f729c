"""Entry point for `deputy browser-host` (also `python -m deputy.apps.browser_host`): the browser host.

It starts each user's keyless browser worker for the executors (`deputy.connectors.web.host`), so
the executor needs neither root nor user namespaces to browse. It must hold nothing worth
stealing from a browser that escaped: it refuses to start with any of Deputy's keys, tokens or
passwords, or a way into Redis, in its environment.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
from collections.abc import Mapping

from pydantic import SecretStr

from deputy.connectors.web.host import BrowserHost, HostConfig, HostSetupError
from deputy.runtime.health import LoopProbe, serve_health
from deputy.settings import Settings

log = logging.getLogger(__name__)

_REDIS = ("REDIS_URL", "REDIS_SENTINELS")
_SECRET_LOOKING = re.compile(r"^(DEPUTY|OPENAI|TELEGRAM)_\w*(KEY|SECRET|TOKEN|PASSWORD)\w*$")


def forbidden_variables(environ: Mapping[str, str]) -> list[str]:
    """Names (never values) of the variables in `environ` the host must not hold: every secret setting of
    Deputy's, anything named like a key, token, secret or password of Deputy's, and the ways into Redis."""
    secret_settings = {field.alias for field in Settings.model_fields.values()
                       if field.alias and SecretStr in getattr(field.annotation, "__args__", (field.annotation,))}
    return sorted(name for name, value in environ.items()
                  if value and (name in secret_settings or name in _REDIS or _SECRET_LOOKING.match(name)))


def serve(settings: Settings) -> None:
    found = forbidden_variables(os.environ)
    if found:
        raise SystemExit(f"The browser host holds no keys and reaches no Redis: remove {', '.join(found)} from its "
                         "environment (only the executor needs them).")
    if settings.browser_host_socket is None:
        raise SystemExit("DEPUTY_BROWSER_HOST_SOCKET is not set: the Unix socket the host listens on, on a volume "
                         "shared with the executors (e.g. /run/deputy-browser/host.sock).")
    config = HostConfig(socket=settings.browser_host_socket.absolute(),
                        executor_uid=os.geteuid() if settings.browser_host_executor_uid is None
                        else settings.browser_host_executor_uid)
    asyncio.run(_serve(settings, config))


async def _serve(settings: Settings, config: HostConfig) -> None:
    host = BrowserHost(config)
    try:
        await host.start()
    except HostSetupError as exc:
        raise SystemExit(f"The browser host cannot start: {exc}.") from None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    serve_health(settings.health_port, settings.health_host, LoopProbe.running(), {})
    try:
        await stop.wait()
    finally:
        await host.close()


if __name__ == "__main__":
    _settings = Settings()
    logging.basicConfig(level=_settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    serve(_settings)
