"""The text inside a picture the user sends, read before anything keeps the picture.

A photo of a card, a screenshot of a password manager or of a router's sticker holds the
same secrets a message would. Deputy reads it with Tesseract (Debian's `tesseract-ocr`, its
English model inside the package: nothing is downloaded at run time), in a child process of
its own with a time limit, one picture at a time per chat front end, so a slow picture costs
the bot a core for a moment and never its event loop. What it reads is checked by
`deputy.core.secret_scan.pictures`, which allows for its usual misreadings.

When Tesseract is not installed, or a picture cannot be read in time, the picture is not
checked (the chat goes on as before) and the log says so once: reading pictures is a net
under the text checks, not a gate that loses the user's photo.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil

log = logging.getLogger(__name__)

TIMEOUT_SECONDS = 30.0


class PhotoReader:
    def __init__(self, command: str | None = None, timeout: float = TIMEOUT_SECONDS) -> None:
        self._command = command if command is not None else shutil.which("tesseract")
        self._timeout = timeout
        self._one_at_a_time = asyncio.Semaphore(1)
        self._warned = False

    @property
    def available(self) -> bool:
        return bool(self._command)

    async def text(self, image: bytes) -> str | None:
        """The text Tesseract reads in `image` (JPEG, PNG, WebP, GIF...), or None when it could not be read."""
        if not self._command:
            self._warn("pictures are not read for secrets: tesseract is not installed (apt-get install tesseract-ocr)")
            return None
        async with self._one_at_a_time:
            try:
                process = await asyncio.create_subprocess_exec(
                    self._command, "stdin", "stdout", stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
                    env={**os.environ, "OMP_THREAD_LIMIT": "1"},  # one core: OpenMP threads only contend here
                )
            except OSError as exc:
                self._warn(f"pictures are not read for secrets: tesseract did not start ({type(exc).__name__})")
                return None
            try:
                out, _ = await asyncio.wait_for(process.communicate(image), self._timeout)
            except asyncio.TimeoutError:
                process.kill()
                await process.wait()
                log.warning("a picture was not read for secrets within %.0f s", self._timeout)
                return None
        if process.returncode != 0:
            log.info("tesseract could not read a picture (exit %s)", process.returncode)
            return None
        return out.decode("utf-8", errors="replace")

    def _warn(self, message: str) -> None:
        if not self._warned:
            self._warned = True
            log.warning(message)
