"""Bot API request parameters from a query string, form, multipart or JSON body.

Telegram accepts all four, and python-telegram-bot sends form fields whose nested
objects (``reply_markup``, ``allowed_updates``...) are JSON strings, so every accessor
coerces strings to the type the method needs.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web

from deputy.emulator.errors import bad_request

if TYPE_CHECKING:
    from deputy.emulator.hub import Emulator

_MISSING = object()


@dataclass(frozen=True)
class UploadedFile:
    """A file part of a multipart request."""

    filename: str
    content: bytes = field(repr=False)
    content_type: str


@dataclass
class Params:
    """The parameters of one Bot API call."""

    values: dict[str, Any] = field(default_factory=dict)
    files: dict[str, UploadedFile] = field(default_factory=dict)

    @classmethod
    async def from_request(cls, request: web.Request) -> Params:
        """Read query string and body (JSON, urlencoded or multipart)."""
        values: dict[str, Any] = dict(request.query)
        files: dict[str, UploadedFile] = {}
        if request.method == "POST" and request.can_read_body:
            if request.content_type == "application/json":
                try:
                    body = await request.json()
                except ValueError:
                    raise bad_request("can't parse JSON object") from None
                if not isinstance(body, dict):
                    raise bad_request("can't parse JSON object")
                values.update(body)
            else:
                form = await request.post()
                for name, value in form.items():
                    if isinstance(value, web.FileField):
                        files[name] = UploadedFile(
                            value.filename or name, value.file.read(), value.content_type
                        )
                    else:
                        values[name] = value
        return cls(values, files)

    def has(self, name: str) -> bool:
        """Whether the parameter was given (and is not null)."""
        return self.values.get(name) is not None or name in self.files

    def text(self, name: str) -> str | None:
        """A string parameter (numbers are accepted and stringified)."""
        value = self.values.get(name)
        if value is None or isinstance(value, str):
            return value
        if isinstance(value, (dict, list)):
            return json.dumps(value)
        return str(value).lower() if isinstance(value, bool) else str(value)

    def integer(self, name: str, *, error: str | None = None) -> int | None:
        """An integer parameter; unparsable values raise ``Bad Request: <error>``."""
        value = self.values.get(name)
        if value is None or value == "":
            return None
        try:
            if isinstance(value, bool):
                raise ValueError(value)
            return int(value)
        except (TypeError, ValueError):
            raise bad_request(error or f"invalid {name} specified") from None

    def number(self, name: str) -> float | None:
        """A number parameter (e.g. getUpdates' ``timeout``); junk counts as missing."""
        value = self.values.get(name)
        try:
            return None if value is None or isinstance(value, bool) else float(value)
        except (TypeError, ValueError):
            return None

    def flag(self, name: str) -> bool:
        """A boolean flag; Telegram accepts true/false, 1/0 and JSON booleans."""
        value = self.values.get(name)
        if isinstance(value, str):
            return value.strip().lower() in ("true", "1", "yes", "on")
        return bool(value)

    def json_value(self, name: str, *, error: str) -> Any:
        """A JSON-valued parameter, given as an object or as a JSON string."""
        value = self.values.get(name)
        if not isinstance(value, str):
            return value
        if not value.strip():
            return None
        try:
            return json.loads(value)
        except ValueError:
            raise bad_request(error) from None

    def file(self, name: str) -> UploadedFile | str | None:
        """An input file: a multipart part (also via ``attach://name``) or a string
        (file_id or URL)."""
        if name in self.files:
            return self.files[name]
        value = self.text(name)
        if value is not None and value.startswith("attach://"):
            return self.files.get(value.removeprefix("attach://"))
        return value


MethodHandler = Callable[["Emulator", Params], Awaitable[Any]]


class MethodTable(dict[str, MethodHandler]):
    """Bot API methods by lower-cased name (Telegram method names are case-insensitive)."""

    def register(self, *names: str) -> Callable[[MethodHandler], MethodHandler]:
        """Decorator adding a handler under one or more method names."""

        def decorate(handler: MethodHandler) -> MethodHandler:
            for name in names:
                self[name.lower()] = handler
            return handler

        return decorate
