"""The confined browser, seen from the host: its processes, what they can see and where they can connect."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import POLICY, Site, fake_dns, make_action
from playwright.async_api import Error as PlaywrightError

from deputy.connectors.web.browser import BrowserSessions
from deputy.connectors.web.confinement import sweep_abandoned
from deputy.connectors.web.launcher import sandbox_uid
from deputy.connectors.web.runners import WebRunners
from deputy.connectors.web.session import BrowserConfig, UserSession
from deputy.core.records.effects import ConnectorUnavailable
from deputy.sentinel.egress.policy import EgressContext, EgressPolicy, reviewer

pytestmark = pytest.mark.browser

FAKE_VAULT_KEY = "fake-vault-key-that-must-stay-in-the-executor"
ALLOWED = reviewer(POLICY, EgressContext())
AS_ROOT = os.geteuid() == 0
ALICE, BOB = 7001, 7002


@pytest.fixture(scope="module")
def confined() -> Iterator[BrowserSessions]:
    """Browsers launched by an executor whose environment holds Deputy's keys, as in production."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("DEPUTY_VAULT_KEY", FAKE_VAULT_KEY)
        env.setenv("DEPUTY_SECRET", FAKE_VAULT_KEY + "-secret")
        manager = BrowserSessions(
            BrowserConfig(navigation_timeout=10, content_wait=4, operation_timeout=30), resolver=fake_dns
        )
        yield manager
        manager.close()


def open_on(manager: BrowserSessions, user_id: int, url: str) -> UserSession:
    async def work(session: UserSession) -> UserSession:
        page = await session.page()
        await page.goto(url)
        return session

    return manager.run(user_id, ALLOWED, work)


def _processes() -> dict[int, tuple[int, list[bytes]]]:
    """Every process on the host: pid -> (parent pid, arguments).

    Chromium rewrites its own command line into one space-separated string, so arguments are
    split on spaces too (no path here has one).
    """
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").split()
        except OSError:
            continue  # ended while we looked
        found[int(entry.name)] = (int(stat.rsplit(")", 1)[1].split()[1]), command)
    return found


def sandbox_processes(session: UserSession) -> dict[int, list[bytes]]:
    """The user's whole sandbox: the bwrap started for this session's proxy socket and all below it."""
    assert session.box is not None, "the browser runs confined by default"
    everything = _processes()
    socket_path = str(session.box.socket).encode()
    tree = {pid for pid, (_, command) in everything.items() if any(socket_path in arg for arg in command)}
    assert tree, "the sandbox's bwrap is running"
    grew = True
    while grew:
        below = {pid for pid, (parent, _) in everything.items() if parent in tree} - tree
        tree |= below
        grew = bool(below)
    return {pid: everything[pid][1] for pid in tree}


def chromium_processes(session: UserSession) -> dict[int, list[bytes]]:
    found = {pid: cmd for pid, cmd in sandbox_processes(session).items() if cmd and cmd[0].endswith(b"/chromium")}
    assert any(b"--type=renderer" in cmd for cmd in found.values()), "a page is open, so a renderer runs"
    return found


def status(pid: int, field: str) -> str:
    line = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith(field + ":"))
    return line.split(":", 1)[1].split()[0]


def browser_process(session: UserSession) -> tuple[int, list[bytes]]:
    """Chromium's main process (its renderers sit in namespaces of their own, inside this one's)."""
    processes = chromium_processes(session).items()
    return next((pid, cmd) for pid, cmd in processes if not any(arg.startswith(b"--type=") for arg in cmd))


def profile_of(session: UserSession) -> str:
    flag = next(arg for arg in browser_process(session)[1] if arg.startswith(b"--user-data-dir="))
    return flag.split(b"=", 1)[1].decode()


def test_chromium_runs_with_its_own_sandbox_on(confined: BrowserSessions, site: Site) -> None:
    session = open_on(confined, ALICE, site.url("/article"))
    processes = chromium_processes(session)
    assert not [cmd for cmd in processes.values() if b"--no-sandbox" in cmd]
    renderers = [pid for pid, cmd in processes.items() if b"--type=renderer" in cmd]
    # Chromium's sandbox puts every renderer under a seccomp filter (mode 2) with no new privileges.
    assert [(status(pid, "Seccomp"), status(pid, "NoNewPrivs")) for pid in renderers] == [("2", "1")] * len(renderers)


def test_no_key_of_the_executor_reaches_the_sandbox(confined: BrowserSessions, site: Site) -> None:
    session = open_on(confined, ALICE, site.url("/article"))
    drivers = [pid for pid, (parent, cmd) in _processes().items() if parent == os.getpid() and b"run-driver" in cmd]
    # With the driver inline, the executor's side of Playwright (started by this module's executor)
    # has the key (a browser worker's driver has none: tests/connectors/web/test_web_worker.py)...
    if session.worker is None:
        assert any(FAKE_VAULT_KEY.encode() in Path(f"/proc/{pid}/environ").read_bytes() for pid in drivers)
    # ...and nothing in the sandbox has it, or any DEPUTY_ variable.
    for pid in sandbox_processes(session):
        environment = Path(f"/proc/{pid}/environ").read_bytes()
        assert b"DEPUTY_" not in environment
        assert FAKE_VAULT_KEY.encode() not in environment


