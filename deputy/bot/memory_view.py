"""/memory: everything Deputy remembers, where it came from, with buttons to change it."""

from __future__ import annotations

from datetime import datetime, timezone

from deputy.bot.presses_common import PressAnswer
from deputy.bot.services import BotServices
from deputy.core.records.undo_store import UndoRefused
from deputy.memory import CORRECTED, MemoryItem, MemoryStore, MemoryTrust
from deputy.memory.undo import undo

_EDITING = "deputy:user:{}:editing_memory"
_TITLES = {"preference": "Preferences", "fact": "Facts", "person": "People"}


def memory_listing(items: list[MemoryItem]) -> str:
    if not items:
        return ("I don't remember anything about you yet. Tell me things like “remember I'm vegetarian” "
                "and I'll use them in later goals.")
    lines: list[str] = ["What I remember (tap a number to forget it):"]
    number = 0
    for kind, title in _TITLES.items():
        group = [i for i in items if i.kind.value == kind]
        if group:
            lines.append(f"\n{title}:")
        for item in group:
            number += 1
            when = datetime.fromtimestamp(item.created_at, tz=timezone.utc).strftime("%d %b %Y")
            flag = " ⏳ waiting for your OK" if item.trust is MemoryTrust.pending else ""
            lines.append(f"{number}. {item.text} ({item.source}, {when}){flag}")
    return "\n".join(lines)


def ordered(items: list[MemoryItem]) -> list[MemoryItem]:
    return [i for kind in _TITLES for i in items if i.kind.value == kind]


def press_memory(services: BotServices, kind: str, item_id: str, user_id: int) -> PressAnswer:
    if kind == "mu":
        return _undo_change(services, item_id, user_id)
    store = MemoryStore(services.redis)
    item = store.get(user_id, item_id)
    if item is None:
        return PressAnswer("That memory is already gone.")
    now = services.clock()
    if kind == "me":
        services.redis.set(_EDITING.format(user_id), item_id, ex=600)
        return PressAnswer(f"Send me the corrected version of “{item.text}” as your next message.")
    if kind == "ma":
        if item.trust is not MemoryTrust.pending:
            return PressAnswer("Already decided.")
        store.save(user_id, item.model_copy(update={"trust": MemoryTrust.accepted, "updated_at": now}))
        services.audit.append(user_id, "memory_accepted", now, memory_id=item.id, text=item.text)
        return PressAnswer("I'll remember it.", f"✅ Remembered: “{item.text}” (marked as coming from {item.source}).")
    store.forget(user_id, item_id)
    services.audit.append(user_id, "memory_forgotten", now, memory_id=item.id, text=item.text)
    if kind == "md":
        return PressAnswer("Discarded.", "❌ Discarded; I won't remember it.")
    return PressAnswer(f"Forgotten: {item.text}", f"🗑 Forgot “{item.text}”.")


def _undo_change(services: BotServices, undo_id: str, user_id: int) -> PressAnswer:
    """Undo on "📝 Remembered" or "🗑 Forgot": the change is taken back here, once (only the presser's own)."""
    try:
        said = undo(services.redis, user_id, undo_id, services.clock())
    except UndoRefused as refused:
        return PressAnswer(str(refused), alert=True)
    services.audit.append(user_id, "memory_change_undone", services.clock(), undo_id=undo_id, content=said)
    # One answer may tell of several changes, each with its own Undo: the others stay usable.
    return PressAnswer(said, f"↩️ Undone: {said}", only_this_button=True)


def editing_memory_key(user_id: int) -> str:
    """Holds the memory the user pressed Edit on, whose new text is their next message."""
    return _EDITING.format(user_id)


def apply_memory_edit(services: BotServices, user_id: int, item_id: str, text: str) -> MemoryItem | None:
    """`text` is the new wording of the memory `item_id` (None if that memory is gone meanwhile)."""
    store = MemoryStore(services.redis)
    item = store.get(user_id, item_id)
    if item is None:
        return None
    # The user wrote it: whatever its origin, it is now the user's own word.
    updated = item.model_copy(update={"text": text[:500], "trust": MemoryTrust.user, "source": CORRECTED,
                                      "said": [text[:500]], "updated_at": services.clock()})
    store.save(user_id, updated)
    services.audit.append(user_id, "memory_edited", services.clock(), memory_id=item.id, text=updated.text)
    return updated
