"""Redis addresses: a Sentinel deployment written as one address, and mistakes said plainly."""

from __future__ import annotations

import pytest

from deputy.core.infrastructure.redis_address import SentinelAddress, parse_address, sentinel_url
from deputy.settings import Settings


def test_sentinels_and_master_name_make_an_address_that_reads_back() -> None:
    url = sentinel_url("10.0.0.1:26379, sentinel-2:26380,sentinel-3", "deputy", password="p@ss/word")
    assert parse_address(url) == SentinelAddress(
        (("10.0.0.1", 26379), ("sentinel-2", 26380), ("sentinel-3", 26379)), "deputy", 0, "p@ss/word")


def test_a_plain_url_is_not_a_sentinel_address() -> None:
    assert parse_address("redis://127.0.0.1:6379/0") is None


@pytest.mark.parametrize("spec", ["", " , ", "host:port", "host:0", ":26379"])
def test_a_mistyped_sentinel_list_is_refused_with_what_to_write(spec: str) -> None:
    with pytest.raises(ValueError, match="REDIS_SENTINELS"):
        sentinel_url(spec, "deputy")


def test_the_settings_turn_sentinels_into_the_redis_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/0")
    monkeypatch.setenv("REDIS_SENTINELS", "s1:26379,s2:26379,s3:26379")
    monkeypatch.setenv("REDIS_MASTER_NAME", "main")
    monkeypatch.setenv("REDIS_PASSWORD", "secret")
    address = parse_address(Settings().redis_url or "")
    assert address is not None and address.master == "main" and address.password == "secret"
    assert len(address.sentinels) == 3



def test_a_process_started_with_a_mistyped_sentinel_list_says_what_to_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    from deputy.cli import main

    monkeypatch.setenv("REDIS_SENTINELS", "sentinel-1:port")
    with pytest.raises(SystemExit, match=r"REDIS_SENTINELS must be host:port pairs .*'sentinel-1:port'"):
        main(["worker"])
