"""Entry point for `deputy sandbox`: the local world Deputy can act on, with no accounts."""

from __future__ import annotations

import signal
import threading

from deputy.runtime.health import serve_health
from deputy.settings import Settings
from deputy.sandbox.services import SandboxServices


def serve(settings: Settings, as_json: bool) -> None:
    world = SandboxServices(settings.data_dir.resolve())
    endpoints = world.start()
    # Its servers run in threads of their own; answering at all is what liveness can say here.
    serve_health(settings.health_port, settings.health_host, lambda: True, {})
    if as_json:
        print(endpoints.model_dump_json(indent=2), flush=True)
    else:
        print("Sandbox world running (Ctrl+C to stop):", flush=True)
        for name, value in endpoints.model_dump().items():
            print(f"  {name}: {value}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        stop.wait()
    finally:
        world.stop()
