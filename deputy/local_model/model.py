"""The local brain: a small model served by llama.cpp on this machine, with no key and no internet.

`ensure_local_model` builds `llama-server` (once), fetches and verifies the weights (once),
starts the server on loopback and returns a `LocalModel` whose `env()` points Deputy at it.
Everything slow is cached in one folder that outlives the data directory and the test runs:
`$DEPUTY_CACHE_DIR`, else `$XDG_CACHE_HOME/deputy`, else `~/.cache/deputy` (`Settings.cache_path`):

    llama.cpp/<version>-<arch>/llama-server          the built server (15 MB; 6.5 min to build on 2 idle cores, 18 on busy ones)
    models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf   the verified weights (1.1 GB; under a minute to fetch)

`DEPUTY_LOCAL_GGUF=/path/model.gguf` uses the user's own model file instead of fetching one.
Run `python -m deputy.local_model.model` to start just the model server and print its URL.
"""

from __future__ import annotations

import fcntl
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from deputy.local_model.build import BuildError, ensure_llama_server
from deputy.local_model.server import SLOTS, ServerError, start_server, stop_process
from deputy.local_model.weights import WeightsError, ensure_weights
from deputy.settings import Settings

Progress = Callable[[str], None]

MAX_TOOLS = 8
"""Tools offered per step to the local model (`DEPUTY_MAX_TOOLS`): small models choose better from few."""

MODEL_TIMEOUT = 80
"""Seconds of silence allowed (`DEPUTY_MODEL_TIMEOUT`; answers are streamed, `DEPUTY_MODEL_STREAM`).
Before its first token the model reads the prompt: a new goal's (~1,400 tokens) at ~60 tokens/s on
2 idle cores but at 10-18 tokens/s when other work shares them, so the first token may take this
plus the prompt at the slowest rate (`deputy.agent.model.async_model.HttpChatModel.first_token_timeout`). After
that a token comes every fraction of a second; a model that keeps writing is never cut off."""


class LocalModelError(Exception):
    """The local model could not be set up; the message is a plain sentence for the operator."""


@dataclass
class LocalModel:
    """A running llama-server: its OpenAI-compatible base URL, the model name it answers to."""

    base_url: str
    model: str
    gguf: Path
    process: subprocess.Popen = field(repr=False)

    def env(self) -> dict[str, str]:
        """The settings that point Deputy's workers at this model."""
        return {"OPENAI_BASE_URL": self.base_url, "DEPUTY_MODEL": self.model, "DEPUTY_MAX_TOOLS": str(MAX_TOOLS),
                "DEPUTY_FORCE_TOOL_CALL": "true",
                # Before a goal's first call the model names its kind in a small constrained choice.
                "DEPUTY_DECIDE_FIRST": "true", "DEPUTY_MODEL_TIMEOUT": str(MODEL_TIMEOUT),
                # Streamed: a slow answer that keeps coming is not cut off, a call given up stops the server.
                "DEPUTY_MODEL_STREAM": "true",
                # A forced tool call follows a grammar of the offered tools: well-formed by construction.
                "DEPUTY_CONSTRAIN_TOOL_CALLS": "true",
                # The gateway queues the rest itself, fairly, instead of piling them up in llama-server.
                "DEPUTY_MODEL_CONCURRENCY": str(SLOTS)}

    def stop(self) -> None:
        stop_process(self.process)


def ensure_local_model(
    cache_dir: Path,
    progress: Progress,
    gguf: Path | None = None,
    port: int | None = None,
    threads: int = 1,
    work_dir: Path | None = None,
) -> LocalModel:
    """Build, fetch and start what is missing, then return the running local model.

    `gguf` is a model file of the user's (nothing is fetched then). `port` defaults to a free
    one; `work_dir` (default `cache_dir/server`) gets the server's log and chat template.
    Raises `LocalModelError` with a plain explanation when anything fails.
    """
    started = time.monotonic()
    try:
        with _locked(cache_dir):
            # Under the lock: two `make run`/`make test` at once wait for one build, not two.
            binary = ensure_llama_server(cache_dir, progress)
            if gguf is None:
                model_file = ensure_weights(cache_dir / "models", progress)
            else:
                model_file = gguf.expanduser().resolve()
                if not model_file.is_file():
                    raise LocalModelError(f"DEPUTY_LOCAL_GGUF points at {model_file}, which is not a file.")
        port = port or _free_port()
        progress(f"Starting the local model ({model_file.name}) on 127.0.0.1:{port}...")
        process = start_server(binary, model_file, work_dir or cache_dir / "server", port, threads,
                               alias=model_file.stem)
    except (BuildError, WeightsError, ServerError, OSError) as exc:
        raise LocalModelError(str(exc)) from exc
    progress(f"Local model ready in {time.monotonic() - started:.0f} s.")
    return LocalModel(base_url=f"http://127.0.0.1:{port}/v1", model=model_file.stem, gguf=model_file, process=process)


@contextmanager
def _locked(cache_dir: Path) -> Iterator[None]:
    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            # Scratch folders of builds that were killed outright (SIGKILL, power loss).
            for leftover in cache_dir.glob("llama.cpp/build-*"):
                shutil.rmtree(leftover, ignore_errors=True)
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> int:
    """`python -m deputy.local_model.model`: start the local model server alone, until Ctrl+C."""
    settings = Settings()
    try:
        model = ensure_local_model(settings.cache_path(), lambda line: print(line, flush=True),
                                   gguf=settings.local_gguf, threads=settings.local_threads)
    except LocalModelError as exc:
        print(f"The local model could not start: {exc}", file=sys.stderr)
        return 1
    print(" ".join(f"{k}={v}" for k, v in model.env().items()), flush=True)
    try:
        model.process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        model.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
