"""Each user's workspace: their files, kept in Redis under the user, with a quota.

The files the user sends and the files Deputy makes for them (a table of totals, a converted
document) live here, by name. They are in Redis, not on one machine's disk, so any worker can
run a step of any goal; code runs over a copy written to a fresh directory
(`materialise`) and what it wrote comes back (`collect`), within the quota. A confidential
user's files are sealed like the rest of their data: written while locked, read only unlocked.
Every key is under `deputy:user:<id>:`, so `/delete_me` erases the workspace with the rest.
"""

from __future__ import annotations

import base64
import hashlib
import re
import time
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from pydantic import BaseModel
from redis import Redis

from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.confidential.sealing import is_sealed

_DATA = "deputy:user:{}:workspace:data"
_INDEX = "deputy:user:{}:workspace:index"
_SIZES = "deputy:user:{}:workspace:sizes"
"""Each hash is keyed by a digest of the file's name: a confidential user's names are sealed with the
rest of the entry, and only the sizes stay clear, so the quota holds while they are locked."""
MAX_NAME_CHARS = 120
MAX_FILES = 200
_UNSAFE = re.compile(r"[\x00-\x1f\x7f\\:*?\"<>|]")


class WorkspaceFile(BaseModel):
    name: str
    size: int
    modified_at: float
    made_by: str
    """"you" for a file the user sent, "Deputy" for one code or the agent wrote."""


class WorkspaceError(Exception):
    """A request on the workspace that cannot be done; the message says why and what to do."""


class WorkspaceLimits(BaseModel):
    quota_bytes: int = 20 * 1024 * 1024
    max_files: int = MAX_FILES


def clean_name(name: str) -> str:
    """A file name as stored: a relative path of plain parts ("reports/june.csv"), never outside."""
    raw = name.strip().replace("\\", "/")
    while raw.startswith("./"):
        raw = raw[2:]
    raw = raw.removeprefix("/work/").lstrip("/")
    parts = PurePosixPath(raw).parts
    if not parts or any(part in ("", ".", "..") for part in parts) or _UNSAFE.search(raw):
        raise WorkspaceError(f"“{name[:60]}” is not a file name I can use: give a plain name like report.csv.")
    cleaned = "/".join(parts)
    if len(cleaned) > MAX_NAME_CHARS:
        raise WorkspaceError(f"That file name is longer than {MAX_NAME_CHARS} characters.")
    return cleaned


def free_name(wanted: str, taken: set[str]) -> str:
    """`wanted`, or "name (2).ext" when a different file already has it."""
    if wanted not in taken:
        return wanted
    stem, dot, ext = wanted.rpartition(".")
    stem, ext = (stem, "." + ext) if dot and stem else (wanted, "")
    number = 2
    while f"{stem} ({number}){ext}" in taken:
        number += 1
    return f"{stem} ({number}){ext}"


