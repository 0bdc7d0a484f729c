"""Run `llama-server` on loopback with a model file and a corrected chat template.

The Qwen2.5-Coder GGUF's built-in template shows the tool-call format with doubled braces
(`{{"name": ...}}`, a Python-format leftover) and the model copies them; it also double-encodes
arguments that arrive as JSON text. `CHAT_TEMPLATE` is the same template with both fixed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx

CHAT_TEMPLATE = r"""{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are a helpful assistant.' }}
    {%- endif %}
    {{- "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>" }}
    {%- for tool in tools %}
        {{- "\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\n' + (message.content or '') + '<|im_end|>' + '\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\n<tool_call>\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {%- if tool_call.arguments is string %}
                {{- tool_call.arguments }}
            {%- else %}
                {{- tool_call.arguments | tojson }}
            {%- endif %}
            {{- '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {{- message.content }}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
"""

CONTEXT_TOKENS = 8192
"""Room for the system prompt, a few tool schemas and a bounded transcript (deputy.agent.context)."""


MAX_ANSWER_TOKENS = 768

SLOTS = 1
"""Answers llama-server works on at once (`--parallel`); the model gateway sends no more than this."""


class ServerError(Exception):
    """llama-server did not start; the message says why and where its log is."""


def batch_threads(threads: int, cores: int | None = None) -> int:
    """Threads for reading a prompt: every core (at most 8), never fewer than answer-writing `threads`."""
    return max(threads, min(8, cores if cores is not None else (os.cpu_count() or 1)))


def server_command(binary: Path, gguf: Path, template: Path, port: int, threads: int, alias: str) -> list[str]:
    """The llama-server command line: loopback only, one slot, the corrected template."""
    return [
        str(binary), "--model", str(gguf), "--alias", alias,
        "--host", "127.0.0.1", "--port", str(port),
        # Writing the answer, token by token, uses `threads` (its threads wait for each other at every
        # token, so a core taken by Deputy's own work stalls them all); reading the prompt, in large
        # batches, uses every core: measured on 2 cores with a 735-token prompt, 37 tokens/s with one
        # thread, 65 with both while the machine was otherwise idle, 41 with the other core busy
        # (`python -m bench.first_card` shows the time to a first card).
        "--threads", str(threads), "--threads-batch", str(batch_threads(threads)),
        "--ctx-size", str(CONTEXT_TOKENS),
        # One slot: two cores cannot decode two answers faster than one after the other,
        # and a single slot keeps the cached prompt prefix for the next step of the goal.
        "--parallel", str(SLOTS),
        "--jinja", "--chat-template-file", str(template),
        # Greedy decoding with a fixed seed: tool calls need exact names and JSON, not variety,
        # and the same request gets the same answer (tests and the evaluation rely on that).
        "--temp", "0", "--seed", "42",
        # A step's answer is one tool call or a short message; a runaway answer is cut off
        # (and then handled as a malformed reply) instead of occupying the cores for minutes.
        "--n-predict", str(MAX_ANSWER_TOKENS),
        "--no-webui",
    ]


def start_server(
    binary: Path, gguf: Path, work_dir: Path, port: int, threads: int = 2, alias: str = "local",
    timeout: float = 180.0,
) -> subprocess.Popen:
    """Start llama-server and wait until it has loaded the model and answers `/health`."""
    work_dir.mkdir(parents=True, exist_ok=True)
    template = work_dir / "chat-template.jinja"
    template.write_text(CHAT_TEMPLATE)
    log_path = work_dir / "llama-server.log"
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            [*die_with_parent(), *server_command(binary, gguf, template, port, threads, alias)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerError(f"llama-server exited with code {process.returncode}; see {log_path}.")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    stop_process(process)
    raise ServerError(f"llama-server did not become ready within {timeout:.0f} s; see {log_path}.")


def die_with_parent() -> list[str]:
    """A command prefix so that 1.9 GB of RAM does not outlive a `deputy run` killed outright.

    util-linux's `setpriv --pdeathsig` has Linux send the server SIGTERM when its parent dies
    (SIGKILL, out of memory); without setpriv the server only stops when it is told to.
    """
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "TERM", "--"] if setpriv and sys.platform.startswith("linux") else []


def stop_process(process: subprocess.Popen) -> None:
    """Terminate a child process such as llama-server (kill it if it does not stop within 10 s)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
