"""What a model gateway would cost: many model calls in flight from one asyncio process.

    python -m bench.gateway_probe BASE_URL REQUEST_JSON COUNT [--extra-body]

Not part of Deputy: DESIGN.md plans an asyncio model gateway so that waiting for the model
holds no worker; this probe measures the floor of that idea on this machine. It sends
COUNT copies of a real step's request (messages and tools, recorded from a worker) at
once with the OpenAI SDK's async client, and prints one JSON line: wall time, CPU time
and the process's memory. `--extra-body` passes messages and tools through the SDK's
`extra_body`, which skips the SDK's per-request walk over every nested value of the
payload against its type annotations (the workaround known from the SDK family's issue
trackers); the bytes on the wire are the same.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import time
from pathlib import Path

import openai

from bench.procs import pss_mb


async def _probe(base_url: str, request: dict, count: int, extra_body: bool) -> dict:
    client = openai.AsyncOpenAI(api_key="sk-bench", base_url=base_url, max_retries=0, timeout=120)
    messages, tools = request["messages"], request["tools"]

    async def call() -> None:
        if extra_body:
            await client.chat.completions.create(model="scripted-model", messages=[],
                                                 extra_body={"messages": messages, "tools": tools})
        else:
            await client.chat.completions.create(model="scripted-model", messages=messages, tools=tools)

    await call()  # warm-up: connection pool, imports
    peak = 0.0

    async def watch() -> None:
        nonlocal peak
        while True:
            peak = max(peak, pss_mb([os.getpid()]))
            await asyncio.sleep(0.2)

    watcher = asyncio.create_task(watch())
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(call() for _ in range(count)))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    watcher.cancel()
    await client.close()
    return {"count": count, "wall_s": wall, "cpu_s": cpu, "pss_mb": peak,
            "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.gateway_probe", description=__doc__)
    parser.add_argument("base_url")
    parser.add_argument("request_json", type=Path)
    parser.add_argument("count", type=int)
    parser.add_argument("--extra-body", action="store_true")
    args = parser.parse_args()
    request = json.loads(args.request_json.read_text())
    print(json.dumps(asyncio.run(_probe(args.base_url, request, args.count, args.extra_body))))


if __name__ == "__main__":
    main()
