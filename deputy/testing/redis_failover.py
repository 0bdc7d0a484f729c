"""A Redis primary, a replica and three sentinels as local processes, to fail over on purpose.

The production topology of `compose.yaml`, started from the `redis-server` binary on free
ports for the end-to-end suite and for anyone who wants to watch a failover: kill the
primary (`kill_primary`), and the sentinels promote the replica within a few seconds
(`down-after-milliseconds` is 1 s here, 5 s in compose.yaml). Both servers keep an
append-only file with `appendfsync everysec`, as in production.
"""

from __future__ import annotations

import signal
import subprocess
import tempfile
from pathlib import Path

from redis import Redis
from redis.sentinel import Sentinel

from deputy.core.infrastructure.ports import free_port
from deputy.core.infrastructure.redis_address import sentinel_url
from deputy.testing.stack import wait_for

MASTER_NAME = "deputy"


class RedisFailoverSet:
    def __init__(self, directory: Path | None = None, down_after_ms: int = 1000) -> None:
        self._dir = directory or Path(tempfile.mkdtemp(prefix="deputy-failover-"))
        self.ports = {"a": free_port(), "b": free_port()}
        self.sentinel_ports = [free_port() for _ in range(3)]
        self._down_after = down_after_ms
        self._servers: dict[str, subprocess.Popen] = {}
        self._sentinels: list[subprocess.Popen] = []

    @property
    def sentinels(self) -> str:
        """The `REDIS_SENTINELS` value for this set."""
        return ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)

    @property
    def url(self) -> str:
        return sentinel_url(self.sentinels, MASTER_NAME)

    def start(self) -> "RedisFailoverSet":
        self._start_server("a")
        self._start_server("b", replica_of=self.ports["a"])
        wait_for(lambda: self._replicating("b"), timeout=20, what="the replica to sync")
        for index, port in enumerate(self.sentinel_ports):
            config = self._dir / f"sentinel-{index}.conf"
            config.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {self._dir}\n"
                f"sentinel monitor {MASTER_NAME} 127.0.0.1 {self.ports['a']} 2\n"
                f"sentinel down-after-milliseconds {MASTER_NAME} {self._down_after}\n"
                f"sentinel failover-timeout {MASTER_NAME} 5000\n"
                f"sentinel parallel-syncs {MASTER_NAME} 1\n"
            )
            self._sentinels.append(subprocess.Popen(
                ["redis-server", str(config), "--sentinel", "--loglevel", "warning"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            ))
        wait_for(self._sentinels_agree, timeout=20, what="the sentinels to see the primary and its replica")
        return self

    def primary(self) -> str:
        """Which server ("a" or "b") the sentinels name as primary now."""
        host, port = Sentinel([("127.0.0.1", p) for p in self.sentinel_ports],
                              sentinel_kwargs={"socket_timeout": 0.5}).discover_master(MASTER_NAME)
        return next(name for name, known in self.ports.items() if known == port)

    def kill_primary(self) -> str:
        """SIGKILL the current primary, like a machine lost; returns its name."""
        name = self.primary()
        self.stop_process(name)
        return name

    def stop_process(self, name: str) -> None:
        """SIGKILL one server, primary or replica."""
        process = self._servers.pop(name)
        process.kill()
        process.wait(timeout=10)

    def pause(self, name: str) -> None:
        """SIGSTOP one server: it holds its connections and answers nothing (a replica acknowledges no write)."""
        self._servers[name].send_signal(signal.SIGSTOP)

    def resume(self, name: str) -> None:
        self._servers[name].send_signal(signal.SIGCONT)

    def replica(self) -> str:
        """Which server is not the primary now."""
        primary = self.primary()
        return next(name for name in self.ports if name != primary)

    def wait_for_promotion(self, old: str, timeout: float = 30.0) -> str:
        """Wait until the sentinels name another primary and it accepts writes; returns its name."""
        def promoted() -> str | None:
            try:
                name = self.primary()
                return name if name != old and self.client(name).set("deputy:failover:probe", "1") else None
            except Exception:
                return None
        return wait_for(promoted, timeout=timeout, what="a replica to be promoted")

    def client(self, name: str) -> Redis:
        return Redis(host="127.0.0.1", port=self.ports[name], socket_timeout=2)

    def stop(self) -> None:
        for process in [*self._sentinels, *self._servers.values()]:
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)  # a paused server would not hear the SIGTERM
                process.terminate()
        for process in [*self._sentinels, *self._servers.values()]:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        self._sentinels, self._servers = [], {}

    def _start_server(self, name: str, replica_of: int | None = None) -> None:
        directory = self._dir / name
        directory.mkdir(parents=True, exist_ok=True)
        args = ["redis-server", "--port", str(self.ports[name]), "--bind", "127.0.0.1", "--dir", str(directory),
                "--save", "", "--appendonly", "yes", "--appendfsync", "everysec", "--loglevel", "warning"]
        if replica_of is not None:
            args += ["--replicaof", "127.0.0.1", str(replica_of)]
        self._servers[name] = subprocess.Popen(args, stdout=subprocess.DEVNULL)
        wait_for(lambda: self._answers(name), timeout=10, what=f"redis-server {name}")

    def _answers(self, name: str) -> bool:
        try:
            return bool(self.client(name).ping())
        except Exception:
            return False

    def _replicating(self, name: str) -> bool:
        try:
            return self.client(name).info("replication").get("master_link_status") == "up"
        except Exception:
            return False

    def _sentinels_agree(self) -> bool:
        try:
            for port in self.sentinel_ports:
                client = Redis(host="127.0.0.1", port=port, socket_timeout=1)
                state = client.sentinel_master(MASTER_NAME)
                if int(state.get("num-slaves", 0)) < 1 or int(state.get("num-other-sentinels", 0)) < 2:
                    return False
            return True
        except Exception:
            return False
