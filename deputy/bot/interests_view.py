"""/interests: what Deputy may look out for, opt-in.

`/interests jazz, italian food` sets the interests; `/interests every weekly` (or daily) how often a
suggestion may come; `/interests max 2` the most suggestions a week; `/interests services tickets
restaurants` which connected services are watched; `/interests off` stops it all. Bare `/interests`
shows the choices. The suggestion round does the matching, by code and meaning, with no model call.
"""

from __future__ import annotations

import re

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import ContextTypes

from deputy.agent.suggestions.interests import MAX_INTERESTS, SERVICES, InterestPrefs, InterestStore
from deputy.bot.presses_common import PressAnswer
from deputy.bot.services import BotServices
from deputy.core.confidential import Locked
from deputy.memory.store import MemoryItem, MemoryKind, MemoryStore, MemoryTrust

_LIKED = re.compile(r"\b(?:loves?|likes?|enjoys?|(?:a |big )?fan of|(?:is |am |are )?into|favou?rite \w+ is)\s+"
                    r"(?P<what>[\w' -]{3,40}?)(?:[.,;!]|\band\b|$)", re.IGNORECASE)

USAGE = ("Tell me what to look out for: /interests jazz, italian food. Then, if you like: /interests every weekly "
         "(or daily), /interests max 2 (suggestions a week), /interests services tickets restaurants, "
         "or /interests off.")


def apply_interests(prefs: InterestPrefs, words: str) -> InterestPrefs | str:
    """The preferences after the user's words, or a polite sentence saying what to write instead."""
    text = " ".join(words.split())
    head, _, rest = text.partition(" ")
    head = head.lower()
    if head == "off":
        return prefs.model_copy(update={"interests": []})
    if head == "every":
        if rest.lower() not in ("daily", "weekly"):
            return "Say /interests every daily or /interests every weekly."
        return prefs.model_copy(update={"every": rest.lower()})
    if head == "max":
        if not rest.isdigit() or not 0 <= int(rest) <= 20:
            return "Say how many suggestions a week, from 0 to 20, e.g. /interests max 2."
        return prefs.model_copy(update={"per_week": int(rest)})
    if head == "services":
        chosen = [s for s in rest.lower().replace(",", " ").split() if s]
        unknown = [s for s in chosen if s not in SERVICES]
        if not chosen or unknown:
            return f"I can watch {', '.join(SERVICES)}; say which, e.g. /interests services tickets restaurants."
        return prefs.model_copy(update={"services": chosen})
    interests = [i.strip() for i in text.split(",") if i.strip()]
    if len(interests) > MAX_INTERESTS or any(len(i) > 80 for i in interests):
        return f"Up to {MAX_INTERESTS} interests of a few words each, separated by commas."
    return prefs.model_copy(update={"interests": interests})


def describe(prefs: InterestPrefs) -> str:
    if not prefs.interests:
        return "I'm not looking out for anything for you. " + USAGE
    return (f"I look out for: {', '.join(prefs.interests)}.\nWatching: {', '.join(prefs.services)}; at most "
            f"one suggestion {'a day' if prefs.every == 'daily' else 'a week'}, {prefs.per_week} a week at most. "
            "Quiet hours apply. /interests off stops it.")


def proposed(item: MemoryItem) -> str | None:
    """The interest a memory names ("The user loves jazz" -> "jazz"): the user's own preferences only."""
    if item.kind is not MemoryKind.preference or item.trust is MemoryTrust.pending:
        return None
    found = _LIKED.search(item.text)
    return " ".join(found["what"].split()).strip(" '") if found else None


def proposals(services: BotServices, user_id: int, prefs: InterestPrefs) -> list[tuple[str, str]]:
    """(memory id, interest) for what the user's memories say they like and is not an interest yet."""
    try:
        items = MemoryStore(services.redis).list(user_id)
    except Locked:
        return []
    have = {i.lower() for i in prefs.interests}
    found = [(item.id, what) for item in items if (what := proposed(item)) and what.lower() not in have]
    return found[:5]


def press_interest_from_memory(services: BotServices, memory_id: str, user_id: int) -> PressAnswer:
    """The "Add" button under a proposal: the interest joins the user's, opted in."""
    item = MemoryStore(services.redis).get(user_id, memory_id)
    what = proposed(item) if item is not None else None
    if what is None:
        return PressAnswer("That memory is gone.", gone=True)
    store = InterestStore(services.redis)
    prefs = store.get(user_id)
    if what.lower() not in {i.lower() for i in prefs.interests} and len(prefs.interests) < MAX_INTERESTS:
        prefs = prefs.model_copy(update={"interests": [*prefs.interests, what], "chat_id": prefs.chat_id or user_id})
        store.save(user_id, prefs)
    return PressAnswer("Added.", f"✅ I'll look out for “{what}”.", only_this_button=True)


class InterestHandlers:
    def __init__(self, services: BotServices) -> None:
        self._s = services

    async def interests(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        store = InterestStore(self._s.redis)
        user_id = update.effective_user.id
        prefs = store.get(user_id)
        words = " ".join(context.args or [])
        if words:
            changed = apply_interests(prefs, words)
            if isinstance(changed, str):
                await update.effective_message.reply_text(changed)
                return
            prefs = changed.model_copy(update={"chat_id": update.effective_chat.id})
            store.save(user_id, prefs)
        offered = proposals(self._s, user_id, prefs) if not words else []
        if not offered:
            await update.effective_message.reply_text(describe(prefs))
            return
        sign = self._s.buttons.data
        await update.effective_message.reply_text(
            describe(prefs) + "\n\nFrom what you told me, I could also look out for these:",
            reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton(f"Add: {what}", callback_data=sign("xa", mid, user_id))]
                                               for mid, what in offered]))
