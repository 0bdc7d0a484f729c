"""The browser worker, seen from the host: the process that drives each user's Chromium holds no key,
sees no data, reaches no Redis, and its death mid-checkout leaves one payment or an unknown outcome."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import POLICY, fake_dns, fresh_user_id
from test_web_checkout import World, fill_cart, pay_action, runners
from test_web_confinement import _processes

from deputy.connectors.web.browser import BrowserSessions
from deputy.connectors.web.checkout import offer_card
from deputy.connectors.web.launcher import SANDBOX_UID_BASE, sandbox_uid
from deputy.connectors.web.session import BrowserConfig, UserSession
from deputy.core.records.effects import ConnectorOutcomeUnknown
from deputy.sentinel.egress.policy import EgressContext, reviewer
from deputy.testing.stack import RedisServer

pytestmark = pytest.mark.browser

CANARY = "canary-vault-key-held-by-the-executor-only"
ALLOWED = reviewer(POLICY, EgressContext())
AS_ROOT = os.geteuid() == 0


@pytest.fixture(scope="module")
def key_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory with a vault key file in it, as the executor has."""
    data = tmp_path_factory.mktemp("deputy-data")
    (data / "vault.key").write_text(CANARY)
    return data / "vault.key"


@pytest.fixture(scope="module")
def workers(key_file: Path) -> Iterator[BrowserSessions]:
    """Browsers driven from an executor whose environment holds Deputy's keys, as in production."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("DEPUTY_VAULT_KEY", CANARY)
        env.setenv("DEPUTY_ISSUER_KEY", CANARY + "-issuer")
        env.setenv("DEPUTY_REDIS_URL", "redis://127.0.0.1:6379/0")
        handle = key_file.open()  # the executor has the key file open; no worker inherits it
        manager = BrowserSessions(
            BrowserConfig(navigation_timeout=10, content_wait=4, operation_timeout=30, worker="separate"),
            resolver=fake_dns,
        )
        yield manager
        manager.close()
        handle.close()


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    made = World()
    yield made
    for server in made.servers:
        server.stop()


@pytest.fixture(scope="module")
def opened(workers: BrowserSessions, site) -> UserSession:  # type: ignore[no-untyped-def]
    """One user's browser with a page open, inspected by the tests below."""
    return open_on(workers, fresh_user_id(), site.url("/article"))


def open_on(manager: BrowserSessions, user_id: int, url: str) -> UserSession:
    async def work(session: UserSession) -> UserSession:
        page = await session.page()
        await page.goto(url)
        return session

    return manager.run(user_id, ALLOWED, work)


def worker_tree(session: UserSession) -> dict[int, list[bytes]]:
    """The worker and every process below it (the driver, the browser's sandbox, Chromium)."""
    assert session.worker is not None, "the driver runs in a worker of its own"
    everything = _processes()
    tree, grew = {session.worker.pid}, True
    while grew:
        below = {pid for pid, (parent, _) in everything.items() if parent in tree} - tree
        tree |= below
        grew = bool(below)
    return {pid: everything[pid][1] for pid in tree if pid in everything}


def driver_pid(session: UserSession) -> int:
    return next(pid for pid, cmd in worker_tree(session).items() if cmd[0].endswith(b"/node"))


def test_the_driver_and_chromium_run_in_the_worker_with_chromiums_sandbox_on(opened: UserSession) -> None:
    session = opened
    tree = worker_tree(session)
    assert any(cmd[0].endswith(b"/node") and b"run-driver" in cmd for cmd in tree.values())
    assert any(b"--type=renderer" in cmd for cmd in tree.values()), "Chromium runs below the worker"
    # No driver of this (the executor's) process: the worker's is the only one.
    assert not [pid for pid, (parent, cmd) in _processes().items()
                if parent == os.getpid() and cmd[0].endswith(b"/node") and b"run-driver" in cmd]
    assert not [cmd for cmd in tree.values() if b"--no-sandbox" in cmd]


