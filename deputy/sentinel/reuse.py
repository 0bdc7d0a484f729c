"""What the guard worked out about one action, kept for the next question about the same action.

The executor asks `requested_by_user` (for the user's rules) and then `review` about the same
action in the same context; both trace its values and look for text copied from outside
content. `derived` hands both the same place to keep that work: the second call reuses the
first's when it is about the very same objects (held here, so their ids stay theirs) and they
still hold the same values; any other action or context starts afresh. One slot, so nothing
outlives the next decision.
"""

from __future__ import annotations

from typing import Any

from deputy.core.records.actions import Action
from deputy.sentinel.provenance import ProvenanceContext

_last: tuple[Action, ProvenanceContext, tuple, dict[str, Any]] | None = None


def derived(action: Action, provenance: ProvenanceContext) -> dict[str, Any]:
    """The work kept about `action` in `provenance`: empty unless the previous call was about the same ones."""
    global _last
    last = _last
    if last is not None and last[0] is action and last[1] is provenance and last[2] == _state(action, provenance):
        return last[3]
    kept: dict[str, Any] = {}
    _last = (action, provenance, _state(action, provenance), kept)
    return kept


def _state(action: Action, provenance: ProvenanceContext) -> tuple:
    """What would change the work if it changed in place: whom and what the action reaches, its arguments
    (each top-level value, by identity and size), and how much the context holds."""
    arguments = tuple((k, id(v), len(v) if isinstance(v, (str, list, dict)) else v) for k, v in action.arguments.items())
    return (action.effect, tuple(action.tags), tuple(action.targets), action.amount, arguments,
            len(provenance.untrusted), len(provenance.user_words), len(provenance.trusted_texts),
            len(provenance.contacts))
