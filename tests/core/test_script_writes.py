"""Writes queued by store code run inside one script, only when its check passes (real Redis)."""

from __future__ import annotations

import asyncio

import pytest
from redis import Redis

from deputy.core.infrastructure.lua_scripts import LuaScript, embedded
from deputy.core.infrastructure.script_writes import ScriptWrites, run_writes_lua
from deputy.testing.stack import RedisServer

_COUNT_UP = "return redis.call('INCRBY', KEYS[1], ARGV[1])"
NESTED = {_COUNT_UP: "count_up"}
# KEYS: a flag. Runs the writes (from ARGV[1]) only if the flag is not set.
_IF_NOT_FLAGGED = LuaScript(run_writes_lua(NESTED) + """
if redis.call('EXISTS', KEYS[1]) == 1 then return {'skipped'} end
return {'ran', run_writes(1)}
""")


def _writes() -> ScriptWrites:
    writes = ScriptWrites(NESTED)
    writes.pipeline.set("record", "v1", nx=True)
    writes.pipeline.hset("hash", mapping={"a": 1, "b": "two"})
    writes.pipeline.eval(_COUNT_UP, 1, "counter", 5)
    return writes


def _run(redis_server: RedisServer, writes: ScriptWrites) -> list:
    from deputy.core.infrastructure.redis_clients import async_client

    async def go() -> list:
        client = async_client(redis_server.url)
        try:
            return await _IF_NOT_FLAGGED(client, ["flag"], writes.args())
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_the_queued_writes_run_in_the_script_when_its_check_passes(redis: Redis, redis_server: RedisServer) -> None:
    assert _run(redis_server, _writes()) == [b"ran", [5]]
    assert redis.get("record") == b"v1" and redis.hgetall("hash") == {b"a": b"1", b"b": b"two"}
    assert redis.get("counter") == b"5", "the embedded script ran with its own KEYS and ARGV"


def test_nothing_is_written_when_the_check_fails(redis: Redis, redis_server: RedisServer) -> None:
    redis.set("flag", 1)
    assert _run(redis_server, _writes()) == [b"skipped"]
    assert redis.keys("*") == [b"flag"]


def test_a_script_the_caller_does_not_embed_is_refused_before_anything_is_sent() -> None:
    writes = ScriptWrites(NESTED)
    writes.pipeline.set("record", "v1")
    writes.pipeline.eval("return 1", 0)
    with pytest.raises(ValueError, match="not one the calling script embeds"):
        writes.args()


def test_an_embedded_script_is_the_same_text_as_the_script_alone(redis: Redis) -> None:
    assert redis.eval(_COUNT_UP, 1, "alone", 2) == 2
    assert redis.eval(embedded("count_up", _COUNT_UP) + "return count_up(KEYS, ARGV)", 1, "alone", 3) == 5
