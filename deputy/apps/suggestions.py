"""The suggestion rounds' process: started by an agent worker beside itself, it ends with it.

    python -m deputy.apps.suggestions <the worker's pid>

Each round reads the listing services named in `DEPUTY_SUGGESTION_SOURCES` through the egress
guard, matches new listings against users' interests (`deputy.agent.suggestions`) and sends
cards; one process of the cluster runs each round (a lease in Redis). It holds no credentials:
the same settings as the worker that started it.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time

from deputy.agent.suggestions import suggestion_loop
from deputy.agent.watch.check_budget import CheckBudget
from deputy.apps.worker_process import open_redis
from deputy.core.accounts.quotas import Quotas
from deputy.settings import Settings


def run(settings: Settings, parent: int) -> None:
    """Rounds on their timer until the worker `parent` is gone (a SIGKILLed worker cannot stop its children)."""
    redis = open_redis(settings)
    stop = threading.Event()
    rounds = suggestion_loop.start(redis, settings.suggestion_sources(), settings.suggestion_minutes, stop,
                                   CheckBudget(redis, settings.checks_per_day, Quotas(redis, settings.plan_book())),
                                   allow=settings.egress_allow())
    while rounds is not None and rounds.is_alive() and os.getppid() == parent:
        time.sleep(1)
    stop.set()


def main(argv: list[str]) -> None:
    settings = Settings()
    logging.basicConfig(level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # request URLs at INFO
    run(settings, int(argv[0]))


if __name__ == "__main__":
    main(sys.argv[1:])
