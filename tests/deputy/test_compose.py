"""compose.yaml runs the production topology: a primary, a replica, three sentinels, Deputy through them."""

from __future__ import annotations

from pathlib import Path

import yaml

COMPOSE = yaml.safe_load((Path(__file__).parents[2] / "compose.yaml").read_text())
SERVICES = COMPOSE["services"]
# The browser host reaches no Redis and no network at all (below).
DEPUTY = [name for name, service in SERVICES.items()
          if service.get("command", [None])[0] == "deputy" and name != "browser"]


def test_every_deputy_service_finds_redis_through_the_three_sentinels_and_serves_its_health() -> None:
    assert set(DEPUTY) >= {"bot", "worker", "gateway", "executor", "connect-page"}
    for name in DEPUTY:
        environment = SERVICES[name]["environment"]
        assert "REDIS_URL" not in environment, name
        assert environment["REDIS_SENTINELS"] == "sentinel-1:26379,sentinel-2:26379,sentinel-3:26379", name
        assert environment["REDIS_MASTER_NAME"] == "deputy", name
        assert environment["DEPUTY_HEALTH_PORT"] == "9100" and environment["DEPUTY_HEALTH_HOST"] == "0.0.0.0", name
        assert "9100/healthz" in " ".join(SERVICES[name]["healthcheck"]["test"]), name


def test_both_redis_servers_keep_an_append_only_file_and_the_replica_follows_the_primary() -> None:
    for name in ("redis", "redis-replica"):
        command = " ".join(SERVICES[name]["command"])
        assert "--appendonly yes --appendfsync everysec" in command, name
    assert "--replicaof redis 6379" in " ".join(SERVICES["redis-replica"]["command"])


def test_two_of_three_sentinels_must_agree_before_a_promotion() -> None:
    for name in ("sentinel-1", "sentinel-2", "sentinel-3"):
        script = SERVICES[name]["command"][-1]
        assert "sentinel monitor deputy redis 6379 2" in script
        assert "--sentinel" in script


def test_browsers_run_in_a_service_of_their_own_with_no_key_no_redis_and_no_network() -> None:
    browser, executor = SERVICES["browser"], SERVICES["executor"]
    assert browser["command"] == ["deputy", "browser-host"] and browser["image"] == executor["image"]
    environment = browser["environment"]
    assert not [name for name in environment if "KEY" in name or "SECRET" in name or "TOKEN" in name
                or "PASSWORD" in name or name.startswith("REDIS")]
    assert browser["network_mode"] == "none"
    assert [v for v in browser["volumes"] if not v.startswith("browser-sockets:")] == [], "no data volume"
    # It serves the executor's uid alone, on the volume both mount.
    socket = environment["DEPUTY_BROWSER_HOST_SOCKET"]
    assert executor["environment"]["DEPUTY_BROWSER_HOST_SOCKET"] == socket
    mount = next(v for v in browser["volumes"]).split(":")[1]
    assert socket.startswith(mount + "/") and f"browser-sockets:{mount}" in executor["volumes"]
    assert environment["DEPUTY_BROWSER_HOST_EXECUTOR_UID"] == "10001"
    # Root is the browser host's alone (a uid per user); the executor, holding the keys, is not root.
    assert browser["user"] == "root" and "user" not in executor
    assert "security_opt" not in executor
    # The executor waits for the browser service (and still for Redis and the sentinels, as every service does).
    assert executor["depends_on"]["browser"] == {"condition": "service_healthy"}
    assert set(executor["depends_on"]) == {"redis", "sentinel-1", "browser"}
