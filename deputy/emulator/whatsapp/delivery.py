"""Webhook deliveries as Meta makes them: JSON signed with the app secret, retried until 200."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
from typing import Any

from aiohttp import ClientError, ClientSession, ClientTimeout

log = logging.getLogger(__name__)

RETRY_DELAYS = (0.2, 0.5, 1.0, 2.0, 4.0)


def envelope(phone_number_id: str, value: dict[str, Any]) -> dict[str, Any]:
    value = {"messaging_product": "whatsapp",
             "metadata": {"display_phone_number": "15550000000", "phone_number_id": phone_number_id}, **value}
    return {"object": "whatsapp_business_account",
            "entry": [{"id": "emulated-waba", "changes": [{"field": "messages", "value": value}]}]}


def signature(body: bytes, secret: str) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class Deliverer:
    def __init__(self, url: str, app_secret: str) -> None:
        self.url = url
        self._secret = app_secret
        self._session: ClientSession | None = None
        self._background: set[asyncio.Task] = set()
        self.log: list[dict[str, Any]] = []  # every attempt: what the webhook answered

    async def _http(self) -> ClientSession:
        if self._session is None:
            self._session = ClientSession(timeout=ClientTimeout(total=60))
        return self._session

    async def post(self, payload: dict[str, Any], *, signed: str = "good", retry: bool = True) -> int:
        """POST until answered 200 (or retries run out); the last status (0: unreachable).

        `signed`: "good", "bad" (another secret) or "none" (no header), for tests of the receiver."""
        body = json.dumps(payload).encode()
        headers = {"Content-Type": "application/json"}
        if signed != "none":
            headers["X-Hub-Signature-256"] = signature(body, self._secret if signed == "good" else "not-the-secret")
        status = 0
        for delay in (0.0, *(RETRY_DELAYS if retry else ())):
            await asyncio.sleep(delay)
            try:
                session = await self._http()
                async with session.post(self.url, data=body, headers=headers) as response:
                    status = response.status
            except (ClientError, asyncio.TimeoutError) as exc:
                log.info("webhook unreachable: %s", exc)
                status = 0
            self.log.append({"status": status, "signed": signed})
            if status == 200 or status in (401, 403):  # a refused signature does not get better by retrying
                break
        return status

    def post_later(self, payload: dict[str, Any]) -> None:
        task = asyncio.create_task(self.post(payload))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def close(self) -> None:
        for task in list(self._background):
            task.cancel()
        if self._session is not None:
            await self._session.close()
