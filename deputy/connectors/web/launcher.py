"""Start one user's Chromium confined by bubblewrap; Playwright runs this as the browser.

Playwright starts its "browser executable" with Chromium's arguments, among them
`--user-data-dir=<a fresh directory>` and `--remote-debugging-pipe`, and drives it over the
inherited descriptors 3 and 4. This launcher (run as `python -I launcher.py <plan> <args...>`,
see `deputy.connectors.web.confinement`) hands the profile directory to the sandbox's uid when
Deputy runs as root, then replaces itself with, in turn: `setpriv` (drop to the user's own
uid, `sandbox_uid`, no groups, when root), `bwrap` (the sandbox), the relay (`deputy.connectors.web.relay`, which
becomes Chromium once it listens) and Chromium with its own sandbox on. Every step keeps the
descriptors, so Playwright talks to the confined Chromium as if it had started it itself.

What Chromium sees: read-only `/usr` (and the `/lib`, `/bin` links into it), the few files of
`/etc` it reads (fonts, its Debian flags, the time zone), private `/proc`, `/dev` and an empty
`/tmp` in memory, and two things of Deputy's: its own profile directory (writable) and the
socket of its own reviewing proxy. It has its own user, process, IPC, host name, cgroup and
network namespaces: no address is reachable but the relay on its own loopback. The
environment is built from nothing, so no key of Deputy's is in it.

The profile directory is not handed back after the browser ends: Playwright deletes it, and
as root it may, whoever owns the files. Standard library only, since it runs before anything
of Deputy would be worth importing and must start fast.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

SANDBOX_UID_BASE = 100_000
SANDBOX_UID_SPAN = 2**31 - SANDBOX_UID_BASE - 1
"""Each user's browser runs as a uid of their own in [base, base + span): no user's browser can
read another's files, signal or trace another's processes, even if a sandbox slipped."""
RELAY_PATH = "/run/deputy/relay.py"
SOCKET_PATH = "/run/deputy/proxy.sock"
# Read by Chromium (fonts), by Debian's /usr/bin/chromium script (its flags) and for local time.
ETC_READ = ("/etc/fonts", "/etc/chromium.d", "/etc/localtime")


def sandbox_uid(user_id: int) -> int:
    """The uid (and gid) `user_id`'s browser runs as when Deputy runs as root: the same on every
    executor, different for any two users whose ids differ by less than the span (2^31)."""
    return SANDBOX_UID_BASE + int(user_id) % SANDBOX_UID_SPAN


def sandbox_command(plan: dict[str, object], chromium_args: list[str], relay_fd: int, *, as_root: bool) -> list[str]:
    """The whole command the launcher becomes, from the plan Deputy wrote and Playwright's arguments."""
    profile = profile_directory(chromium_args)
    uid = int(plan["uid"])  # type: ignore[call-overload]
    drop = [str(plan["setpriv"]), f"--reuid={uid}", f"--regid={uid}", "--clear-groups"] if as_root else []
    etc = [arg for path in ETC_READ if os.path.exists(path) for arg in ("--ro-bind", path, path)]
    home = str(profile)
    return [
        *drop,
        str(plan["bwrap"]),
        "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        # A network namespace of its own: only `lo`, up, with nothing listening but the relay.
        "--unshare-net",
        "--die-with-parent",
        # A session of its own: nothing inside can push keystrokes into a terminal (TIOCSTI).
        "--new-session",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
        *etc,
        "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
        # At the same path, so Playwright's --user-data-dir still names it.
        "--bind", home, home,
        "--ro-bind", str(plan["socket"]), SOCKET_PATH,
        "--ro-bind-data", str(relay_fd), RELAY_PATH,
        "--clearenv",
        "--setenv", "HOME", home, "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
        "--setenv", "TMPDIR", "/tmp",
        "--chdir", home,
        str(plan["python"]), "-I", "-B", RELAY_PATH, str(plan["port"]), SOCKET_PATH, "--",
        str(plan["executable"]), *chromium_args,
    ]  # fmt: skip


def profile_directory(chromium_args: list[str]) -> Path:
    """The profile directory Playwright made for this browser (`--user-data-dir=`)."""
    for arg in chromium_args:
        if arg.startswith("--user-data-dir="):
            return Path(arg.split("=", 1)[1]).resolve()
    raise SystemExit("deputy browser launcher: Playwright passed no --user-data-dir")


def check_reachable(directory: Path, uid: int) -> None:
    """bwrap finds the profile as the sandbox's uid: every parent must let others pass."""
    for parent in directory.parents:
        if not parent.stat().st_mode & 0o001:
            raise SystemExit(
                f"deputy browser launcher: uid {uid} cannot reach the browser profile {directory}, since "
                f"{parent} is not searchable by others; give the executor a TMPDIR under /tmp"
            )


def hand_over(directory: Path, uid: int, gid: int) -> None:
    """Give the profile tree to the sandbox's uid; never follows a symlink."""
    os.chown(directory, uid, gid, follow_symlinks=False)
    for _, dirnames, filenames, dir_fd in os.fwalk(directory):
        for name in (*dirnames, *filenames):
            os.chown(name, uid, gid, dir_fd=dir_fd, follow_symlinks=False)


def main(argv: list[str]) -> None:
    plan = json.loads(argv[1])
    chromium_args = argv[2:]
    as_root = os.geteuid() == 0
    if as_root:
        uid = int(plan["uid"])
        check_reachable(profile_directory(chromium_args), uid)
        hand_over(profile_directory(chromium_args), uid, uid)
    relay_fd = os.memfd_create("deputy-relay", 0)  # inheritable: bwrap reads it, then closes it
    os.write(relay_fd, Path(str(plan["relay"])).read_bytes())
    os.lseek(relay_fd, 0, os.SEEK_SET)
    command = sandbox_command(plan, chromium_args, relay_fd, as_root=as_root)
    os.execve(command[0], command, {"PATH": "/usr/bin:/bin"})


if __name__ == "__main__":
    main(sys.argv)
