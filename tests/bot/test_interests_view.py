"""/interests: the user's words become their choices, and bad input gets a polite sentence and changes nothing."""

from __future__ import annotations

from deputy.agent.suggestions.interests import InterestPrefs
from deputy.bot.interests_view import apply_interests, proposed
from deputy.memory.store import MemoryItem, MemoryKind, MemoryTrust


def test_interests_how_often_the_cap_and_services_are_set_from_the_users_words() -> None:
    prefs = apply_interests(InterestPrefs(), "jazz,  italian food ")
    assert prefs.interests == ["jazz", "italian food"]
    assert apply_interests(prefs, "every weekly").every == "weekly"
    assert apply_interests(prefs, "max 1").per_week == 1
    assert apply_interests(prefs, "services tickets, restaurants").services == ["tickets", "restaurants"]
    assert apply_interests(prefs, "off").interests == []


def test_bad_input_is_a_polite_sentence() -> None:
    prefs = InterestPrefs(interests=["jazz"])
    assert apply_interests(prefs, "max lots") == "Say how many suggestions a week, from 0 to 20, e.g. /interests max 2."
    assert apply_interests(prefs, "every hour").startswith("Say /interests every daily")
    assert apply_interests(prefs, "services concerts").startswith("I can watch tickets, restaurants")
    assert isinstance(apply_interests(prefs, ", ".join(f"thing {n}" for n in range(30))), str)


def test_only_the_users_own_preferences_are_proposed() -> None:
    def item(text: str, kind: MemoryKind = MemoryKind.preference, trust: MemoryTrust = MemoryTrust.user) -> MemoryItem:
        return MemoryItem(text=text, kind=kind, trust=trust, created_at=0, updated_at=0)

    assert proposed(item("The user loves live jazz.")) == "live jazz"
    assert proposed(item("Is a big fan of Italian food and wine")) == "Italian food"
    assert proposed(item("The user loves jazz.", trust=MemoryTrust.pending)) is None, "outside content is not theirs"
    assert proposed(item("Lives at 12 Elm St", kind=MemoryKind.fact)) is None
