"""Where Deputy's Redis is: one string for a plain server or a primary found through Redis Sentinel.

Every process passes one Redis address around (to its pools, its RQ worker, its asyncio
clients), so a Sentinel deployment is written as an address too:

    redis+sentinel://[:password@]host:port,host:port,host:port/<master name>[/<db>]

`REDIS_SENTINELS` and `REDIS_MASTER_NAME` are turned into this form by the settings; a
plain `redis://`, `rediss://` or `unix://` URL is used as it is. Parsing is pure, so a
mistyped sentinel list fails at start-up with a sentence that says what to fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, unquote

SCHEME = "redis+sentinel"
SENTINEL_PORT = 26379


@dataclass(frozen=True)
class SentinelAddress:
    """The sentinels to ask, the name they monitor the primary under, and how to log in to it."""

    sentinels: tuple[tuple[str, int], ...]
    master: str
    db: int = 0
    password: str | None = None


def parse_sentinels(spec: str) -> tuple[tuple[str, int], ...]:
    """`host:port,host:port` (port 26379 when left out) as pairs; ValueError with a readable message."""
    pairs = []
    for part in (piece.strip() for piece in spec.split(",")):
        if not part:
            continue
        host, colon, port = part.rpartition(":")
        if not colon:
            host, port = part, str(SENTINEL_PORT)
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"REDIS_SENTINELS must be host:port pairs separated by commas (got {part!r})")
        pairs.append((host.strip("[]"), int(port)))
    if not pairs:
        raise ValueError("REDIS_SENTINELS is empty: list the sentinels as host:port,host:port")
    return tuple(pairs)


def sentinel_url(sentinels: str, master: str, password: str | None = None, db: int = 0) -> str:
    """The address of the primary that `sentinels` (`host:port,...`) know as `master`."""
    pairs = parse_sentinels(sentinels)
    if not master or "/" in master:
        raise ValueError(f"REDIS_MASTER_NAME must be the name the sentinels monitor (got {master!r})")
    auth = f":{quote(password, safe='')}@" if password else ""
    hosts = ",".join(f"{host}:{port}" for host, port in pairs)
    return f"{SCHEME}://{auth}{hosts}/{quote(master, safe='')}/{db}"


def parse_address(url: str) -> SentinelAddress | None:
    """The Sentinel deployment `url` names, or None for a plain Redis URL."""
    prefix = f"{SCHEME}://"
    if not url.startswith(prefix):
        return None
    rest = url[len(prefix):]
    auth, _, rest = rest.rpartition("@")
    password = unquote(auth.partition(":")[2]) or None
    hosts, _, path = rest.partition("/")
    master, _, db = path.partition("/")
    if not master:
        raise ValueError("a redis+sentinel:// address needs the master's name after the sentinels")
    return SentinelAddress(parse_sentinels(hosts), unquote(master), int(db or 0), password)

