"""The old encrypted keyring file (keyrings.cryptfile), kept to move existing vaults into Redis.

Deputy used to keep secrets in this file on the data volume; `deputy.vault.migrate` reads it
once and the executor then deletes it. The notes below describe the file as it was written.

keyrings.cryptfile encrypts each entry with AES-GCM under an Argon2id key derived from the
vault key, with the (service, name) pair as associated data, so a ciphertext moved to
another user's section does not decrypt. Three things it does not do, added here:

- Writes are atomic. The library rewrites the file in place (`open(path, "w")`), so a
  crash or a concurrent reader sees a truncated vault. We write a temporary file and
  `os.replace` it, so readers never need a lock.
- Read-modify-write is serialised with `fcntl.flock` on a sibling `.lock` file (the vault
  file itself is replaced, so a lock on it would protect the wrong inode).
- The Argon2 cost is recorded in the file. The library keeps it in class attributes, not
  in the file, so a file written with one cost silently fails to open with another.
"""

from __future__ import annotations

import configparser
import fcntl
import os
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from jaraco.classes import properties
from keyring.errors import PasswordDeleteError
from keyrings.cryptfile.cryptfile import CryptFileKeyring
from keyrings.cryptfile.escape import escape

from deputy.core.records.vault_errors import VaultCorrupted, VaultLocked
from deputy.vault.sealing import KdfCost

_SETTINGS = escape("keyring-setting")
_REFERENCE = escape("password reference")
_KDF_OPTION = escape("deputy-kdf")
_DAMAGED = "The credential vault file is damaged and cannot be read."


def _read_config(path: str) -> configparser.RawConfigParser:
    config = configparser.RawConfigParser()
    try:
        config.read(path)
    except configparser.Error:
        raise VaultCorrupted(_DAMAGED) from None
    return config


@contextmanager
def _damage_reported() -> Iterator[None]:
    # configparser's errors quote the offending line of the file; never pass them on.
    try:
        yield
    except configparser.Error:
        raise VaultCorrupted(_DAMAGED) from None


def _write_atomically(path: str, config: configparser.RawConfigParser) -> None:
    directory = os.path.dirname(path) or "."
    # mkstemp creates the file 0600, so the vault is never readable by others, not even briefly.
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as handle:
            config.write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


class _AtomicCryptFileKeyring(CryptFileKeyring):
    """CryptFileKeyring whose writes replace the file atomically."""

    @properties.classproperty
    @classmethod
    def priority(cls) -> float:
        # Subclasses register themselves with keyring's global backend list; make sure
        # keyring.get_keyring() elsewhere in the process never picks this one.
        raise RuntimeError("Deputy's vault file is opened explicitly, never chosen by keyring")

    def _write_config_value(self, service: str, key: str, value: str) -> None:
        config = _read_config(self.file_path)
        section = escape(service)
        if not config.has_section(section):
            config.add_section(section)
        config.set(section, escape(key), value)
        _write_atomically(self.file_path, config)

    def delete_password(self, service: str, username: str) -> None:
        config = _read_config(self.file_path)
        section = escape(service)
        if not config.has_section(section) or not config.remove_option(section, escape(username)):
            raise PasswordDeleteError("not found")
        if not config.options(section):
            # An empty section would still name the user on disk.
            config.remove_section(section)
        _write_atomically(self.file_path, config)


class KeyFile:
    """One encrypted keyring file at `path`, unlocked with `key` (never prompts).

    Reads need no lock; `set`, `delete` and `remove_service` take an exclusive
    `fcntl.flock`, which is reentrant within a thread through `exclusive()`, so a caller
    can extend the critical section (e.g. to update an index in the same breath).
    """

    def __init__(self, path: Path, key: str, kdf: KdfCost | None = None) -> None:
        if not key.strip():
            raise VaultLocked()
        self.path = path
        self._lock_path = path.with_name(path.name + ".lock")
        self._held = threading.local()
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        ring = _AtomicCryptFileKeyring()
        ring.file_path = str(path)
        with self.exclusive():
            config = _read_config(ring.file_path)
            if config.has_option(_SETTINGS, _REFERENCE):
                recorded = config.get(_SETTINGS, _KDF_OPTION, fallback=None)
                # A file made by plain keyrings.cryptfile records nothing: it used the defaults.
                try:
                    cost = KdfCost.decode(recorded) if recorded else KdfCost()
                except (KeyError, ValueError):
                    raise VaultCorrupted(_DAMAGED) from None
            else:
                cost = kdf or KdfCost()
                # Written before the library creates its reference entry, so a crash in
                # between never leaves a file whose cost is unknown.
                ring._write_config_value("keyring-setting", "deputy-kdf", cost.encode())
            ring.time_cost = cost.time_cost
            ring.memory_cost = cost.memory_cost_kib
            ring.parallelism = cost.parallelism
            try:
                # Setting the key unlocks an existing file (decrypting its reference entry)
                # or initialises a new one; it only prompts when no key is set.
                ring.keyring_key = key
            except ValueError:
                raise VaultLocked() from None
        self.kdf = cost
        self._ring = ring

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the cross-process write lock (reentrant within the calling thread)."""
        depth = getattr(self._held, "depth", 0)
        if depth:
            self._held.depth = depth + 1
            try:
                yield
            finally:
                self._held.depth -= 1
            return
        # Each acquisition opens its own descriptor: flock then also excludes other
        # threads of this process, not only other processes.
        fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._held.depth = 1
            try:
                yield
            finally:
                self._held.depth = 0
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def get(self, service: str, name: str) -> str | None:
        """The stored value, or None when there is none."""
        with _damage_reported():
            try:
                return self._ring.get_password(service, name)
            except ValueError:
                # GCM authentication failed: the entry was altered or moved from elsewhere.
                raise VaultCorrupted(
                    "A stored credential could not be decrypted; the vault file may be damaged."
                ) from None

    def set(self, service: str, name: str, value: str) -> None:
        """Store (or replace) one value."""
        with self.exclusive(), _damage_reported():
            self._ring.set_password(service, name, value)

    def delete(self, service: str, name: str) -> bool:
        """Remove one value; False when there was none."""
        with self.exclusive(), _damage_reported():
            try:
                self._ring.delete_password(service, name)
            except PasswordDeleteError:
                return False
            return True

    def remove_service(self, service: str) -> None:
        """Remove every value stored under `service`."""
        with self.exclusive():
            config = _read_config(str(self.path))
            if config.remove_section(escape(service)):
                _write_atomically(str(self.path), config)

    def names(self, service: str) -> list[str]:
        """The escaped entry names stored under `service` (for maintenance and tests)."""
        config = _read_config(str(self.path))
        section = escape(service)
        return config.options(section) if config.has_section(section) else []
