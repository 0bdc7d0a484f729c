"""A probe as the model asked for it, checked against the catalog: only a read, with arguments that fit."""

from __future__ import annotations

from deputy.agent.probes import Probe, ProbeArgs, deadline_of
from deputy.core.records.effects import EffectClass
from deputy.connectors.catalog import Catalog, InvalidArguments


def validate_probe(args: ProbeArgs, catalog: Catalog, zone: str) -> Probe | str:
    """The validated probe, or the error the model reads. A bare deadline is wall time in `zone`."""
    operation = catalog.get(args.tool)
    if operation is None:
        return (f"Error: there is no tool named {args.tool!r} for the probe. A probe is one of your read tools, "
                "such as search_email.")
    if operation.spec.effect is not EffectClass.read:
        return (f"Error: {args.tool} {_effect_words(operation.spec.effect)}, so it can't be a probe: a probe runs "
                "unattended at every check and may only read.")
    try:
        validated = operation.validate(args.arguments)
    except InvalidArguments as exc:
        return f"Error: the probe's arguments don't fit {args.tool}: {exc}"
    return Probe(connector=operation.spec.connector, operation=operation.spec.operation,
                 arguments=validated.model_dump(mode="json"), compare=args.compare, field=args.field,
                 below=args.below, above=args.above, key=args.key,
                 remind_by=deadline_of(args.remind_if_none_by, zone) if args.remind_if_none_by else None,
                 remind_each_check=args.remind_each_check, reminder=args.reminder, if_found=args.if_found)


def _effect_words(effect: EffectClass) -> str:
    return {
        EffectClass.write: "changes things",
        EffectClass.communicate: "sends something to other people",
        EffectClass.spend: "spends money",
        EffectClass.credential: "uses secrets",
        EffectClass.account: "changes an account",
    }.get(effect, "is not a read")
