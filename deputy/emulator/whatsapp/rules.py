"""What the Cloud API refuses: the limits of interactive messages, unknown templates. Pure."""

from __future__ import annotations

from typing import Any


class Refused(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check(payload: dict[str, Any], templates: set[str]) -> None:
    """Raise `Refused` as WhatsApp would for a message it does not accept."""
    kind = payload.get("type", "text")
    if payload.get("messaging_product") != "whatsapp":
        raise Refused(100, "messaging_product must be whatsapp")
    if kind == "text":
        body = (payload.get("text") or {}).get("body") or ""
        if not body or len(body) > 4096:
            raise Refused(100, "text.body must have 1 to 4096 characters")
    elif kind == "interactive":
        _interactive(payload.get("interactive") or {})
    elif kind == "template":
        name = (payload.get("template") or {}).get("name")
        if name not in templates:
            raise Refused(132001, f"Template name does not exist in the translation: {name}")
    elif kind in ("image", "document"):
        if not (payload.get(kind) or {}).get("id"):
            raise Refused(100, f"{kind}.id is required")
    else:
        raise Refused(100, f"unsupported message type {kind}")


def _interactive(interactive: dict[str, Any]) -> None:
    body = (interactive.get("body") or {}).get("text") or ""
    action = interactive.get("action") or {}
    if interactive.get("type") == "button":
        buttons = action.get("buttons") or []
        if not 1 <= len(buttons) <= 3:
            raise Refused(131009, "reply buttons: between 1 and 3")
        if not body or len(body) > 1024:
            raise Refused(131009, "body of a button message: 1 to 1024 characters")
        for button in buttons:
            reply = button.get("reply") or {}
            if not 1 <= len(reply.get("title") or "") <= 20 or not 1 <= len(reply.get("id") or "") <= 256:
                raise Refused(131009, "button title must have 1 to 20 characters, id 1 to 256")
    elif interactive.get("type") == "list":
        rows = [row for section in action.get("sections") or [] for row in section.get("rows") or []]
        if not 1 <= len(rows) <= 10:
            raise Refused(131009, "list: between 1 and 10 rows")
        if not body or len(body) > 4096 or not 1 <= len(action.get("button") or "") <= 20:
            raise Refused(131009, "list body 1 to 4096 characters, button label 1 to 20")
        for row in rows:
            if not 1 <= len(row.get("title") or "") <= 24 or len(row.get("description") or "") > 72:
                raise Refused(131009, "row title 1 to 24 characters, description at most 72")
    else:
        raise Refused(131009, "unsupported interactive type")