def test_no_key_reaches_the_worker_by_its_environment_or_open_files(opened: UserSession, key_file: Path) -> None:
    session = opened
    tree = worker_tree(session)
    for pid in tree:
        environment = Path(f"/proc/{pid}/environ").read_bytes()
        assert b"DEPUTY_" not in environment and CANARY.encode() not in environment
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue  # closed while we looked
            assert str(key_file.parent) not in target
    if AS_ROOT:
        assert {Path(f"/proc/{pid}").stat().st_uid for pid in tree} == {sandbox_uid(session.user_id)}


def test_the_worker_sees_neither_the_data_directory_nor_deputys_code(opened: UserSession, key_file: Path) -> None:
    session = opened
    root = Path(f"/proc/{driver_pid(session)}/root")
    assert (root / "usr/bin").is_dir(), "the worker's own view of the file system"
    assert not (root / str(key_file).lstrip("/")).exists()
    assert not (root / str(key_file.parent).lstrip("/")).exists()
    deputy_code = Path(__file__).resolve().parents[3] / "deputy"
    assert not (root / str(deputy_code).lstrip("/")).exists()


@pytest.mark.skipif(not AS_ROOT or shutil.which("nsenter") is None, reason="entering its namespace needs root")
def test_the_worker_cannot_connect_to_redis(opened: UserSession, tmp_path: Path) -> None:
    session = opened
    server = RedisServer(tmp_path).start()
    try:
        probe = (f"import socket; s = socket.socket(); s.settimeout(3); s.connect(('127.0.0.1', {server.port})); "
                 "s.sendall(b'PING\\r\\n'); print(s.recv(10))")
        # From the host the server answers...
        here = subprocess.run(["/usr/bin/python3", "-c", probe], capture_output=True, text=True, timeout=20)
        assert "PONG" in here.stdout
        # ...from the worker's network it cannot even be reached.
        there = subprocess.run(["nsenter", f"--net=/proc/{driver_pid(session)}/ns/net", "/usr/bin/python3", "-c",
                                probe], capture_output=True, text=True, timeout=20)
        assert there.returncode != 0 and "PONG" not in there.stdout
        assert "Connection refused" in there.stderr or "unreachable" in there.stderr
    finally:
        server.stop()


def test_a_worker_killed_mid_checkout_leaves_one_payment_and_an_unknown_outcome(
    workers: BrowserSessions, world: World
) -> None:
    web, user_id, url = runners(workers), fresh_user_id(), world.urls["shop"]
    fill_cart(web, url, "usb-c-cable-1m", user_id)
    action = pay_action(url, "8.99", user_id)
    card, token = world.card_for(action.id, url, "8.99")
    [session] = [s for s in workers._sessions.values() if s.user_id == user_id]
    capture = world.issuer.capture

    def capture_then_die(txn_id: str):  # type: ignore[no-untyped-def]
        # The bank takes the payment; the worker dies before the shop's answer reaches the page.
        done = capture(txn_id)
        os.kill(session.worker.pid, signal.SIGKILL)  # type: ignore[union-attr]
        return done

    world.issuer.capture = capture_then_die  # type: ignore[method-assign]
    try:
        offer_card(card)
        with pytest.raises(ConnectorOutcomeUnknown, match="can't tell whether it went through"):
            web.runners()["web.pay_on_page"](action, action.id)
    finally:
        world.issuer.capture = capture  # type: ignore[method-assign]
    paid = [t for t in world.issuer.transactions.values() if t.token_id == token.id]
    assert [(t.amount, t.status) for t in paid] == [(Decimal("8.99"), "captured")]
    assert session.dead
    # The user's next step gets a fresh worker.
    fresh = open_on(workers, user_id, f"{url}/products/usb-c-cable-1m")
    assert fresh is not session and fresh.worker is not None and fresh.worker.running


def test_inline_the_executor_drives_the_browser_itself(site) -> None:  # type: ignore[no-untyped-def]
    manager = BrowserSessions(BrowserConfig(navigation_timeout=10, content_wait=4, worker="inline"), resolver=fake_dns)
    try:
        session = open_on(manager, fresh_user_id(), site.url("/article"))
        assert session.worker is None
        assert [pid for pid, (parent, cmd) in _processes().items()
                if parent == os.getpid() and cmd[0].endswith(b"/node") and b"run-driver" in cmd]
    finally:
        manager.close()


