"""The browser host as a process of its own: it starts each user's keyless worker for the executor, holds
no key itself, serves only the executor's uid, keeps the worker's network to the executor's proxy, and its
crash mid-checkout leaves one payment or an unknown outcome, as a worker's does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import POLICY, fake_dns, fresh_user_id
from test_web_checkout import World, fill_cart, pay_action, runners
from test_web_confinement import _processes
from test_web_worker import driver_pid, open_on, worker_tree

from deputy.connectors.web.browser import BrowserSessions
from deputy.connectors.web.checkout import offer_card
from deputy.connectors.web.launcher import sandbox_uid
from deputy.connectors.web.session import BrowserConfig, UserSession
from deputy.core.records.effects import ConnectorOutcomeUnknown, ConnectorUnavailable
from deputy.sentinel.egress.policy import EgressContext, reviewer
from deputy.testing.browser_host import BrowserHostProcess, host_environment, socket_directory
from deputy.testing.stack import wait_for

pytestmark = pytest.mark.browser

CANARY = "canary-vault-key-held-by-the-executor-only"
ALLOWED = reviewer(POLICY, EgressContext())
AS_ROOT = os.geteuid() == 0


@pytest.fixture(scope="module")
def host() -> Iterator[BrowserHostProcess]:
    started = BrowserHostProcess(executor_uid=os.geteuid()).start()
    yield started
    started.remove()


def hosted_sessions(host: BrowserHostProcess) -> BrowserSessions:
    return BrowserSessions(BrowserConfig(navigation_timeout=10, content_wait=4, operation_timeout=30,
                                         host_socket=str(host.socket)), resolver=fake_dns)


@pytest.fixture(scope="module")
def executor(host: BrowserHostProcess) -> Iterator[BrowserSessions]:
    """The executor's side, in this process, whose environment holds Deputy's keys as in production."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("DEPUTY_VAULT_KEY", CANARY)
        env.setenv("DEPUTY_ISSUER_KEY", CANARY + "-issuer")
        manager = hosted_sessions(host)
        yield manager
        manager.close()


@pytest.fixture(scope="module")
def opened(executor: BrowserSessions, site) -> UserSession:  # type: ignore[no-untyped-def]
    return open_on(executor, fresh_user_id(), site.url("/article"))


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    made = World()
    yield made
    for server in made.servers:
        server.stop()


def test_the_worker_runs_below_the_host_not_the_executor_with_chromiums_sandbox_on(
    host: BrowserHostProcess, opened: UserSession
) -> None:
    tree = worker_tree(opened)
    everything = _processes()
    assert everything[opened.worker.pid][0] == host.pid, "the host started the worker"  # type: ignore[union-attr]
    assert any(cmd[0].endswith(b"/node") and b"run-driver" in cmd for cmd in tree.values())
    assert any(b"--type=renderer" in cmd for cmd in tree.values())
    assert not [cmd for cmd in tree.values() if b"--no-sandbox" in cmd]
    # This process (the executor) started no driver, no bwrap, nothing.
    assert all(everything[pid][0] != os.getpid() for pid in tree)
    for pid in tree:
        environment = Path(f"/proc/{pid}/environ").read_bytes()
        assert b"DEPUTY_" not in environment and CANARY.encode() not in environment
    if AS_ROOT:
        assert {Path(f"/proc/{pid}").stat().st_uid for pid in tree} == {sandbox_uid(opened.user_id)}


def test_the_worker_sees_its_proxy_socket_but_not_the_hosts(host: BrowserHostProcess, opened: UserSession) -> None:
    root = Path(f"/proc/{driver_pid(opened)}/root")
    assert opened.proxy is not None and opened.proxy._unix_path is not None
    proxy_socket = Path(opened.proxy._unix_path)
    assert proxy_socket.parent == host.directory
    assert (root / str(proxy_socket).lstrip("/")).is_socket()
    # A worker cannot ask the host for anything: its socket is not in the worker's view.
    assert not (root / str(host.socket).lstrip("/")).exists()
    assert [p.name for p in (root / str(host.directory).lstrip("/")).iterdir()] == [proxy_socket.name]


