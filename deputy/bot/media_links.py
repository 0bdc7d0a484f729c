"""A link to a recording in a message (a recipe video's address): fetched through the egress guard.

A page is read by the agent in the guarded browser; a video or audio file has nothing to read
there, so its sound would be lost. A message whose link names a recording (by the end of its
path: `.mp4`, `.webm`, `.mp3`…) is fetched here instead, through the same egress guard the
connectors use (no private address unless the operator opened it, no redirect around it), and
only if the answer really is audio or video (`Content-Type`) is it handed on: heard and looked
at like a video the user sent (`deputy.bot.voice_notes`), its words as outside content. Anything
else (a page that happens to end in `.mp4`) goes on as a typed message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from deputy.core.records.effects import ConnectorError
from deputy.sentinel.egress.context import EgressContext, EgressPolicy
from deputy.sentinel.egress.policy import reviewer
from deputy.sentinel.egress.transports.http_client import AsyncGuardedTransport

RECORDING_SUFFIXES = (".mp4", ".m4v", ".mov", ".webm", ".mkv", ".ogv", ".mp3", ".m4a", ".ogg", ".oga", ".opus",
                      ".wav", ".flac")
_LINK = re.compile(r"https?://[^\s<>\"'“”]+", re.IGNORECASE)
FETCH_SECONDS = 60.0


class MediaLinkError(Exception):
    """The recording could not be fetched; the message says why, plainly."""


@dataclass(frozen=True)
class Fetched:
    url: str
    data: bytes
    what: str  # "video" or "audio file"


def recording_link(text: str) -> str | None:
    """The first link in `text` whose path ends like a video or audio file."""
    for match in _LINK.finditer(text):
        url = match.group(0).rstrip(".,;:!?)")
        if urlsplit(url).path.lower().endswith(RECORDING_SUFFIXES):
            return url
    return None


async def fetch_recording(url: str, allow_private: list[str], max_bytes: int,
                          transport: httpx.AsyncBaseTransport | None = None) -> Fetched | None:
    """The recording at `url`, fetched through the egress guard; None when the answer is not audio or video.

    Raises `MediaLinkError` when the guard refuses it, the site fails, or it is over `max_bytes`."""
    guarded = transport or AsyncGuardedTransport(
        reviewer(EgressPolicy(allow_private_networks=allow_private), EgressContext()),
        connector="web", initiated_by="navigation")
    host = urlsplit(url).hostname or url
    try:
        async with httpx.AsyncClient(transport=guarded, follow_redirects=True, timeout=FETCH_SECONDS) as client:
            async with client.stream("GET", url) as response:
                if response.status_code != 200:
                    raise MediaLinkError(f"I couldn't fetch that recording: {host} answered {response.status_code}.")
                kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
                if not kind.startswith(("video/", "audio/")):
                    return None
                what = "video" if kind.startswith("video/") else "audio file"
                if int(response.headers.get("content-length") or 0) > max_bytes:
                    raise MediaLinkError(_too_big(what, max_bytes))
                data = bytearray()
                async for chunk in response.aiter_bytes():
                    data += chunk
                    if len(data) > max_bytes:
                        raise MediaLinkError(_too_big(what, max_bytes))
    except ConnectorError as exc:  # the egress guard's refusal, in its own plain words
        raise MediaLinkError(f"I can't fetch that link: {exc}") from None
    except httpx.HTTPError as exc:
        raise MediaLinkError(f"I couldn't fetch that recording from {host} ({type(exc).__name__}).") from None
    return Fetched(url=url, data=bytes(data), what=what)


def _too_big(what: str, max_bytes: int) -> str:
    return f"That {what} is over {max_bytes / 1e6:.0f} MB, more than I can take. Please send a shorter one."
