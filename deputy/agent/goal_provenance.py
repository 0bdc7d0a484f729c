"""Where a goal's values came from, as the guard will see it, and the values the model made up.

The guard reports a value "that came from nowhere" (`Trust.unverified`: not in the user's
words, settings, memory or contacts, nor in anything the goal read) and never lets it pass
unasked. The agent uses the same pure tracing (`deputy.sentinel.provenance`) on the same inputs
(assembled here, for the executor's review too) before it submits an action: a recipient,
phone number, account or amount that was invented becomes a question to the user instead of
an approval card for a guess.
"""

from __future__ import annotations

from collections.abc import Iterable

from redis import Redis

from deputy.agent.goals import Goal, GoalStore
from deputy.agent.guard_view import GuardView, guard_view
from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.core.records.erasure import Owned, delete_keys
from deputy.memory import MemoryItem, MemoryStore, MemoryTrust
from deputy.core.confidential import Locked, confidential_keys
from deputy.core.confidential.keys import Opener
from deputy.core.confidential.sealing import is_sealed
from deputy.sentinel.provenance import ProvenanceContext, TracedValue, Trust, UntrustedItem, trace_action

_CONTACTS = "deputy:contacts:{}"
_ASKED_KINDS = ("email", "phone", "account")
"""Targets worth a question when invented; an amount is asked about wherever it is."""


def contacts(redis: Redis, user_id: int) -> list[str]:
    """The user's contacts (lower-case addresses), sorted; `Locked` while a confidential user is locked."""
    return contacts_from(redis.smembers(_CONTACTS.format(user_id)), confidential_keys(redis).opener(user_id))


def contacts_key(user_id: int) -> str:
    """The set of the user's contacts (for a reader fetching it with other keys)."""
    return _CONTACTS.format(user_id)


def contacts_from(members: Iterable[bytes], opener: Opener) -> list[str]:
    """The contacts in the members of the set at `contacts_key`, as `contacts` gives them."""
    return sorted({opener(c).decode() for c in members})


def add_contact(redis: Redis, user_id: int, address: str) -> None:
    """Remember an address; a confidential user's are sealed (each sealing differs, so a known one is
    not added again when it can be checked)."""
    address, keys = address.strip().lower(), confidential_keys(redis)
    if keys.public_key(user_id) is None:
        redis.sadd(_CONTACTS.format(user_id), address)
        return
    try:
        if address in contacts(redis, user_id):
            return
    except Locked:
        pass
    redis.sadd(_CONTACTS.format(user_id), keys.seal_text(user_id, address))


def reseal_contacts(redis: Redis, user_id: int) -> int:
    """Seal the user's contacts kept in clear (confidential mode was just turned on); returns how many."""
    clear = [c for c in redis.smembers(_CONTACTS.format(user_id)) if not is_sealed(c)]
    for address in clear:
        redis.srem(_CONTACTS.format(user_id), address)
        add_contact(redis, user_id, address.decode())
    return len(clear)


def erase_user_contacts(redis: Redis, owned: Owned) -> int:
    return delete_keys(redis, (_CONTACTS.format(owned.user_id),))


def provenance_context(
    redis: Redis, goals: GoalStore, goal: Goal | None, user_id: int, services: list[str]
) -> ProvenanceContext:
    """The guard's view of where values may come from: the user's words (for this goal and in
    memory), the services they connected, their contacts, and the outside content read."""
    # Only what the user typed (never model text, files or a part's instructions), and what
    # the goal and the goals it was split from read from outside.
    return provenance_from(guard_view(goals, goal), MemoryStore(redis).list(user_id), contacts(redis, user_id),
                           services)


def provenance_from(seen: GuardView, memories: list[MemoryItem], known: list[str],
                    services: list[str]) -> ProvenanceContext:
    """`provenance_context` from what was read already: the goal's view, the user's memories and contacts."""
    remembered = [words for m in memories for words in m.user_words()]
    # A memory accepted from outside content is used, but its values stay untrusted.
    accepted = [UntrustedItem(origin=f"a memory you accepted ({m.source})", text=m.text, at=m.created_at)
                for m in memories if m.trust is MemoryTrust.accepted]
    return ProvenanceContext(
        trusted_texts=[*seen.user_words, *remembered, *services],
        user_words=seen.user_words,
        contacts=known,
        untrusted=[*seen.untrusted, *accepted],
    )


def invented_values(action: Action, context: ProvenanceContext) -> list[TracedValue]:
    """The recipients (addresses, phone numbers, accounts) and amounts of `action` that came from
    nowhere. Reads are never held up: reading something is not a reason to ask."""
    if action.effect is EffectClass.read:
        return []
    traced = trace_action(action.targets, action.arguments, action.amount, context)
    return [value for value in traced if value.trust is Trust.unverified
            and ((value.argument == "target" and value.kind in _ASKED_KINDS) or value.kind == "amount")]


def question_about(values: list[TracedValue]) -> str:
    """The question for the user: which values Deputy would not guess, and what it needs."""
    recipients = [v.value for v in values if v.kind != "amount"]
    amounts = [v.value for v in values if v.kind == "amount"]
    parts: list[str] = []
    if recipients:
        shown = ", ".join(recipients[:3])
        parts.append(f"Who should this go to? I found {shown} nowhere in what you told me, your contacts or what "
                     "I read for this goal, so I won't guess the address. Please send me the right one.")
    if amounts:
        parts.append(f"What amount should I use? You didn't give {', '.join(amounts[:3])} and I found it nowhere, "
                     "so I won't guess it.")
    return " ".join(parts)


__all__ = ["add_contact", "contacts", "contacts_from", "contacts_key", "invented_values", "provenance_context",
           "provenance_from", "question_about"]