@pytest.mark.skipif(not AS_ROOT or shutil.which("nsenter") is None, reason="entering its namespace needs root")
def test_a_page_reaches_the_network_only_through_the_executors_proxy(
    executor: BrowserSessions, site  # type: ignore[no-untyped-def]
) -> None:
    user_id = fresh_user_id()
    session = open_on(executor, user_id, site.url("/article"))
    assert "127.0.0.1 /article" in site.hits
    # From the worker's own network the site (on this machine's loopback) cannot even be reached...
    probe = (f"import socket; s = socket.socket(); s.settimeout(3); s.connect(('127.0.0.1', {site.port})); "
             "print('connected')")
    there = subprocess.run(["nsenter", f"--net=/proc/{driver_pid(session)}/ns/net", "/usr/bin/python3", "-c", probe],
                           capture_output=True, text=True, timeout=20)
    assert there.returncode != 0 and "connected" not in there.stdout

    # ...and once the executor's reviewing proxy stops listening, no page loads at all.
    async def without_the_proxy(session: UserSession) -> str:
        assert session.proxy is not None
        await session.proxy.close()
        page = await session.page()
        try:
            await page.goto(site.url("/article?after-the-proxy-closed"), timeout=8000)
        except Exception as exc:  # Playwright's error for a page that could not load
            return str(exc)
        return "loaded"

    said = executor.run(user_id, ALLOWED, without_the_proxy)
    assert said != "loaded" and "ERR_" in said
    assert not [hit for hit in site.hits if "after-the-proxy-closed" in hit]


def test_the_host_refuses_to_start_with_a_key_in_its_environment() -> None:
    directory = socket_directory()
    try:
        for name in ("DEPUTY_VAULT_KEY", "DEPUTY_ISSUER_KEY", "DEPUTY_MANDATE_KEY", "OPENAI_API_KEY", "REDIS_URL"):
            env = host_environment(directory / "host.sock", **{name: CANARY})
            ran = subprocess.run([sys.executable, "-m", "deputy", "browser-host"], env=env, capture_output=True,
                                 text=True, timeout=60)
            assert ran.returncode != 0
            assert name in ran.stderr and "holds no keys" in ran.stderr
            assert CANARY not in ran.stderr + ran.stdout
            assert not (directory / "host.sock").exists(), "it never listened"
    finally:
        shutil.rmtree(directory, ignore_errors=True)


_CLIENT = r"""
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print(json.dumps({"connect": e.strerror})); sys.exit()
body = json.dumps({"user_id": int(sys.argv[2]), "proxy_socket": sys.argv[3]}).encode()
try:
    s.sendall(len(body).to_bytes(4, "little") + body)
except OSError:
    pass  # refused before the greeting was read: the answer is there all the same
head = s.recv(4)
print(json.dumps({"answer": s.recv(int.from_bytes(head, "little")).decode() if len(head) == 4 else None}))
"""


def greet(host: BrowserHostProcess, user_id: int, proxy_socket: str, uid: int | None = None) -> dict[str, str]:
    """Greet the host as an executor would, from the uid `uid` (this process's by default)."""
    drop = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"] if uid is not None else []
    ran = subprocess.run([*drop, "/usr/bin/python3", "-I", "-c", _CLIENT, str(host.socket), str(user_id),
                          proxy_socket], capture_output=True, text=True, timeout=30)
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


@pytest.mark.skipif(not AS_ROOT, reason="connecting as another uid needs root")
def test_a_connection_from_another_uid_is_refused_and_starts_nothing(host: BrowserHostProcess) -> None:
    stranger = 54_321
    before = set(_below(host.pid))
    proxy = "proxy-" + "x" * 32 + ".sock"
    # The socket file is the executor's uid's alone...
    assert greet(host, fresh_user_id(), proxy, uid=stranger) == {"connect": "Permission denied"}
    # ...and were it opened to everyone, the host still asks the kernel who connected.
    mode = host.socket.stat().st_mode
    host.socket.chmod(0o666)
    try:
        answer = greet(host, fresh_user_id(), proxy, uid=stranger)
    finally:
        host.socket.chmod(mode)
    assert json.loads(answer["answer"]) == {"refused": f"uid {stranger} may not use the browser host",
                                            "unconfinable": False}
    assert set(_below(host.pid)) <= before, "no worker was started"


_UNPRIVILEGED_EXECUTOR = r"""
import json, os, socket, sys
directory, user = sys.argv[1], int(sys.argv[2])

def send(s, message):
    body = json.dumps(message).encode()
    s.sendall(len(body).to_bytes(4, "little") + body)

def receive(s):
    head = s.recv(4, socket.MSG_WAITALL)
    return json.loads(s.recv(int.from_bytes(head, "little"), socket.MSG_WAITALL))

name = "proxy-" + os.urandom(16).hex() + ".sock"
proxy = socket.socket(socket.AF_UNIX)
proxy.bind(os.path.join(directory, name))
proxy.listen()
os.chmod(os.path.join(directory, name), 0o600)
host = socket.socket(socket.AF_UNIX)
host.connect(os.path.join(directory, "host.sock"))
send(host, {"user_id": user, "proxy_socket": name})
answer = receive(host)
# Playwright's first message; the worker's driver answers as it would over a pipe.
send(host, {"id": 1, "guid": "", "method": "initialize", "params": {"sdkLanguage": "python"}, "metadata": {}})
first = receive(host)
print(json.dumps({"answer": answer, "first": first, "proxy_owner": os.stat(os.path.join(directory, name)).st_uid}))
"""


