"""Long texts in parts: chat apps cap a message's length (Telegram 4,096 characters, WhatsApp 4,096)."""

from __future__ import annotations


def split_text(text: str, limit: int) -> list[str]:
    """Parts of at most `limit` characters, cut at line breaks where that keeps parts long."""
    parts: list[str] = []
    while len(text) > limit:
        cut = text.rfind("\n", 0, limit)
        cut = cut if cut > limit // 2 else limit
        parts.append(text[:cut])
        text = text[cut:].lstrip("\n")
    parts.append(text)
    return parts
