"""Where each value of an action came from, as the guard traces it: the user's words, outside
content (an email, a page, an invite) or text the model wrote.

Drawn from the guard's own pure tracing (`deputy.sentinel.provenance.trace_action` for
recipients, amounts and the values inside the payload; `deputy.sentinel.textflow.copied_passages`
for passages of free text copied from what was read). The executor runs it on its review's own
context and keeps the result with the review's audit entry, so the web view's diagram shows what
the guard saw then, whatever the goal read afterwards. Pure functions.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass, RiskTag
from deputy.sentinel.provenance import ProvenanceContext, Trust, trace_action, untrusted_sources
from deputy.sentinel.reuse import derived
from deputy.sentinel.textflow import copied_passages, string_fields


class Source(str, Enum):
    user = "user"  # the user's own words (the goal, answers), their contacts, settings or memory
    outside = "outside"  # content read from outside: untrusted
    model = "model"  # text the model wrote, found nowhere else


SOURCE_WORDS = {
    Source.user: "Your words",
    Source.outside: "Outside content (untrusted)",
    Source.model: "The model's own text",
}

_FIELD_WORDS = {"target": "recipient", "to": "recipient", "cc": "copy to", "bcc": "blind copy to",
                "amount": "amount", "body": "body", "text": "body", "message": "body", "subject": "subject"}


class Flow(BaseModel):
    """One value of the action and where it came from."""

    model_config = ConfigDict(frozen=True)

    field: str
    value: str
    source: Source
    origin: str
    """In words: "your words", "an email from sam@example.org", "written by the model"."""
    passage: str | None = None


def field_name(argument: str, kind: str = "") -> str:
    """The action field a guard argument path names, in plain words ("to.0" → "recipient")."""
    last = argument.rsplit(".", 1)[-1]
    if argument == "target" and kind in ("domain", "url"):
        return "site"
    if argument == "target" and kind == "name":
        return "merchant or target"
    return _FIELD_WORDS.get(last, last.replace("_", " "))


def _in(value: str, texts: list[str]) -> bool:
    needle = " ".join(value.lower().split())
    return bool(needle) and any(needle in " ".join(t.lower().split()) for t in texts)


def value_flows(action: Action, context: ProvenanceContext) -> list[Flow]:
    """Each traced value of `action` (recipients, amount, addresses, numbers) and each free-text
    field, with its source. A field copied from outside content shows the passage and whose it is."""
    flows: list[Flow] = []
    traced_values: set[str] = set()
    # The executor asks right after its review of the same action in the same context: where the review
    # worked out the same thing (the trace of an action that acts on no object; the copies in one that is
    # no message, whose copies are looked for in all outside content), its work is taken as it is.
    plain = action.effect is not EffectClass.account and not {RiskTag.delete, RiskTag.share} & set(action.tags)
    kept = derived(action, context) if plain else {}
    traced = kept.get("traced") or trace_action(action.targets, action.arguments, action.amount, context)
    for value in traced:
        traced_values.add(value.value.lower())
        field = field_name(value.argument, value.kind)
        if value.trust is Trust.tainted:
            flows.append(Flow(field=field, value=value.value, source=Source.outside, passage=value.passage,
                              origin=value.origins[0] if value.origins else "outside content"))
        elif value.trust is Trust.trusted:
            where = ("your words" if _in(value.value, context.user_words) else
                     "your contacts" if value.value.lower() in context.contacts else "your settings or memory")
            flows.append(Flow(field=field, value=value.value, source=Source.user, origin=where))
        else:
            flows.append(Flow(field=field, value=value.value, source=Source.model,
                              origin="written by the model; found nowhere you or anything read said it"))
    copies = kept.get("copied") if action.effect is not EffectClass.communicate else None
    if copies is None:
        copies = copied_passages(action.arguments, untrusted_sources(context), context.trusted_texts)
    copied = {c.argument: c for c in copies}
    for name, text in string_fields(action.arguments):
        if text.lower() in traced_values or not text.strip():
            continue
        field = field_name(name)
        if name in copied:
            copy = copied.pop(name)
            flows.append(Flow(field=field, value=text, source=Source.outside, origin=copy.origins[0],
                              passage=copy.passage))
        elif _in(text, context.user_words):
            flows.append(Flow(field=field, value=text, source=Source.user, origin="your words"))
        else:
            flows.append(Flow(field=field, value=text, source=Source.model, origin="written by the model"))
    return flows


__all__ = ["Flow", "SOURCE_WORDS", "Source", "field_name", "value_flows"]
