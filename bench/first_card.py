"""Time to a first card on the local model: cold, warmed at start (as `deputy run` does), and warm.

    python -m bench.first_card

The whole of Deputy with the model gateway on the local model (llama.cpp, one slot, the
settings `deputy run` gives it). Each figure is the time from texting a simple email goal to
its approval card:

1. cold: a freshly started model server, nothing read yet;
2. warmed at start: a fresh server that first read Deputy's instructions and tools
   (`deputy.local_model.warmup`, what `deputy run` does while the user opens the chat);
3. warm: the next goal, another user's, on the same server.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench.model_queue import reached, sandbox_mail
from deputy.local_model.model import MAX_TOOLS, MODEL_TIMEOUT, LocalModel, ensure_local_model
from deputy.local_model.warmup import warm_up
from deputy.settings import Settings
from deputy.testing.stack import DeputyStack, RedisServer

GOAL = "email {name}@example.org that I'll be 10 minutes late"


def _card_after(stack: DeputyStack, user_id: int, name: str) -> float:
    user = stack.user(user_id, name.title(), asks_before_sending=True)
    started = time.monotonic()
    user.wait_for_bot(reached, after=user.send(GOAL.format(name=name)), timeout=4 * MODEL_TIMEOUT)
    return time.monotonic() - started


def _with_model(workdir: Path, warm_at_start: bool) -> tuple[float, float]:
    """(seconds to the first goal's card, seconds to a second goal's card) on a fresh model server."""
    settings = Settings()
    local: LocalModel = ensure_local_model(settings.cache_path(), lambda line: None, gguf=settings.local_gguf,
                                           threads=settings.local_threads, work_dir=workdir / "llama")
    redis = RedisServer(workdir / "redis").start()
    mail, smtp = sandbox_mail(workdir)
    stack = DeputyStack(redis.url, local.base_url, workdir / "stack", smtp=smtp, extra_env=local.env(), gateway=True)
    try:
        if warm_at_start:
            warm_up(local.base_url, local.model, MAX_TOOLS)
        stack.start()
        first = _card_after(stack, 71_000, "alice")
        second = _card_after(stack, 71_001, "bob")
        return first, second
    finally:
        stack.stop()
        mail.stop()
        redis.stop()
        local.stop()


def run(workdir: Path) -> dict[str, float]:
    cold, warm = _with_model(workdir / "cold", warm_at_start=False)
    warmed, _ = _with_model(workdir / "warmed", warm_at_start=True)
    figures = {"cold (fresh server)": cold, "warmed at start (deputy run)": warmed, "warm (the next goal)": warm}
    print("(first card) a simple email goal on the local model, text -> approval card, seconds")
    for label, seconds in figures.items():
        print(f"  {label:32} {seconds:6.1f}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.first_card", description=__doc__)
    parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="deputy-bench-") as tmp:
        run(Path(tmp))


if __name__ == "__main__":
    main()
