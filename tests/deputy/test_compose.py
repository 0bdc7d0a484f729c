"""compose.yaml runs the production topology: a primary, a replica, three sentinels, Deputy through them."""

from __future__ import annotations

from pathlib import Path

import yaml

COMPOSE = yaml.safe_load((Path(__file__).parents[2] / "compose.yaml").read_text())
SERVICES = COMPOSE["services"]
DEPUTY = [name for name, service in SERVICES.items() if service.get("command", [None])[0] == "deputy"]


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