@pytest.mark.skipif(not AS_ROOT, reason="browsers get uids of their own only when Deputy runs as root")
def test_each_users_browser_runs_as_a_uid_of_its_own_that_cannot_look_into_anothers(
    workers: BrowserSessions, opened: UserSession, site  # type: ignore[no-untyped-def]
) -> None:
    other = open_on(workers, fresh_user_id(), site.url("/article"))
    uids = {pid_uid for session in (opened, other) for pid_uid in _uids(session)}
    assert uids == {sandbox_uid(opened.user_id), sandbox_uid(other.user_id)}
    assert min(uids) >= SANDBOX_UID_BASE and os.getuid() not in uids
    # The other user's driver's files (its private /tmp holds the profile) are closed to this user's uid,
    # as a renderer that escaped both sandboxes would be, though not to the executor.
    theirs = Path(f"/proc/{driver_pid(other)}/root/tmp")
    assert theirs.is_dir()
    looked = subprocess.run([*_as_uid(sandbox_uid(opened.user_id)), "ls", str(theirs)], capture_output=True, text=True)
    assert looked.returncode != 0 and "Permission denied" in looked.stderr
    own = subprocess.run([*_as_uid(sandbox_uid(other.user_id)), "ls", f"/proc/{driver_pid(other)}/status"],
                         capture_output=True, text=True)
    assert own.returncode == 0, own.stderr


def _uids(session: UserSession) -> set[int]:
    return {Path(f"/proc/{pid}").stat().st_uid for pid in worker_tree(session)}


def _as_uid(uid: int) -> list[str]:
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


def test_a_page_script_cannot_read_another_users_profile(
    workers: BrowserSessions, opened: UserSession, site  # type: ignore[no-untyped-def]
) -> None:
    """A script on a page in one user's browser tries every way a page has to read files of another's."""
    bob = fresh_user_id()
    bob_session = open_on(workers, bob, site.url("/cookie/set?who=bobs-secret-cookie"))
    bob_profile = next(arg for cmd in worker_tree(bob_session).values() for arg in cmd
                       if arg.startswith(b"--user-data-dir=")).split(b"=", 1)[1].decode()
    driver_root = Path(f"/proc/{driver_pid(bob_session)}/root")
    assert (driver_root / bob_profile.lstrip("/") / "Default").is_dir(), "Bob's profile exists, in his worker"
    targets = [f"file://{bob_profile}/", f"file://{bob_profile}/Default/Cookies", f"file://{bob_profile}/Local%20State"]
    script = """async urls => {
        const seen = [];
        for (const url of urls) {
            seen.push(await fetch(url).then(r => r.text()).catch(e => 'refused: ' + e));
            seen.push(await new Promise(done => {
                const request = new XMLHttpRequest();
                try { request.open('GET', url); } catch (e) { return done('refused: ' + e); }
                request.onload = () => done(request.responseText);
                request.onerror = () => done('refused: xhr error');
                request.send();
            }));
            seen.push(await new Promise(done => {
                const frame = document.createElement('iframe');
                frame.onload = () => { try { done(frame.contentDocument.body.innerText); }
                                       catch (e) { done('refused: ' + e); } };
                frame.src = url;
                document.body.appendChild(frame);
                setTimeout(() => done('refused: nothing loaded'), 3000);
            }));
        }
        return seen;
    }"""

    async def try_files(session: UserSession) -> list[str]:
        page = await session.page()
        await page.goto(site.url("/article"))
        return await page.evaluate(script, targets)

    seen = workers.run(opened.user_id, ALLOWED, try_files)
    assert len(seen) == 3 * len(targets)
    assert [text for text in seen if not text.startswith("refused: ") and text.strip()] == []
    assert not [text for text in seen if "bobs-secret-cookie" in text or "Default" in text]
    # Were a page ever to get a file read, there is nothing of Bob's in Alice's browser's view to read.
    assert not (Path(f"/proc/{driver_pid(opened)}/root") / bob_profile.lstrip("/") / "Default").exists()
