"""Writes queued by Deputy's own store code, run inside a Lua script once its checks pass.

A MULTI/EXEC runs all of its writes or none, but cannot decide anything on the way. The goal
intake must take the goal's place in the user's plan and, only if there is room, store the
goal and queue its first step, all at once. So the stores write their records as they always
do (`GoalStore.queue_create`, the audit's `queue_append`, RQ's own enqueue through
`RQDispatch.step`) onto a pipeline that is never sent (`ScriptWrites.pipeline`); its
commands become the script's arguments (`ScriptWrites.args`), and the script runs them with
`run_writes` (`RUN_WRITES_LUA`). The records are exactly what those modules write, RQ's
job hash and queue included, because they wrote them.

Some of those writes are scripts themselves (the audit's chained append, the fair queue's
push). A script cannot call another, so each is embedded in the calling script as a
function (`deputy.core.infrastructure.lua_scripts.embedded`) and named in the arguments
instead of its source.

The keys of these writes travel in ARGV, not KEYS: fine on one Redis (and behind Sentinel),
not on Redis Cluster, which Deputy does not support.
"""

from __future__ import annotations

from typing import Any

from redis import Redis
from redis.client import Pipeline
from redis.connection import Encoder

from deputy.core.infrastructure.lua_scripts import embedded

_ENCODER = Encoder(encoding="utf-8", encoding_errors="strict", decode_responses=False)
_NOWHERE: Redis | None = None  # builds pipelines that are never sent (it never connects)


def _pipeline() -> Pipeline:
    global _NOWHERE
    if _NOWHERE is None:
        _NOWHERE = Redis()
    pipe = _NOWHERE.pipeline(transaction=True)
    pipe.multi()  # RQ adds its writes to a pipeline only if it is already in MULTI mode
    return pipe


class ScriptWrites:
    """Collects writes for a script. `nested` maps an embeddable script's source to its name."""

    def __init__(self, nested: dict[str, str]) -> None:
        self._nested = nested
        self.pipeline = _pipeline()

    def args(self) -> list[bytes]:
        """The writes as ARGV: their count, then each as its length and its words."""
        out: list[bytes] = [_ENCODER.encode(len(self.pipeline.command_stack))]
        for args, _options in self.pipeline.command_stack:
            words = list(args)
            name = str(words[0]).upper()
            if name in ("EVAL", "EVALSHA", "FCALL"):
                # Refused here, before anything is sent: Redis would stop the script half way.
                if name != "EVAL" or words[1] not in self._nested:
                    raise ValueError("a script queued for the writes is not one the calling script embeds")
                words = ["@" + self._nested[words[1]], *words[2:]]
            out.append(_ENCODER.encode(len(words)))
            out.extend(_ENCODER.encode(word) for word in words)
        self.pipeline.reset()
        return out


def run_writes_lua(nested: dict[str, str]) -> str:
    """Lua: the embedded scripts, and `run_writes(from)`, which runs the writes found in ARGV from
    position `from` and returns what each embedded script returned, in order."""
    functions = "".join(embedded(f"nested_{name}", source) for source, name in nested.items())
    table = ", ".join(f"['@{name}'] = nested_{name}" for name in nested.values())
    return functions + f"""local NESTED = {{{table}}}
local function run_writes(from)
  local results = {{}}
  local count, i = tonumber(ARGV[from]), from + 1
  for _ = 1, count do
    local n = tonumber(ARGV[i])
    local command = {{unpack(ARGV, i + 1, i + n)}}
    i = i + 1 + n
    local script = NESTED[command[1]]
    if script then
      local numkeys = tonumber(command[2])
      local result = script({{unpack(command, 3, 2 + numkeys)}}, {{unpack(command, 3 + numkeys, n)}})
      results[#results + 1] = result or false
    else
      redis.call(unpack(command))
    end
  end
  return results
end
"""


def encode(values: list[Any]) -> list[bytes]:
    """Values as redis-py would send them."""
    return [_ENCODER.encode(value) for value in values]
