"""Playwright's driver where a browser's own uid can reach it.

Each user's browser worker runs as a uid of that user's own (when Deputy runs as root), and
must execute Playwright's Node driver from inside its sandbox. Deputy installed under a
directory others may not pass (`/root/deputy`, a `mktemp -d` checkout: mode 0700) hides the
driver from that uid. Then the driver's files are linked, once per process, into a fresh
directory that others may read (hard links: no copy when on the same file system; copied
otherwise), and the worker runs that.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from pathlib import Path

from playwright._impl._driver import compute_driver_executable

_lock = threading.Lock()
_linked: dict[Path, Path] = {}


def unreachable(directory: Path) -> Path | None:
    """The first of `directory` and its parents that others may not pass, or None."""
    for parent in (directory, *directory.parents):
        if not parent.stat().st_mode & 0o001:
            return parent
    return None


def driver_for_others() -> tuple[str, str, Path]:
    """(node, cli.js, the driver's directory) as a uid other than Deputy's can reach them.

    Raises RuntimeError, saying what to change, when no such place can be made.
    """
    node, cli = compute_driver_executable()
    driver = Path(cli).parent.parent  # .../playwright/driver: node and the package
    if unreachable(driver) is None:
        return str(node), str(cli), driver
    with _lock:
        if driver not in _linked:
            _linked[driver] = _link_tree(driver)
    linked = _linked[driver]
    blocked = unreachable(linked)
    if blocked is not None:
        raise RuntimeError(f"the browser worker runs as a uid of its own and cannot reach Playwright's driver: "
                           f"{blocked} is not searchable by others (set TMPDIR to a directory others may pass)")
    return str(linked / Path(node).relative_to(driver)), str(linked / Path(cli).relative_to(driver)), linked


def _link_tree(driver: Path) -> Path:
    home = Path(tempfile.mkdtemp(prefix="deputy-browser-driver-"))
    home.chmod(0o755)
    atexit.register(shutil.rmtree, home, True)
    target = home / "driver"
    shutil.copytree(driver, target, symlinks=True, copy_function=_link_or_copy)
    for directory, _, _ in os.walk(target):
        os.chmod(directory, 0o755)
    return target


def _link_or_copy(source: str, destination: str) -> None:
    try:
        os.link(source, destination)
    except OSError:  # another file system: a copy
        shutil.copy2(source, destination)
