"""Files users send, kept in Redis for the worker that reads them: bounded, expiring, per user.

The bot stores the bytes under the user's id and a new file id; a worker reads them back by
(user, file id), never by a path, so the bot and the workers may run on different machines.
Sizes are bounded by `deputy.agent.attachments.accepts` before anything is stored; each file
expires after `UPLOAD_TTL_SECONDS` (a goal reads its files on its first step).
"""

from __future__ import annotations

import re

from redis import Redis

from deputy.agent.attachments import Attachment, UnreadableFile, accepts
from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.records.ids import new_id

UPLOAD_TTL_SECONDS = 7 * 24 * 3600
_KEY = "deputy:upload:{}:{}"
_FILE_ID = re.compile(r"f_[A-Za-z0-9_-]{1,64}")


def _key(user_id: int, file_id: str) -> str:
    if not _FILE_ID.fullmatch(file_id):
        raise UnreadableFile("That file reference is not valid.")
    return _KEY.format(int(user_id), file_id)


def new_upload(user_id: int, name: str, mime_type: str, data: bytes) -> tuple[Attachment, str]:
    """The attachment for `data` and the Redis key to store it under; `ValueError` if too large."""
    refusal = accepts(mime_type, len(data))
    if refusal is not None:
        raise ValueError(refusal)
    file_id = new_id("f")
    return Attachment(name=name, mime_type=mime_type, size=len(data), file_id=file_id), _key(user_id, file_id)


class Uploads:
    """Reading and erasing users' files (the workers' side). A confidential user's files are sealed."""

    def __init__(self, redis: Redis, keys: ConfidentialKeys | None = None) -> None:
        self._redis = redis
        self._keys = keys if keys is not None else confidential_keys(redis)

    def put(self, user_id: int, name: str, mime_type: str, data: bytes) -> Attachment:
        attachment, key = new_upload(user_id, name, mime_type, data)
        self._redis.set(key, self._keys.seal_bytes(user_id, data), ex=UPLOAD_TTL_SECONDS)
        return attachment

    def read(self, user_id: int, attachment: Attachment) -> bytes:
        """The file's bytes; `UnreadableFile` (a sentence for the user) when it expired or never was."""
        data = self._redis.get(_key(user_id, attachment.file_id)) if attachment.file_id else None
        if data is None:
            raise UnreadableFile(f"I no longer have {attachment.name}; please send it again.")
        return self._keys.open_bytes(user_id, data)

    def count(self, user_id: int) -> int:
        """How many files the user has stored (each lives a week)."""
        return sum(1 for _ in self._redis.scan_iter(_KEY.format(int(user_id), "*"), count=500))

    def erase(self, user_id: int) -> int:
        """Delete every file of the user (`/delete_me`)."""
        keys = list(self._redis.scan_iter(_KEY.format(int(user_id), "*"), count=500))
        return self._redis.delete(*keys) if keys else 0