def size_words(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"


def files_listing(files: list[WorkspaceFile], quota_bytes: int) -> str:
    """The workspace as the user (and the agent) reads it: each file, who made it, and the room used."""
    if not files:
        return ("The workspace is empty. Send me a file (a spreadsheet, a text, a PDF) with what to do with it, "
                "and it is kept here.")
    used = sum(f.size for f in files)
    lines = [f"- {f.name} ({size_words(f.size)}, made by {f.made_by})" for f in files]
    return f"{len(files)} file(s), {size_words(used)} of {size_words(quota_bytes)}:\n" + "\n".join(lines)


def _field(user_id: int, name: str) -> str:
    return hashlib.sha256(f"{int(user_id)}\x00{name}".encode()).hexdigest()[:32]


class Workspace:
    def __init__(self, redis: Redis, keys: ConfidentialKeys | None = None,
                 limits: WorkspaceLimits = WorkspaceLimits(), clock: Callable[[], float] = time.time) -> None:
        self._redis = redis
        self._keys = keys if keys is not None else confidential_keys(redis)
        self._limits = limits
        self._clock = clock

    @property
    def quota_bytes(self) -> int:
        return self._limits.quota_bytes

    # -- reading ----------------------------------------------------------------------------

    def list(self, user_id: int) -> list[WorkspaceFile]:
        """Every file's entry, by name; `Locked` for a locked confidential user."""
        raw = self._redis.hgetall(_INDEX.format(int(user_id)))
        opened = self._keys.opener(user_id)
        files = [WorkspaceFile.model_validate_json(opened(value)) for value in raw.values()]
        return sorted(files, key=lambda f: f.name)

    def used(self, user_id: int) -> int:
        """Bytes in use (readable while locked)."""
        return sum(int(size) for size in self._redis.hvals(_SIZES.format(int(user_id))))

    def read(self, user_id: int, name: str) -> bytes:
        """The file's bytes; `Locked` for a locked confidential user, `WorkspaceError` when it is not there."""
        cleaned = clean_name(name)
        data = self._redis.hget(_DATA.format(int(user_id)), _field(user_id, cleaned))
        if data is None:
            names = ", ".join(f.name for f in self.list(user_id)[:20]) or "none yet"
            raise WorkspaceError(f"There is no file named “{cleaned}” in the workspace. Files: {names}.")
        return self._keys.open_bytes(user_id, data)

    # -- writing ----------------------------------------------------------------------------

    def write(self, user_id: int, name: str, data: bytes, made_by: str = "Deputy") -> WorkspaceFile:
        """Store (or replace) one file, within the quota; `WorkspaceError` says what is over."""
        return self.write_many(user_id, {clean_name(name): data}, made_by)[0]

    def write_many(self, user_id: int, files: dict[str, bytes], made_by: str,
                   removed: tuple[str, ...] = ()) -> list[WorkspaceFile]:
        """Store several files and remove others at once: all or nothing, so a quota refusal loses nothing."""
        gone = {_field(user_id, name) for name in removed}
        after = {field.decode(): int(size) for field, size in self._redis.hgetall(_SIZES.format(int(user_id))).items()
                 if field.decode() not in gone}
        after.update({_field(user_id, name): len(data) for name, data in files.items()})
        total = sum(after.values())
        if total > self._limits.quota_bytes:
            raise WorkspaceError(
                f"That would take the workspace to {size_words(total)}, over its {size_words(self._limits.quota_bytes)} "
                "quota. Delete files you no longer need (ask me to) and try again.")
        if len(after) > self._limits.max_files:
            raise WorkspaceError(f"The workspace holds at most {self._limits.max_files} files; delete some first.")
        now = self._clock()
        written = [WorkspaceFile(name=name, size=len(data), modified_at=now, made_by=made_by)
                   for name, data in files.items()]
        pipe = self._redis.pipeline(transaction=True)
        if gone:
            for key in (_DATA, _INDEX, _SIZES):
                pipe.hdel(key.format(int(user_id)), *gone)
        for entry in written:
            field = _field(user_id, entry.name)
            pipe.hset(_DATA.format(int(user_id)), field, self._keys.seal_bytes(user_id, files[entry.name]))
            pipe.hset(_INDEX.format(int(user_id)), field, self._keys.seal_text(user_id, entry.model_dump_json()))
            pipe.hset(_SIZES.format(int(user_id)), field, entry.size)
        pipe.execute()
        return written

    def reseal(self, user_id: int) -> int:
        """Seal the files and entries still in clear (confidential mode was just turned on); how many were."""
        sealed = 0
        for key in (_DATA, _INDEX):
            name = key.format(int(user_id))
            for field, value in self._redis.hgetall(name).items():
                if not is_sealed(value):
                    self._redis.hset(name, field, self._keys.seal_bytes(user_id, value))
                    sealed += 1
        return sealed

    def add_sent(self, user_id: int, name: str, data: bytes) -> WorkspaceFile:
        """A file the user sent, under its own name (numbered when another file has it)."""
        cleaned = clean_name(PurePosixPath(name.replace("\\", "/")).name or "file")
        existing = {f.name: f for f in self.list(user_id)}
        if cleaned in existing and self._same(user_id, cleaned, data):
            return existing[cleaned]
        return self.write(user_id, free_name(cleaned, set(existing)), data, made_by="you")

    def delete(self, user_id: int, name: str) -> bool:
        field = _field(user_id, clean_name(name))
        pipe = self._redis.pipeline(transaction=True)
        for key in (_DATA, _INDEX, _SIZES):
            pipe.hdel(key.format(int(user_id)), field)
        return bool(pipe.execute()[0])

    def _same(self, user_id: int, name: str, data: bytes) -> bool:
        try:
            return self.read(user_id, name) == data
        except WorkspaceError:
            return False

    # -- a copy on disk, for code -----------------------------------------------------------

    def materialise(self, user_id: int, directory: Path) -> dict[str, str]:
        """Write every file under `directory`; the digests of what was written, for `collect`."""
        digests: dict[str, str] = {}
        for entry in self.list(user_id):
            data = self.read(user_id, entry.name)
            path = directory / entry.name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            digests[entry.name] = hashlib.sha256(data).hexdigest()
        return digests

    def collect(self, user_id: int, directory: Path, before: dict[str, str]) -> tuple[list[WorkspaceFile], list[str]]:
        """Store what code wrote or changed under `directory` and forget what it deleted.

        Only regular files count (a symlink code made could point anywhere). Returns (written, removed).
        """
        found: dict[str, bytes] = {}
        for path in sorted(directory.rglob("*")):
            if path.is_symlink() or not path.is_file():
                continue
            relative = path.relative_to(directory).as_posix()
            try:
                name = clean_name(relative)
            except WorkspaceError:
                continue
            data = path.read_bytes()
            if before.get(name) != hashlib.sha256(data).hexdigest():
                found[name] = data
        removed = tuple(name for name in before if not (directory / name).is_file() or (directory / name).is_symlink())
        if not found and not removed:
            return [], []
        return self.write_many(user_id, found, "Deputy", removed=removed), list(removed)

    # -- the user's own copy ----------------------------------------------------------------

    def export(self, user_id: int) -> list[dict[str, object]]:
        """Each file's entry with its content (text as text, anything else as base64) for `/export`."""
        exported: list[dict[str, object]] = []
        for entry in self.list(user_id):
            data = self.read(user_id, entry.name)
            row: dict[str, object] = entry.model_dump(mode="json")
            try:
                row["text"] = data.decode("utf-8")
            except UnicodeDecodeError:
                row["base64"] = base64.b64encode(data).decode()
            exported.append(row)
        return exported
