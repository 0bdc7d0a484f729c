"""Which links are recordings, and how fetching one through the egress guard ends."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from deputy.bot.media_links import MediaLinkError, fetch_recording, recording_link


def test_a_link_is_a_recording_by_the_end_of_its_path() -> None:
    assert recording_link("make a list from https://shop.example/recipes/pancakes.mp4.") == \
        "https://shop.example/recipes/pancakes.mp4"
    assert recording_link("listen: http://x.example/a/talk.MP3?t=3") == "http://x.example/a/talk.MP3?t=3"
    assert recording_link("read https://shop.example/recipes/pancakes please") is None
    assert recording_link("https://x.example/video.mp4.html") is None


def _serving(content_type: str, body: bytes) -> httpx.MockTransport:
    return httpx.MockTransport(lambda request: httpx.Response(200, headers={"content-type": content_type},
                                                              content=body))


def test_only_an_answer_that_is_audio_or_video_is_a_recording() -> None:
    fetched = asyncio.run(fetch_recording("https://x.example/a.mp4", [], 1000, _serving("video/mp4", b"v" * 10)))
    assert fetched is not None and (fetched.what, fetched.data) == ("video", b"v" * 10)
    assert asyncio.run(fetch_recording("https://x.example/a.mp4", [], 1000, _serving("text/html", b"<p>"))) is None


def test_a_recording_over_the_size_limit_is_refused_plainly() -> None:
    with pytest.raises(MediaLinkError, match="over 0 MB|more than I can take"):
        asyncio.run(fetch_recording("https://x.example/a.mp3", [], 100, _serving("audio/mpeg", b"a" * 500)))


def test_the_egress_guard_refuses_a_private_address_nobody_opened() -> None:
    with pytest.raises(MediaLinkError, match="I can't fetch that link"):
        asyncio.run(fetch_recording("http://127.0.0.1:9/secret.mp4", [], 1000))
    with pytest.raises(MediaLinkError, match="I can't fetch that link"):
        asyncio.run(fetch_recording("http://169.254.169.254/latest/x.mp4", [], 1000))
