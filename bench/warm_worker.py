"""An experiment for `bench.profile`: `deputy worker` whose parent is warmed up before it forks.

    python -m bench.warm_worker [--freeze]

RQ's `Worker` forks a work horse per job from a parent that never ran a step, so every
horse repeats the first-call work: importing the OpenAI SDK's chat modules (it loads them
lazily on first use) and building their pydantic models. This entry point does that once
in the parent (no model call is made), optionally moves everything the parent holds to
the garbage collector's permanent generation (`gc.freeze()`, so a horse's collections do
not write to, and copy, the parent's pages), then starts exactly `deputy worker`.
"""

from __future__ import annotations

import argparse
import gc

import openai
from openai.types.chat import ChatCompletion

from deputy.cli import main as deputy_main

_SAMPLE = {
    "id": "chatcmpl-warm", "object": "chat.completion", "created": 0, "model": "warm-up",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": None, "message": {
        "role": "assistant", "content": None, "refusal": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "reply", "arguments": "{}"}}]}}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}


def warm() -> None:
    """Import the SDK's chat resources and build its response models, without any request."""
    client = openai.OpenAI(api_key="warm-up-only", base_url="http://127.0.0.1:9/v1")
    assert client.chat.completions is not None
    ChatCompletion.model_validate(_SAMPLE)
    client.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.warm_worker", description=__doc__)
    parser.add_argument("--freeze", action="store_true", help="gc.freeze() before forking")
    args = parser.parse_args()
    warm()
    if args.freeze:
        import deputy.apps.agent_worker  # noqa: F401  (everything `deputy worker` loads, so it is frozen too)

        gc.collect()
        gc.freeze()
    raise SystemExit(deputy_main(["worker"]))


if __name__ == "__main__":
    main()
