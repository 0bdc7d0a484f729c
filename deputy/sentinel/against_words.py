"""Everything the guard compares between an action and the user's own words, in one list of reasons.

Dates and times (against what Deputy's time resolver read in the user's words), amounts,
and for a message, what the user asked it to say (`deputy.sentinel.asked_content`). Each reason
shows what the user said beside what the action does. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.sentinel.asked_content import body_of, content_mismatches
from deputy.sentinel.provenance import ProvenanceContext
from deputy.sentinel.said_values import SaidTime, amount_mismatch, time_mismatch


def against_words(action: Action, provenance: ProvenanceContext, said_times: Sequence[SaidTime]) -> list[str]:
    """Where the action differs from what the user said, one sentence each; empty when it does not."""
    if action.effect is EffectClass.read:
        return []
    reasons = [r for r in (time_mismatch(action.arguments, said_times),
                           amount_mismatch(action.amount, action.currency, provenance.user_words)) if r]
    if action.effect is EffectClass.communicate:
        read = [*provenance.trusted_texts, *(item.text for item in provenance.untrusted)]
        reasons += content_mismatches(body_of(action.arguments), provenance.user_words, read)
    return reasons


__all__ = ["against_words"]
