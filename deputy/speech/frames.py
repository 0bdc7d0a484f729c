"""A few pictures from a video, so what it shows reaches the goal through the image path as well as what it says.

Only keyframes are decoded (the decoder skips the rest), so a five-minute video costs a few
frames' work; up to `count` of them, spread over the video, are scaled down and encoded as
JPEG with PyAV (faster-whisper's decoder; nothing else is needed).
"""

from __future__ import annotations

import io
import logging

log = logging.getLogger(__name__)


def keyframes(video: bytes, count: int = 3, max_side: int = 768) -> list[bytes]:
    """Up to `count` JPEG pictures from `video`'s keyframes, spread over its length; [] when none can be read."""
    import av

    try:
        with av.open(io.BytesIO(video), mode="r") as container:
            stream = next(iter(container.streams.video), None)
            if stream is None:
                return []
            stream.codec_context.skip_frame = "NONKEY"
            frames = [frame for frame in container.decode(stream)][:200]
    except (av.error.FFmpegError, ValueError) as exc:
        log.info("no pictures could be read from a video (%s)", type(exc).__name__)
        return []
    if len(frames) > count:
        step = len(frames) / count
        frames = [frames[int(i * step)] for i in range(count)]
    return [jpeg for frame in frames if (jpeg := _jpeg(frame, max_side))]


def _jpeg(frame, max_side: int) -> bytes | None:
    import av

    scale = min(1.0, max_side / max(frame.width, frame.height))
    width, height = max(2, int(frame.width * scale) // 2 * 2), max(2, int(frame.height * scale) // 2 * 2)
    out = io.BytesIO()
    try:
        with av.open(out, mode="w", format="mjpeg") as container:
            stream = container.add_stream("mjpeg")
            stream.width, stream.height, stream.pix_fmt = width, height, "yuvj420p"
            picture = frame.reformat(width=width, height=height, format="yuvj420p")
            for packet in stream.encode(picture):
                container.mux(packet)
            for packet in stream.encode(None):
                container.mux(packet)
    except (av.error.FFmpegError, ValueError) as exc:
        log.info("a video frame could not be encoded (%s)", type(exc).__name__)
        return None
    data = out.getvalue()
    return data if data.startswith(b"\xff\xd8") else None
