"""Telegram-shaped messages (text plus inline keyboard) as WhatsApp Cloud API messages. Pure.

WhatsApp's rules: a text message holds at most 4096 characters; an interactive message's
body at most 1024 (reply buttons) or 4096 (list); at most 3 reply buttons with titles of at
most 20 characters; a list holds at most 10 rows with titles of at most 24 characters.
The first choices that fit go out as reply buttons under the text; the rest (a fourth
button, a longer title) follow as list messages of up to 10 rows each. A button's id is its Telegram callback data, unchanged.
"""

from __future__ import annotations

from typing import Any

from deputy.core.records.text_parts import split_text as text_parts

MAX_TEXT = 4096
MAX_BUTTON_BODY = 1024
MAX_LIST_BODY = 4096
MAX_BUTTONS = 3
MAX_BUTTON_TITLE = 20
MAX_ROWS = 10
MAX_ROW_TITLE = 24
MAX_ROW_DESCRIPTION = 72
MAX_TEMPLATE_PARAMETER = 1024
LIST_LABEL = "Choose"

Payload = dict[str, Any]
Choice = tuple[str, str]  # (title, id)


def split_text(text: str, limit: int = MAX_TEXT) -> list[str]:
    """Parts of at most WhatsApp's length, cut at line breaks where that keeps parts long."""
    return text_parts(text, limit)


def choices(reply_markup: dict[str, Any] | None) -> list[Choice]:
    """The callback buttons of a Telegram inline keyboard, row by row (URL buttons carry their link)."""
    found: list[Choice] = []
    for row in (reply_markup or {}).get("inline_keyboard") or []:
        for button in row:
            if button.get("callback_data"):
                found.append((str(button.get("text") or "?"), str(button["callback_data"])))
    return found


def links(reply_markup: dict[str, Any] | None) -> list[str]:
    """URL buttons have no WhatsApp equivalent: their links go into the text."""
    return [f"{b.get('text')}: {b['url']}" for row in (reply_markup or {}).get("inline_keyboard") or []
            for b in row if b.get("url")]


def address(to: str) -> Payload:
    """Whom a message goes to: a phone number (`to`), or the business-scoped user id (`recipient`)
    of a user with a username whose number WhatsApp withholds (``US.1349…``: not all digits)."""
    return {"to": to} if to.isdigit() else {"recipient": to}


def text_message(to: str, text: str) -> Payload:
    return {"messaging_product": "whatsapp", "recipient_type": "individual", **address(to), "type": "text",
            "text": {"body": text, "preview_url": False}}


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def button_message(to: str, body: str, buttons: list[Choice]) -> Payload:
    return {"messaging_product": "whatsapp", "recipient_type": "individual", **address(to), "type": "interactive",
            "interactive": {"type": "button", "body": {"text": body}, "action": {"buttons": [
                {"type": "reply", "reply": {"id": ident, "title": _shorten(title, MAX_BUTTON_TITLE)}}
                for title, ident in buttons]}}}


def list_message(to: str, body: str, rows: list[Choice], label: str = LIST_LABEL) -> Payload:
    def row(title: str, ident: str) -> dict[str, str]:
        out = {"id": ident, "title": _shorten(title, MAX_ROW_TITLE)}
        if len(title) > MAX_ROW_TITLE:
            out["description"] = _shorten(title, MAX_ROW_DESCRIPTION)
        return out

    return {"messaging_product": "whatsapp", "recipient_type": "individual", **address(to), "type": "interactive",
            "interactive": {"type": "list", "body": {"text": body}, "action": {
                "button": label, "sections": [{"title": label, "rows": [row(t, i) for t, i in rows]}]}}}


def _tail_split(text: str, limit: int) -> tuple[list[str], str]:
    """Plain parts first and a last part of at most `limit` characters (the interactive body)."""
    if len(text) <= limit:
        return [], text
    cut = text.rfind("\n", len(text) - limit, len(text))
    cut = cut + 1 if cut != -1 else len(text) - limit
    head, tail = text[:cut].rstrip("\n"), text[cut:]
    return (split_text(head) if head else []), tail


