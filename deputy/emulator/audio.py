"""What a user's voice note is, from its bytes: Telegram's apps record OGG files with Opus inside.

The length shown in the chat (and sent to the bot as `voice.duration`) is the last page's
granule position less the Opus pre-skip, at 48 kHz, as Telegram reads it.
"""

from __future__ import annotations

import struct

_PAGE = struct.Struct("<4sBBqIIIB")  # capture, version, flags, granule, serial, sequence, crc, segments


def ogg_opus_seconds(data: bytes) -> float | None:
    """The length of an OGG/Opus recording in seconds, or None when `data` is not one."""
    if not data.startswith(b"OggS") or len(data) < _PAGE.size:
        return None
    offset, granule, pre_skip, first = 0, 0, None, True
    while offset + _PAGE.size <= len(data):
        capture, _, _, page_granule, _, _, _, count = _PAGE.unpack_from(data, offset)
        if capture != b"OggS":
            return None
        table = data[offset + _PAGE.size: offset + _PAGE.size + count]
        body = offset + _PAGE.size + count
        if first:
            head = data[body: body + 19]
            if not head.startswith(b"OpusHead") or len(head) < 12:
                return None
            pre_skip, first = struct.unpack_from("<H", head, 10)[0], False
        if page_granule >= 0:
            granule = page_granule
        offset = body + sum(table)
    return max(0, granule - (pre_skip or 0)) / 48_000
