"""The few Graph API calls Deputy makes (WhatsApp Cloud API), over httpx.

The base URL is configurable (``DEPUTY_WHATSAPP_API_BASE``), so tests and ``deputy run``
talk to the local emulator. The access token travels in the Authorization header only;
errors carry Meta's code and title, never the token or the request.
"""

from __future__ import annotations

from typing import Any

import httpx

REENGAGEMENT_REQUIRED = 131047
"""Meta's error code for a free-form message outside the 24-hour window."""
_THROTTLED = {4, 80007, 130429, 131048, 131056, 133016}
"""Meta's codes for rate limits (app, account, throughput, spam, pair, registration): try again later."""


class GraphError(Exception):
    def __init__(self, status: int, code: int | None, title: str) -> None:
        super().__init__(f"WhatsApp refused the request ({status}, code {code}): {title}")
        self.status = status
        self.code = code
        self.title = title

    @property
    def retryable(self) -> bool:
        """Meta's side or a rate limit: the same request may succeed later."""
        return self.status >= 500 or self.status == 429 or self.code in _THROTTLED


class GraphClient:
    def __init__(self, http: httpx.AsyncClient, api_base: str, phone_number_id: str, token: str) -> None:
        self._http = http
        self._base = api_base.rstrip("/")
        self._phone = phone_number_id
        self._auth = {"Authorization": f"Bearer {token}"}

    async def send(self, payload: dict[str, Any]) -> str:
        """Send one message; its wamid."""
        body = await self._json(await self._http.post(f"{self._base}/{self._phone}/messages", json=payload,
                                                      headers=self._auth))
        return str(body["messages"][0]["id"])

    async def upload(self, data: bytes, mime: str, filename: str) -> str:
        """Upload media for sending; its media id."""
        response = await self._http.post(
            f"{self._base}/{self._phone}/media", headers=self._auth,
            data={"messaging_product": "whatsapp", "type": mime}, files={"file": (filename, data, mime)})
        return str((await self._json(response))["id"])

    async def download(self, media_id: str) -> bytes:
        """A received file: its URL first (GET /{media-id}), then the bytes from it."""
        info = await self._json(await self._http.get(f"{self._base}/{media_id}", headers=self._auth))
        response = await self._http.get(str(info["url"]), headers=self._auth)
        if response.status_code != 200:
            raise GraphError(response.status_code, None, "the file could not be downloaded")
        return response.content

    async def aclose(self) -> None:
        await self._http.aclose()

    @staticmethod
    async def _json(response: httpx.Response) -> dict[str, Any]:
        try:
            body = response.json()
        except ValueError:
            body = {}
        if response.status_code >= 400 or "error" in body:
            error = body.get("error") or {}
            raise GraphError(response.status_code, error.get("code"), str(error.get("message") or "unknown error"))
        return body
