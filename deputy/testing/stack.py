"""Run the whole of Deputy from a test or a benchmark, through real parts.

`RedisServer` starts a private redis-server on a free port. `DeputyStack` starts the chat
emulator, the bot, agent workers and the executor as real processes (the same commands an
operator runs), pointed at that Redis, a model endpoint and an SMTP server. `ChatUser`
acts as a person in the chat through the emulator's user-side HTTP API.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import httpx
from redis import Redis

from deputy.core.records.effects import EffectClass
from deputy.core.infrastructure.redis_clients import sync_client
from deputy.core.infrastructure.ports import free_port
from deputy.testing.browser_host import host_environment, socket_directory
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.sentinel.rules import RequestedVerdict, RuleScope, UserRule

Message = dict[str, Any]


def wait_for(check: Callable[[], Any], timeout: float = 15.0, interval: float = 0.05, what: str = "condition") -> Any:
    """Poll `check` until it returns something truthy; raise TimeoutError with `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def descendants(pid: int) -> list[int]:
    """All processes below `pid` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


class RedisServer:
    def __init__(self, directory: Path | None = None, appendonly: bool = False) -> None:
        """`appendonly`: keep data across restarts in an append-only file (fsync every write), as
        `deputy run` and compose.yaml run Redis; otherwise a restart comes back empty."""
        self._dir = directory or Path(tempfile.mkdtemp(prefix="deputy-redis-"))
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.appendonly = appendonly
        self._process: subprocess.Popen | None = None

    def start(self) -> "RedisServer":
        self._dir.mkdir(parents=True, exist_ok=True)
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if self.appendonly else ["--appendonly", "no"]
        self._process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", *persistence,
             "--dir", str(self._dir), "--loglevel", "warning"],
            stdout=subprocess.DEVNULL,
        )
        wait_for(self._ping, timeout=10, what="redis-server")
        return self

    def kill(self) -> None:
        """SIGKILL the server, like a crash: clients keep their now dead connections."""
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=10)
            self._process = None

    def restart(self) -> "RedisServer":
        """Crash and start again on the same port (empty, unless `appendonly`)."""
        self.kill()
        return self.start()

    def pause(self) -> None:
        """SIGSTOP the server (a stall): commands sent meanwhile wait in its sockets."""
        if self._process is not None:
            os.kill(self._process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        if self._process is not None:
            os.kill(self._process.pid, signal.SIGCONT)

    def _ping(self) -> bool:
        try:
            return bool(Redis.from_url(self.url).ping())
        except Exception:
            return False

    def client(self) -> Redis:
        return Redis.from_url(self.url)

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=10)
            self._process = None


class ChatUser:
    """One person in the local chat, driven through the emulator's user-side API."""

    def __init__(self, base_url: str, user_id: int, first_name: str = "Tester") -> None:
        self.user_id = user_id
        self.first_name = first_name
        self._http = httpx.Client(base_url=base_url, timeout=10)

    def send(self, text: str, reply_to: int | None = None) -> int:
        """Send `text` (as a Telegram reply to message `reply_to`, if given); its message id."""
        body: dict[str, Any] = {"text": text, "first_name": self.first_name}
        if reply_to is not None:
            body["reply_to"] = reply_to
        response = self._http.post(f"/api/users/{self.user_id}/messages", json=body)
        response.raise_for_status()
        return response.json()["message_id"]

    def press(self, message_id: int, button: str | None = None, data: str | None = None) -> httpx.Response:
        body: dict[str, Any] = {"message_id": message_id}
        body.update({"button": button} if button is not None else {"data": data})
        return self._http.post(f"/api/users/{self.user_id}/press", json=body)

    def messages(self, after: int = 0) -> list[Message]:
        response = self._http.get(f"/api/users/{self.user_id}/messages", params={"after": after})
        response.raise_for_status()
        return response.json()

    def bot_messages(self, after: int = 0) -> list[Message]:
        return [m for m in self.messages(after) if m["from"] == "bot"]

    def answers(self) -> list[dict[str, Any]]:
        response = self._http.get(f"/api/users/{self.user_id}/answers")
        response.raise_for_status()
        return response.json()

    def wait_for_bot(self, predicate: Callable[[Message], bool], after: int = 0, timeout: float = 20.0) -> Message:
        """The first bot message after `after` matching `predicate` (edits included)."""

        def find() -> Message | None:
            return next((m for m in self.bot_messages(after) if predicate(m)), None)

        return wait_for(find, timeout=timeout, what=f"a bot message for user {self.user_id}")

    def wait_for_answer(self, count: int, timeout: float = 10.0) -> dict[str, Any]:
        """The `count`-th callback answer (toast) this user received."""
        answers = wait_for(lambda: (a := self.answers()) and len(a) >= count and a, timeout=timeout, what="an answer")
        return answers[count - 1]

    def wait_for_card(self, after: int = 0, timeout: float = 20.0) -> Message:
        return self.wait_for_bot(lambda m: any(b.get("text") == "Approve" for row in m["buttons"] for b in row), after, timeout)


# One vault key for every stack of a test run: the vault in Redis remembers the key it was made
# with, and stacks of one test module may share a Redis that a test flushes only after its stack
# started. A test about a wrong key passes its own through `extra_env`.
_VAULT_KEY = "test-vault-key-" + os.urandom(8).hex()


class DeputyStack:
    """The bot, workers and executor as real processes around a private emulator."""

    def __init__(
        self,
        redis_url: str,
        model_base_url: str,
        workdir: Path,
        smtp: dict[str, str] | None = None,
        workers: int = 1,
        extra_env: dict[str, str] | None = None,
        gateway: bool = False,
        python: str = sys.executable,
        cwd: Path | None = None,
        separate_data_dirs: bool = False,
        health: bool = False,
        whatsapp: bool = False,
        web_view: bool = False,
        browser_host: bool = False,
    ) -> None:
        self.redis_url = redis_url
        # Each process with its own DEPUTY_DATA_DIR (`<workdir>/machines/<name>`), as if each ran on
        # its own machine: whatever works then is kept in Redis, not on a shared disk.
        self.separate_data_dirs = separate_data_dirs
        # With `health`, every process serves /healthz, /readyz and /metrics on a port of its own.
        self.health_ports: dict[str, int] | None = {} if health else None
        # Another interpreter (a venv with Deputy installed from its wheel) and a working
        # directory outside the checkout show the processes run from what was installed.
        self._python = python
        self._cwd = cwd
        self.workdir = workdir
        self.chat_port = free_port()
        self.chat_url = f"http://127.0.0.1:{self.chat_port}"
        self.connect_port = free_port()
        self.connect_url = f"http://127.0.0.1:{self.connect_port}"
        # With `web_view`, the private web view (`deputy web-view`) runs too, where /web links point.
        self.web_view = web_view
        self.web_port = free_port()
        self.web_url = f"http://127.0.0.1:{self.web_port}"
        self.secret = "test-secret-" + os.urandom(8).hex()
        # Every writer of the audit trail (agent workers too, which get no DEPUTY_SECRET) seals with this.
        self.audit_key_material = "test-audit-key-" + os.urandom(8).hex()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DEPUTY_", "TELEGRAM_", "OPENAI_"))}
        env.update(
            REDIS_URL=redis_url,
            OPENAI_BASE_URL=model_base_url,
            OPENAI_API_KEY="sk-test-not-secret",
            DEPUTY_MODEL="scripted-model",
            DEPUTY_MODEL_TIMEOUT="30",
            DEPUTY_SECRET=self.secret,
            DEPUTY_AUDIT_KEY=self.audit_key_material,
            DEPUTY_UNLOCK_KEY="test-unlock-key-" + os.urandom(8).hex(),
            DEPUTY_DATA_DIR=str(workdir / "data"),
            DEPUTY_CHAT_PORT=str(self.chat_port),
            DEPUTY_CONNECT_PORT=str(self.connect_port),
            DEPUTY_WEB_PORT=str(self.web_port),
            DEPUTY_VAULT_KEY=_VAULT_KEY,
            TELEGRAM_API_BASE=f"{self.chat_url}/bot",
            PYTHONUNBUFFERED="1",
            DEPUTY_DEFAULT_PLAN="pro",  # a test that needs another plan sets it in extra_env
            # Messages go at once unless a test gives its user a send window (in their settings).
            DEPUTY_SEND_WINDOW="0",
            **({"DEPUTY_MODEL_GATEWAY": "on"} if gateway else {}),
            # No web view running: no link to one (cards carry no "See the whole goal").
            **({} if web_view else {"DEPUTY_WEB_URL": "off"}),
        )
        # With `whatsapp`, the WhatsApp surface and the local WhatsApp emulator run too.
        self.whatsapp = whatsapp
        self.wa_chat_url = ""
        self._wa_listen = ""
        if whatsapp:
            wa_port, self._wa_listen = free_port(), f"127.0.0.1:{free_port()}"
            self.wa_chat_url = f"http://127.0.0.1:{wa_port}"
            env.update(DEPUTY_WHATSAPP_CHAT_PORT=str(wa_port), DEPUTY_WHATSAPP_LISTEN=self._wa_listen)
        # With `browser_host`, `deputy browser-host` runs beside the executor (as the `browser` service in
        # compose.yaml), started with no key, and the executor asks it for every browser.
        self.browser_host_dir = socket_directory() if browser_host else None
        if self.browser_host_dir is not None:
            env["DEPUTY_BROWSER_HOST_SOCKET"] = str(self.browser_host_dir / "host.sock")
        env.update(extra_env or {})  # a test may override any of the above (e.g. its own vault key)
        self._env = env
        self._smtp = smtp or {}
        self._worker_count = workers
        self._gateway = gateway
        self._processes: dict[str, subprocess.Popen] = {}
        self._specs: dict[str, tuple[list[str], dict[str, str]]] = {}
        self._counter = 0

    @property
    def audit_key(self) -> bytes:
        """The key this stack's processes seal the audit trail with (to check it from a test)."""
        from deputy.sentinel.stores.audit import audit_key

        return audit_key(self.audit_key_material)

    def start(self) -> "DeputyStack":
        try:
            return self._start()
        except BaseException:
            self.stop()  # a stack that did not come up must not leave its processes running
            raise

    def _start(self) -> "DeputyStack":
        if self.browser_host_dir is not None:
            code = {"PYTHONPATH": self._env["PYTHONPATH"]} if "PYTHONPATH" in self._env else {}
            self._spawn("browser-host", ["browser-host"], host_environment(self.browser_host_dir / "host.sock", **code))
        self._spawn("emulator", ["emulator", "--port", str(self.chat_port)], self._env)
        wait_for(self._chat_up, timeout=15, what="the chat emulator")
        self._spawn("bot", ["bot"], {k: v for k, v in self._env.items() if k != "DEPUTY_VAULT_KEY"})
        self._spawn("executor", ["executor"], {**self._env, **self._smtp})
        self._spawn("connect-page", ["connect-page", "--port", str(self.connect_port)], self._env)
        for _ in range(self._worker_count):
            self.start_worker()
        if self._gateway:
            self.start_gateway()
        # Generous: on a busy shared machine starting five Python processes takes a while (the connect page
        # alone imports for ~4 s on an idle one); a process that died is said at once, with its log.
        self._wait_up("bot", self._bot_polling, "the bot to start polling")
        self._wait_up("connect-page", self._connect_up, "the connect page")
        if self.browser_host_dir is not None:
            self._wait_up("browser-host", (self.browser_host_dir / "host.sock").exists, "the browser host")
        if self.web_view:
            self._spawn("web-view", ["web-view", "--port", str(self.web_port)],
                        {k: v for k, v in self._env.items() if k != "DEPUTY_VAULT_KEY"})
            self._wait_up("web-view", lambda: self._up(f"{self.web_url}/healthz"), "the web view")
        if self.whatsapp:
            self._spawn("wa-emulator", ["wa-emulator"], self._env)
            self._spawn("whatsapp", ["whatsapp"], {k: v for k, v in self._env.items() if k != "DEPUTY_VAULT_KEY"})
            self._wait_up("wa-emulator", lambda: self._up(f"{self.wa_chat_url}/healthz"), "the WhatsApp emulator")
            self._wait_up("whatsapp", lambda: self._up(f"http://{self._wa_listen}/healthz"), "the WhatsApp surface")
        return self

    def _wait_up(self, name: str, check: Callable[[], Any], what: str, timeout: float = 120) -> None:
        def up_or_dead() -> bool:
            code = self._processes[name].poll()
            if code is not None:
                raise RuntimeError(f"{name} exited with code {code} before it was up; its log ends:\n{self.log_tail(name)}")
            return bool(check())

        wait_for(up_or_dead, timeout=timeout, what=what)

    def log_tail(self, name: str, lines: int = 30) -> str:
        path = self.workdir / f"{name}.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else "(no log)"

    @staticmethod
    def _up(url: str) -> bool:
        try:
            return httpx.get(url, timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def _connect_up(self) -> bool:
        try:
            return httpx.get(f"{self.connect_url}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def _chat_up(self) -> bool:
        try:
            return httpx.get(f"{self.chat_url}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def _bot_polling(self) -> bool:
        # The bot registers its commands once it is initialised and about to poll.
        try:
            response = httpx.post(f"{self.chat_url}/botx/getMyCommands", timeout=2).json()
        except (httpx.HTTPError, ValueError):
            return False
        return bool(response.get("result"))

    def start_executor(self) -> str:
        """Another executor process (as on another machine when data directories are separate)."""
        self._counter += 1
        name = f"executor-{self._counter}"
        self._spawn(name, ["executor"], {**self._env, **self._smtp})
        return name

    def stop_process(self, name: str) -> None:
        """Stop one process as an operator would (SIGTERM, then wait for it)."""
        process = self._processes[name]
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def data_dirs(self) -> list[Path]:
        """Every data directory a process of this stack was given."""
        if not self.separate_data_dirs:
            return [Path(self._env["DEPUTY_DATA_DIR"])]
        return [self.workdir / "machines" / name for name in self._processes]

    def start_worker(self) -> str:
        self._counter += 1
        name = f"worker-{self._counter}"
        # As in production, agent workers get neither the signing secret nor credentials.
        self._spawn(name, ["worker"], {k: v for k, v in self._env.items() if k not in ("DEPUTY_SECRET", "DEPUTY_VAULT_KEY")})
        return name

    def start_gateway(self) -> str:
        """A model gateway process (`deputy gateway`); like workers, it gets no secrets."""
        self._counter += 1
        name = f"gateway-{self._counter}"
        self._spawn(name, ["gateway"],
                    {k: v for k, v in self._env.items() if k not in ("DEPUTY_SECRET", "DEPUTY_VAULT_KEY")})
        return name

    def gateways(self) -> list[str]:
        return [n for n, p in self._processes.items() if n.startswith("gateway-") and p.poll() is None]

    def running(self) -> list[str]:
        """Names of the processes still running."""
        return [n for n, p in self._processes.items() if p.poll() is None]

    def workers(self) -> list[str]:
        return [n for n, p in self._processes.items() if n.startswith("worker-") and p.poll() is None]

    def kill(self, name: str) -> None:
        """SIGKILL a process and everything it forked, like a machine going away.

        RQ's work horses start their own sessions, so killing the process group is not
        enough: every descendant is found through /proc and killed.
        """
        process = self._processes[name]
        for pid in [process.pid, *descendants(process.pid)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        process.wait(timeout=10)

    def restart(self, name: str) -> None:
        """Start a killed process again, with the same command and environment."""
        args, env = self._specs[name]
        self._spawn(name, args, env)

    def pause(self, name: str) -> None:
        """SIGSTOP a process and its descendants (a hung machine); `resume` or `kill` it next."""
        self._signal_tree(name, signal.SIGSTOP)

    def resume(self, name: str) -> None:
        self._signal_tree(name, signal.SIGCONT)

    def _signal_tree(self, name: str, sig: int) -> None:
        process = self._processes[name]
        for pid in [process.pid, *descendants(process.pid)]:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def alive(self, name: str) -> bool:
        return self._processes[name].poll() is None

    def pids(self, name: str) -> list[int]:
        """The process and everything it forked."""
        process = self._processes[name]
        return [process.pid, *descendants(process.pid)]

    def user(self, user_id: int, first_name: str = "Tester", *, asks_before_sending: bool = False) -> ChatUser:
        """A person in the local chat; `asks_before_sending` gives them the rule a careful user
        sets, so every message Deputy would send for them waits for their card."""
        if asks_before_sending:
            with sync_client(self.redis_url) as redis:  # a plain or a Sentinel address
                ask_before_sending(redis, user_id)
        return ChatUser(self.chat_url, user_id, first_name)

    def log(self, name: str) -> str:
        path = self.workdir / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def logs(self) -> str:
        return "\n".join(f"===== {name} =====\n{self.log(name)[-6000:]}" for name in self._processes)

    def stop(self) -> None:
        # Clients first, the emulator they talk to last, so nobody logs a lost connection.
        processes = [p for name, p in self._processes.items() if name not in ("emulator", "wa-emulator")]
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        for name in ("emulator", "wa-emulator"):
            emulator = self._processes.get(name)
            if emulator is not None and emulator.poll() is None:
                os.killpg(emulator.pid, signal.SIGTERM)
        for process in self._processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        if self.browser_host_dir is not None:
            shutil.rmtree(self.browser_host_dir, ignore_errors=True)

    def _spawn(self, name: str, args: list[str], env: dict[str, str]) -> None:
        self._specs[name] = (args, env)
        self.workdir.mkdir(parents=True, exist_ok=True)
        if self.separate_data_dirs:
            env = {**env, "DEPUTY_DATA_DIR": str(self.workdir / "machines" / name)}
        if self.health_ports is not None:
            env = {**env, "DEPUTY_HEALTH_PORT": str(self.health_ports.setdefault(name, free_port()))}
        with open(self.workdir / f"{name}.log", "ab") as log:
            self._processes[name] = subprocess.Popen(
                [self._python, "-m", "deputy", *args], env=env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True, cwd=self._cwd,
            )


ASK_BEFORE_SENDING = "always ask me before sending any message"


def ask_before_sending(redis: Redis, user_id: int) -> None:
    """Store, as the user's own confirmed rule, "always ask me before sending any message"."""
    RuleStore(redis).add(user_id, UserRule(
        id="ask-before-sending", verdict=RequestedVerdict.ask, scope=RuleScope(effects=[EffectClass.communicate]),
        text=ASK_BEFORE_SENDING, created_at=time.time()))
