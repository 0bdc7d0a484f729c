"""An account change that brings someone the user named into a place the user named: an invitation.

"add bob to the general channel", "put dora in #general", "invite ana to the design channel",
"read #general … then add bob to it": the user asks that someone join a channel, a group, a
team. Through an imported operation marked as an account change, with its arguments naming
whom and where (`deputy.connectors.marks`), that is the same act as inviting someone the user
named to an event or sharing a file with them, which go without a card by default. So it goes
without one too when:
- the operation's name says it brings someone in (add, invite, join, member), not that it
  grants a role or removes anyone (admin, owner, role, permission, remove, kick, ...);
- every value in it traces to the user (an id or a name first read in outside content, or
  found nowhere, has already made the guard ask);
- each of its targets is the person brought in or the place, in one phrase of the user's own
  words that asks for it (`deputy.sentinel.intent.placements`).
Every other account change (a password, a profile, a role, removing someone) asks by default,
as before, and a rule "always ask before account changes" still makes a card. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deputy.core.records.effects import EffectClass
from deputy.core.records.actions import Action
from deputy.sentinel.intent import placements
from deputy.sentinel.provenance import TracedValue, Trust

_JOINS = re.compile(r"add|invite|join|member|include|welcome|bring", re.IGNORECASE)
_GRANTS = re.compile(r"admin|owner|role|permission|privilege|password|credential|recovery|remove|kick|ban|delete|"
                     r"transfer|promote|grant|leave|archive", re.IGNORECASE)


def joined_by_user(action: Action, traced: list[TracedValue], user_words: Sequence[str]) -> str | None:
    """Why an account change only brings in someone the user named, where the user said; None if it does not."""
    if action.effect is not EffectClass.account or action.tags or action.amount is not None or not action.targets:
        return None
    if not _JOINS.search(action.operation) or _GRANTS.search(action.operation):
        return None
    if not traced or any(v.trust is not Trust.trusted for v in traced):
        return None
    phrases = placements(tuple(user_words))
    if not all(any(_in(target, p.who) or _in(target, p.place) for p in phrases) for target in action.targets):
        return None
    whom = [t for t in action.targets if any(_in(t, p.who) for p in phrases)]
    if not whom:
        return None  # nobody the user named is brought in: a place alone is no invitation
    where = [t for t in action.targets if t not in whom]
    return (f"You asked me to add {', '.join(whom)}{' to ' + ', '.join(where) if where else ''} and named "
            f"{'both' if where else 'them'} yourself; no name or id in it comes from outside content.")


def _in(target: str, words: str) -> bool:
    value = target.strip().lstrip("#@").lower()
    return bool(value) and re.search(rf"(?<![\w.@-])[#@]?{re.escape(value)}(?![\w@-])", words, re.IGNORECASE) is not None