@pytest.mark.skipif(not AS_ROOT, reason="a root host and an executor of another uid need root to set up")
def test_an_executor_that_is_not_root_gets_a_worker_from_a_root_host() -> None:
    """As in compose.yaml: the executor runs as `deputy` (uid 10001) and owns the shared directory."""
    executor_uid, user_id = 10_001, fresh_user_id()
    directory = socket_directory()
    os.chown(directory, executor_uid, executor_uid)
    host = BrowserHostProcess(directory, executor_uid=executor_uid).start()
    try:
        assert host.socket.stat().st_uid == executor_uid and host.socket.stat().st_mode & 0o777 == 0o600
        ran = subprocess.run(["setpriv", f"--reuid={executor_uid}", f"--regid={executor_uid}", "--clear-groups",
                              "/usr/bin/python3", "-I", "-c", _UNPRIVILEGED_EXECUTOR, str(directory), str(user_id)],
                             capture_output=True, text=True, timeout=60)
        assert ran.returncode == 0, ran.stderr + host.output()
        seen = json.loads(ran.stdout)
        assert seen["answer"]["opened"] is True and seen["answer"]["launcher"].endswith("/launch")
        assert seen["first"].get("method") == "__create__", "the driver answered through the host"
        # The host handed the executor's proxy socket to the user's own uid, the one its browser runs as.
        assert seen["proxy_owner"] == sandbox_uid(user_id)
    finally:
        host.remove()


def test_a_request_cannot_take_over_another_users_browser(
    host: BrowserHostProcess, opened: UserSession
) -> None:
    """The only thing a request names is its proxy socket; one already serving a user's browser is refused."""
    assert opened.proxy is not None and opened.proxy._unix_path is not None
    taken = Path(opened.proxy._unix_path).name
    answer = json.loads(greet(host, fresh_user_id(), taken)["answer"])
    assert "refused" in answer and "opened" not in answer
    # A name that is not a proxy socket of the shared directory is not even read.
    answer = json.loads(greet(host, fresh_user_id(), "../host.sock")["answer"] or "{}")
    assert "opened" not in answer


def test_a_host_killed_mid_checkout_leaves_one_payment_and_an_unknown_outcome_and_a_restarted_one_serves(
    world: World,
) -> None:
    host = BrowserHostProcess(executor_uid=os.geteuid()).start()
    manager = hosted_sessions(host)
    try:
        web, user_id, url = runners(manager), fresh_user_id(), world.urls["shop"]
        fill_cart(web, url, "usb-c-cable-1m", user_id)
        action = pay_action(url, "8.99", user_id)
        card, token = world.card_for(action.id, url, "8.99")
        [session] = [s for s in manager._sessions.values() if s.user_id == user_id]
        capture = world.issuer.capture

        def capture_then_crash(txn_id: str):  # type: ignore[no-untyped-def]
            # The bank takes the payment; the browser host dies before the shop's answer reaches the page.
            done = capture(txn_id)
            host.kill()
            return done

        world.issuer.capture = capture_then_crash  # type: ignore[method-assign]
        try:
            offer_card(card)
            with pytest.raises(ConnectorOutcomeUnknown, match="can't tell whether it went through"):
                web.runners()["web.pay_on_page"](action, action.id)
        finally:
            world.issuer.capture = capture  # type: ignore[method-assign]
        paid = [t for t in world.issuer.transactions.values() if t.token_id == token.id]
        assert [(t.amount, t.status) for t in paid] == [(Decimal("8.99"), "captured")]
        assert session.dead
        # The worker dies with its host (bubblewrap's --die-with-parent), a moment later.
        wait_for(lambda: not _alive(worker_tree(session)), timeout=20, what="the worker to die with its host")
        # No host: the next step says the browser could not start (a passing trouble, tried again later).
        with pytest.raises(ConnectorUnavailable, match="failed to start"):
            open_on(manager, user_id, f"{url}/products/usb-c-cable-1m")
        # A restarted host serves the user's next step with a fresh worker.
        host.start()
        fresh = open_on(manager, user_id, f"{url}/products/usb-c-cable-1m")
        assert fresh is not session and fresh.worker is not None and fresh.worker.running
        assert _processes()[fresh.worker.pid][0] == host.pid
    finally:
        manager.close()
        host.remove()


def _alive(pids: object) -> list[int]:
    """Those of `pids` still running (not yet reaped ones excepted)."""
    running = []
    for pid in pids:  # type: ignore[attr-defined]
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            running.append(pid)
    return running


def _below(pid: int) -> list[int]:
    everything = _processes()
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for child, (its_parent, _) in everything.items():
            if its_parent == parent:
                found.append(child)
                todo.append(child)
    return found
