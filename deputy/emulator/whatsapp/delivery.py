"""Webhook deliveries as Meta makes them: JSON signed with the app secret, retried until 200.

A delivery not answered 200 within the timeout (an error, a refused connection, or an answer
that comes too late) is made again after a pause that grows each time, as Meta's retries do;
a refused signature (401, 403) is final. Each try is logged with the pause before it.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
from typing import Any

from aiohttp import ClientError, ClientSession, ClientTimeout

log = logging.getLogger(__name__)

RETRY_DELAYS = (0.2, 0.5, 1.0, 2.0, 4.0, 8.0)


def envelope(phone_number_id: str, value: dict[str, Any]) -> dict[str, Any]:
    value = {"messaging_product": "whatsapp",
             "metadata": {"display_phone_number": "15550000000", "phone_number_id": phone_number_id}, **value}
    return {"object": "whatsapp_business_account",
            "entry": [{"id": "emulated-waba", "changes": [{"field": "messages", "value": value}]}]}


def signature(body: bytes, secret: str) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class Attempt:
    """One delivery, made again until it is answered."""

    def __init__(self, body: bytes, headers: dict[str, str], signed: str) -> None:
        self.body, self.headers, self.signed, self.status = body, headers, signed, 0


class Deliverer:
    def __init__(self, url: str, app_secret: str, retry_delays: tuple[float, ...] = RETRY_DELAYS,
                 timeout: float = 10.0) -> None:
        self.url = url
        self._secret = app_secret
        self._delays = retry_delays
        self._timeout = timeout
        self._session: ClientSession | None = None
        self._background: set[asyncio.Task] = set()
        self.log: list[dict[str, Any]] = []  # every attempt: what the webhook answered

    async def _http(self) -> ClientSession:
        if self._session is None:
            self._session = ClientSession(timeout=ClientTimeout(total=self._timeout))
        return self._session

    async def post(self, payload: dict[str, Any], *, signed: str = "good", retry: bool = True) -> int:
        """POST until answered 200 (or retries run out); the last status (0: unreachable or too slow).

        `signed`: "good", "bad" (another secret) or "none" (no header), for tests of the receiver."""
        first = await self.post_once(payload, signed=signed)
        if retry and first.status not in (200, 401, 403):
            return await self.retry(first)
        return first.status

    async def post_once(self, payload: dict[str, Any], *, signed: str = "good") -> "Attempt":
        body = json.dumps(payload).encode()
        headers = {"Content-Type": "application/json"}
        if signed != "none":
            headers["X-Hub-Signature-256"] = signature(body, self._secret if signed == "good" else "not-the-secret")
        attempt = Attempt(body, headers, signed)
        await self._try(attempt, 0.0)
        return attempt

    async def retry(self, attempt: "Attempt") -> int:
        """Try a delivery again after growing pauses until it is answered 200 or refused."""
        for delay in self._delays:
            await asyncio.sleep(delay)
            await self._try(attempt, delay)
            if attempt.status == 200 or attempt.status in (401, 403):  # a refused signature stays refused
                break
        return attempt.status

    def retry_later(self, attempt: "Attempt") -> None:
        task = asyncio.create_task(self.retry(attempt))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _try(self, attempt: "Attempt", delay: float) -> None:
        try:
            session = await self._http()
            async with session.post(self.url, data=attempt.body, headers=attempt.headers) as response:
                attempt.status = response.status
        except (ClientError, asyncio.TimeoutError) as exc:
            log.info("webhook unreachable or too slow: %s", exc)
            attempt.status = 0
        self.log.append({"status": attempt.status, "signed": attempt.signed, "delay": delay})

    def post_later(self, payload: dict[str, Any]) -> None:
        task = asyncio.create_task(self.post(payload))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def close(self) -> None:
        for task in list(self._background):
            task.cancel()
        if self._session is not None:
            await self._session.close()
