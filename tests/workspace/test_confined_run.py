"""Code the agent runs over a user's files stays in its box, with real bubblewrap.

Each test runs real code in a real sandbox and checks what a user or an operator would notice:
the code does its work on the files and leaves its results behind, and it cannot reach the
network, the host's files or Deputy's secrets, nor outlast or outgrow its limits.
"""

from __future__ import annotations

import json
import os
import resource
import secrets
import shutil
import socket
import tempfile
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

import pytest

from deputy.workspace import ConfinementUnavailable, RunLimits, RunResult, run_confined

CHECKOUT = Path(__file__).resolve().parents[2]
AS_ROOT = os.geteuid() == 0


@pytest.fixture
def workspace() -> Iterator[Path]:
    # Under /tmp rather than pytest's tmp_path: when Deputy runs as root, the sandbox's uid has
    # to pass through every parent, and pytest's base directory is private to root.
    directory = Path(tempfile.mkdtemp(prefix="deputy-workspace-", dir="/tmp"))
    yield directory
    shutil.rmtree(directory)


def run(workspace: Path, code: str, **limits: float) -> RunResult:
    return run_confined(workspace, textwrap.dedent(code), RunLimits(**limits))


def processes_with(marker: str) -> list[str]:
    """Command lines of the host's processes that carry `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError):
            continue
        if marker in command:
            found.append(command)
    return found


def wait_until_gone(marker: str, seconds: float = 3.0) -> list[str]:
    deadline = time.monotonic() + seconds
    while (left := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_code_reads_the_users_files_and_leaves_its_results_for_the_caller(workspace: Path) -> None:
    (workspace / "expenses.csv").write_text("item,amount\nrent,1200\nfood,310.5\ntrain,89.5\n")

    result = run(workspace, """
        import csv
        with open("expenses.csv") as source:
            total = sum(float(row["amount"]) for row in csv.DictReader(source))
        print(f"total {total:.2f}")
        with open("summary.txt", "w") as summary:
            summary.write(f"{total:.2f} in 3 items\\n")
    """)

    assert result.exit_code == 0, result.stderr
    assert result.stdout == "total 1600.00\n"
    assert (result.timed_out, result.killed_reason, result.truncated) == (False, None, False)
    summary = workspace / "summary.txt"
    assert summary.read_text() == "1600.00 in 3 items\n"
    # Handed back: the caller owns what the code made, so it can read and delete it.
    assert (summary.stat().st_uid, workspace.stat().st_uid) == (os.getuid(), os.getuid())
    assert not (workspace / "main.py").exists(), "the code itself is not left among the user's files"


def test_no_network_not_even_this_machines_loopback_or_abstract_sockets(workspace: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract_name = "deputy-test-" + secrets.token_hex(4)
    abstract.bind("\0" + abstract_name)
    abstract.listen()
    try:
        result = run(workspace, f"""
            import json, socket
            tried = {{}}
            for name, family, address in [("tcp", socket.AF_INET, ("127.0.0.1", {listener.getsockname()[1]})),
                                          ("abstract", socket.AF_UNIX, "\\0{abstract_name}")]:
                try:
                    socket.socket(family, socket.SOCK_STREAM).connect(address)
                    tried[name] = "connected"
                except OSError as error:
                    tried[name] = error.strerror
            tried["interfaces"] = [name for _, name in socket.if_nameindex()]
            print(json.dumps(tried))
        """)
        tried = json.loads(result.stdout)
        assert tried["tcp"] != "connected" and tried["abstract"] != "connected", tried
        assert tried["interfaces"] == ["lo"], "no interface leads out of the sandbox"
        for server in (listener, abstract):
            server.setblocking(False)
            with pytest.raises(BlockingIOError):
                server.accept()
    finally:
        listener.close()
        abstract.close()


def test_the_hosts_files_are_out_of_reach(workspace: Path, tmp_path: Path) -> None:
    vault_key = tmp_path / "vault.key"
    vault_key.write_text("secret-" + secrets.token_hex(8))
    vault_key.chmod(0o644)
    host_paths = [str(vault_key), "/etc/passwd", str(CHECKOUT / "pyproject.toml"), "/root", "/home"]

    result = run(workspace, f"""
        import json, os
        seen = {{}}
        for path in {host_paths!r}:
            try:
                seen[path] = os.listdir(path) if os.path.isdir(path) else open(path).read()
            except OSError as error:
                seen[path] = error.strerror
        print(json.dumps({{"seen": seen, "root": sorted(os.listdir("/")),
                          "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit())}}))
    """)

    report = json.loads(result.stdout)
    assert report["seen"] == dict.fromkeys(host_paths, "No such file or directory")
    assert report["root"] == ["bin", "code", "dev", "lib", "lib64", "proc", "tmp", "usr", "work"]
    assert max(report["processes"]) < 10, "its /proc shows only its own few processes"


def test_deputys_secrets_in_the_environment_do_not_reach_the_code(workspace: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "secret-" + secrets.token_hex(8)
    monkeypatch.setenv("DEPUTY_VAULT_KEY", secret)

    result = run(workspace, "import json, os; print(json.dumps(dict(os.environ)))")

    environment = json.loads(result.stdout)
    assert "DEPUTY_VAULT_KEY" not in environment and secret not in result.stdout
    assert environment["HOME"] == "/work"


def test_code_runs_as_an_unprivileged_user_and_its_files_come_back_to_the_caller(workspace: Path) -> None:
    private = workspace / "private.txt"
    private.write_text("the user's own file")
    private.chmod(0o600)
    made = workspace / "made" / "deeper" / "result.txt"

    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(run, workspace, """
            import ctypes, os, time
            print(open("private.txt").read())
            # No nested user namespace, where it could be root again.
            print(ctypes.CDLL(None, use_errno=True).unshare(0x10000000))
            os.makedirs("made/deeper")
            open("made/deeper/result.txt", "w").write("done")
            os.chmod("made/deeper", 0o500)
            while not os.path.exists("go"):
                time.sleep(0.02)
        """)
        while not made.exists() and not running.done():
            time.sleep(0.02)
        owner_while_running = made.stat().st_uid
        (workspace / "go").touch()
        result = running.result()

    assert owner_while_running == (65534 if AS_ROOT else os.getuid()) and owner_while_running != 0
    assert result.stdout.splitlines() == ["the user's own file", "-1"]
    assert made.read_text() == "done" and made.stat().st_uid == os.getuid()


def test_endless_computation_stops_at_the_cpu_limit(workspace: Path) -> None:
    started = time.monotonic()
    result = run(workspace, "while True: pass", cpu_seconds=2, wall_seconds=20)

    assert result.killed_reason == "CPU time limit"
    assert not result.timed_out
    assert time.monotonic() - started < 8


def test_allocating_too_much_memory_fails_inside_and_leaves_the_caller_alone(workspace: Path) -> None:
    own_limit = resource.getrlimit(resource.RLIMIT_AS)

    result = run(workspace, "hoard = bytearray(2 * 10**9)", memory_mb=256)

    assert result.killed_reason == "memory limit"
    assert result.exit_code != 0 and "MemoryError" in result.stderr
    assert resource.getrlimit(resource.RLIMIT_AS) == own_limit
    assert bytearray(300 * 2**20), "the caller still allocates freely"


def test_a_limited_number_of_processes_and_none_outlives_the_run(workspace: Path) -> None:
    marker = f"{secrets.randbelow(10**6) + 10**6}.5"

    result = run(workspace, f"""
        import os
        children = 0
        for _ in range(100):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                os.execv("/usr/bin/sleep", ["sleep", "{marker}"])
            children += 1
        print(children)
    """, processes=16)

    assert result.exit_code == 0, result.stderr
    assert 5 < int(result.stdout) < 16
    assert wait_until_gone(marker) == [], "the sleeping children died with the sandbox"


def test_a_fork_bomb_is_contained_and_cleaned_up(workspace: Path) -> None:
    marker = f"bomb-{secrets.token_hex(4)}"
    started = time.monotonic()

    result = run(workspace, f"""
        import os, sys
        if len(sys.argv) < 2:
            os.execv("/usr/bin/python3", ["python3", "-I", "/code/main.py", "{marker}"])
        while True:
            try:
                os.fork()
            except OSError:
                pass
    """, processes=16, wall_seconds=3)

    assert result.timed_out and result.killed_reason == "wall clock"
    assert time.monotonic() - started < 8
    assert wait_until_gone(marker) == []


def test_sleeping_past_the_wall_clock_is_stopped_with_nothing_left_behind(workspace: Path) -> None:
    marker = f"{secrets.randbelow(10**6) + 10**6}.25"
    started = time.monotonic()

    result = run(workspace, f"""
        import subprocess
        print("started", flush=True)
        subprocess.run(["/usr/bin/sleep", "{marker}"])
    """, wall_seconds=2)

    assert result.timed_out and result.killed_reason == "wall clock" and result.exit_code is None
    assert result.stdout == "started\n", "what it printed before the deadline is kept"
    assert time.monotonic() - started < 5
    assert wait_until_gone(marker) == []


def memory_in_use_kb(field: str) -> int:
    status = Path("/proc/self/status").read_text()
    return int(status.split(f"{field}:")[1].split()[0])


def test_a_flood_of_output_is_cut_to_the_limit_and_returns_promptly(workspace: Path) -> None:
    Path("/proc/self/clear_refs").write_text("5")  # the peak below starts from now
    resident_before = memory_in_use_kb("VmRSS")
    started = time.monotonic()

    result = run(workspace, """
        import sys
        for _ in range(50):
            sys.stdout.write("x" * 10**6)
        print("finished", file=sys.stderr)
    """, output_chars=1000)

    assert result.exit_code == 0
    assert result.stdout == "x" * 1000 and result.truncated
    assert result.stderr == "finished\n"
    assert time.monotonic() - started < 10
    assert memory_in_use_kb("VmHWM") - resident_before < 20_000, "Deputy never held the 50 MB"


def test_writing_a_file_past_the_size_limit_fails(workspace: Path) -> None:
    result = run(workspace, "open('big.bin', 'wb').write(bytes(3 * 2**20))", file_mb=1)

    assert result.killed_reason == "file size limit"
    assert (workspace / "big.bin").stat().st_size <= 2**20


def test_without_bubblewrap_nothing_runs_and_the_operator_is_told_what_to_install(workspace: Path,
                                                                                  tmp_path: Path) -> None:
    with pytest.raises(ConfinementUnavailable) as refused:
        run_confined(workspace, "open('ran.txt', 'w').write('unconfined')", bwrap=tmp_path / "no-bwrap")

    assert "apt-get install bubblewrap" in str(refused.value)
    assert str(tmp_path / "no-bwrap") in str(refused.value)
    assert list(workspace.iterdir()) == []


@pytest.mark.skipif(not AS_ROOT, reason="only a root caller hands the directory to another uid")
def test_a_directory_the_sandbox_user_cannot_reach_is_refused_plainly(tmp_path: Path) -> None:
    hidden = tmp_path / "files"
    hidden.mkdir()

    with pytest.raises(ValueError, match="not searchable"):
        run_confined(hidden, "print(1)")