def plan(to: str, text: str, reply_markup: dict[str, Any] | None = None) -> list[Payload]:
    """The WhatsApp messages that carry one Telegram message: text parts, then the buttons."""
    extra = links(reply_markup)
    if extra:
        text = "\n\n".join([text, *extra]) if text else "\n".join(extra)
    buttons = choices(reply_markup)
    text = text or "…"  # WhatsApp refuses an empty body
    if not buttons:
        return [text_message(to, part) for part in split_text(text)]
    # Reply buttons for the first choices that fit them (Approve, Deny...), a list for the rest.
    primary: list[Choice] = []
    for choice in buttons:
        if len(primary) == MAX_BUTTONS or len(choice[0]) > MAX_BUTTON_TITLE:
            break
        primary.append(choice)
    rest = buttons[len(primary):]
    head, body = _tail_split(text, MAX_BUTTON_BODY if primary else MAX_LIST_BODY)
    messages = [text_message(to, part) for part in head]
    if primary:
        messages.append(button_message(to, body, primary))
    pages = [rest[i:i + MAX_ROWS] for i in range(0, len(rest), MAX_ROWS)]
    for number, rows in enumerate(pages, 1):
        if number == 1 and not primary:
            page_body = body
        else:
            page_body = "More choices" + (f" ({number}/{len(pages)})" if len(pages) > 1 else "")
        messages.append(list_message(to, page_body, rows))
    return messages


def template_parameter(text: str) -> str:
    """`text` as a template parameter WhatsApp accepts (else error 132018): no line breaks or tabs,
    no run of more than four spaces; lines are joined with " · " so a list still reads as one."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    flat = " · ".join(line for line in lines if line)
    return _cut_keeping_end(flat or "…")


def template_message(to: str, name: str, language: str, text: str) -> Payload:
    """An approved template whose one body parameter carries `text` (for outside the 24-hour window)."""
    return {"messaging_product": "whatsapp", "recipient_type": "individual", **address(to), "type": "template",
            "template": {"name": name, "language": {"code": language}, "components": [
                {"type": "body", "parameters": [{"type": "text", "text": template_parameter(text)}]}]}}


def _cut_keeping_end(text: str, limit: int = MAX_TEMPLATE_PARAMETER) -> str:
    """At most `limit` characters; a cut text keeps its last sentence (the note on how to read the rest)."""
    if len(text) <= limit:
        return text
    head, _, tail = text.rpartition(" · ")
    tail = tail if head and len(tail) < limit // 4 else ""
    room = limit - len(tail) - (4 if tail else 1)
    return f"{text[:room]}…" + (f" · {tail}" if tail else "")


def media_message(to: str, kind: str, media_id: str, caption: str = "", filename: str | None = None) -> Payload:
    media: dict[str, Any] = {"id": media_id}
    if caption:
        media["caption"] = _shorten(caption, MAX_BUTTON_BODY)
    if filename and kind == "document":
        media["filename"] = filename
    return {"messaging_product": "whatsapp", "recipient_type": "individual", **address(to), "type": kind, kind: media}


def command_menu(to: str, commands: list[tuple[str, str]], intro: str) -> list[Payload]:
    """The commands as list messages (WhatsApp has no slash menu); a row types its command."""
    rows = [(f"/{name}", f"cmd:/{name}", description) for name, description in commands]
    pages = [rows[i:i + MAX_ROWS] for i in range(0, len(rows), MAX_ROWS)]
    out: list[Payload] = []
    for number, page in enumerate(pages, 1):
        body = intro if number == 1 else f"More commands ({number}/{len(pages)})"
        message = list_message(to, body, [], label="Commands")
        message["interactive"]["action"]["sections"][0]["rows"] = [
            {"id": ident, "title": _shorten(title, MAX_ROW_TITLE), "description": _shorten(desc, MAX_ROW_DESCRIPTION)}
            for title, ident, desc in page]
        out.append(message)
    return out
