"""Lua scripts sent by their SHA1 (EVALSHA), their source sent again only when Redis lacks it.

On the bot's hot path each script is one short command. Redis forgets loaded scripts when
it restarts, fails over to a replica that never saw them, or is told SCRIPT FLUSH; it then
answers NOSCRIPT, nothing has run, and the script is sent whole with EVAL, which runs it
and loads it again for the next EVALSHA.

Scripts that must be embedded in another (a script cannot call one) are written so that
their source text is also a function body over their own `KEYS` and `ARGV`
(`embedded`): the same text runs alone and inside a bigger script.
"""

from __future__ import annotations

import hashlib
from typing import Any, Sequence

from redis.exceptions import NoScriptError


class LuaScript:
    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

    async def __call__(self, client: Any, keys: Sequence[Any] = (), args: Sequence[Any] = ()) -> Any:
        """Run it on an asyncio client: EVALSHA, or EVAL when Redis answers NOSCRIPT."""
        try:
            return await client.evalsha(self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return await client.eval(self.source, len(keys), *keys, *args)

    def run(self, client: Any, keys: Sequence[Any] = (), args: Sequence[Any] = ()) -> Any:
        """The same on a synchronous client."""
        try:
            return client.evalsha(self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return client.eval(self.source, len(keys), *keys, *args)


def embedded(name: str, source: str) -> str:
    """Lua defining local function `name(KEYS, ARGV)` whose body is the script `source`.

    Inside, `KEYS` and `ARGV` are the function's own arguments, and a `return` at the
    script's top level returns from the function."""
    return f"local function {name}(KEYS, ARGV)\n{source}\nend\n"