@pytest.mark.skipif(not AS_ROOT, reason="the browser leaves root only when Deputy runs as root")
def test_as_root_the_browser_runs_as_nobody(confined: BrowserSessions, site: Site) -> None:
    session = open_on(confined, ALICE, site.url("/article"))
    for pid in sandbox_processes(session):
        uids = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("Uid:"))
        assert uids.split()[1:] == [str(sandbox_uid(ALICE))] * 4


def test_the_browser_sees_neither_the_host_nor_another_users_profile(confined: BrowserSessions, site: Site) -> None:
    alice = open_on(confined, ALICE, site.url("/article"))
    bob = open_on(confined, BOB, site.url("/article"))
    alice_profile, bob_profile = profile_of(alice), profile_of(bob)
    alice_root = Path(f"/proc/{browser_process(alice)[0]}/root")
    assert (alice_root / alice_profile.lstrip("/")).is_dir()
    assert not (alice_root / "etc/passwd").exists()
    assert not (alice_root / bob_profile.lstrip("/")).exists()
    # Both are there: Bob's profile in his own browser's view (with a browser worker, only in his
    # worker's private /tmp, not even on the host), /etc/passwd on the host.
    assert Path(f"/proc/{browser_process(bob)[0]}/root", bob_profile.lstrip("/")).is_dir()
    assert Path(bob_profile).is_dir() is (bob.worker is None) and Path("/etc/passwd").exists()

    async def try_files(session: UserSession) -> list[str]:
        page = await session.page()
        await page.goto(site.url("/article"))
        script = "url => fetch(url).then(r => r.text()).catch(e => 'refused: ' + e)"
        seen = [await page.evaluate(script, "file:///etc/passwd")]
        for url in ("file:///etc/passwd", f"file://{bob_profile}/Local%20State"):
            try:
                await page.goto(url)
                seen.append(await page.content())
            except PlaywrightError as refused:
                seen.append(f"refused: {refused}")
                # The tab goes on to show an error page; the next navigation must not race it.
                await page.wait_for_url("chrome-error://chromewebdata/")
            await page.goto(site.url("/article"))
        return seen

    # Refused by the page guard before the sandbox is even asked; the sandbox would have nothing to show.
    seen = confined.run(ALICE, ALLOWED, try_files)
    assert [text.startswith("refused: ") for text in seen] == [True, True, True]
    assert not [text for text in seen if "root:" in text]


@pytest.mark.skipif(not AS_ROOT, reason="entering the browser's network namespace needs root")
def test_the_browser_reaches_the_host_only_through_its_proxy(confined: BrowserSessions, site: Site) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[object] = []

    def serve() -> None:
        while True:
            try:
                accepted.append(listener.accept())
            except OSError:
                return

    threading.Thread(target=serve, daemon=True).start()
    port = listener.getsockname()[1]
    try:
        session = open_on(confined, ALICE, site.url("/article"))
        strict = reviewer(EgressPolicy(), EgressContext())  # private addresses refused, as in production

        async def ask(session: UserSession) -> str:
            page = await session.page()
            try:
                await page.goto(f"http://127.0.0.1:{port}/")
            except PlaywrightError as refused:
                # The tab goes on to show an error page; the next test's navigation must not race it.
                await page.wait_for_url("chrome-error://chromewebdata/")
                return str(refused)
            return await page.content()

        assert "ERR_BLOCKED_BY_CLIENT" in confined.run(ALICE, strict, ask)

        browser = browser_process(session)[0]
        direct = subprocess.run(
            ["nsenter", f"--net=/proc/{browser}/ns/net", "/usr/bin/python3", "-I", "-c",
             f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5)"],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        assert direct.returncode != 0 and "ConnectionRefusedError" in direct.stderr
        assert accepted == []
    finally:
        listener.close()


def test_pages_load_and_forms_submit_through_the_proxy(confined: BrowserSessions, site: Site) -> None:
    runners = WebRunners(confined, lambda action: ALLOWED, search_url=site.url("/search?q={query}"))
    page = runners.open_page(make_action("open_page", {"url": site.url("/article")}, ALICE), "key")
    assert "Trams climb the hills of Alfama" in page.summary
    sent = runners.submit_form(
        make_action(
            "submit_form",
            {"url": site.url("/form"), "action_url": site.url("/order"), "fields": {"name": "Confined Carol"}},
            ALICE,
        ),
        "key",
    )
    assert "# Thank you, Confined Carol!" in sent.summary
    assert {"name": "Confined Carol", "size": "s", "price": "12"} in site.posts


def test_without_bubblewrap_the_browser_does_not_start(tmp_path: Path) -> None:
    manager = BrowserSessions(BrowserConfig(bwrap_path=str(tmp_path / "bwrap")), resolver=fake_dns)
    try:
        with pytest.raises(ConnectorUnavailable) as refused:
            open_on(manager, ALICE, "about:blank")
    finally:
        manager.close()
    assert str(refused.value) == "The web browser can't be started safely on this server, so I can't open pages."
    assert "bubblewrap" in refused.value.detail and "DEPUTY_BROWSER_CONFINED=false" in refused.value.detail


def test_a_browser_directory_left_by_an_ended_process_is_swept(tmp_path: Path) -> None:
    ended = subprocess.Popen(["true"])
    ended.wait()  # reaped: its pid names no process now
    gone = tmp_path / f"deputy-browser-{ended.pid}-x"
    live = tmp_path / f"deputy-browser-{os.getpid()}-y"
    for directory in (gone, live):
        directory.mkdir()
        (directory / "launch").write_text("#!/bin/sh\n")
    sweep_abandoned(tmp_path)
    assert not gone.exists() and live.exists()
