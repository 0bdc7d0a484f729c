"""A user's mark on an imported operation: the effect and risk tags the guard weighs, and the money it reads."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from deputy.core.records.effects import EffectClass, RiskTag
from deputy.connectors.marks import OperationMark, argument_paths, kind_of, less_guarded
from deputy.connectors.mcp.config import McpServerConfig
from deputy.connectors.mcp.operations import mcp_operations
from deputy.connectors.mcp.tools import build_toolset


class _Hints:
    def __init__(self, **hints: bool) -> None:
        for name in ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"):
            setattr(self, name, hints.get(name))


class _Tool:
    def __init__(self, name: str, schema: dict, **hints: bool) -> None:
        self.name, self.description, self.input_schema, self.annotations = name, f"{name} tool", schema, _Hints(**hints)


PAY_SCHEMA = {"type": "object", "properties": {
    "to": {"type": "string"}, "payment": {"type": "object", "properties": {
        "value": {"type": "number"}, "currency": {"type": "string"}}}}}


@pytest.mark.parametrize(("kind", "effect", "tags"), [
    ("read", EffectClass.read, set()),
    ("write", EffectClass.write, set()),
    ("communicate", EffectClass.communicate, set()),
    ("spend", EffectClass.spend, set()),
    ("account", EffectClass.account, set()),
    ("delete", EffectClass.write, {RiskTag.delete}),
    ("share", EffectClass.write, {RiskTag.share}),
])
def test_each_mark_becomes_an_effect_class_with_its_tags(kind, effect, tags) -> None:
    mark = OperationMark(kind=kind)
    assert mark.effect() == (effect, frozenset(tags))
    assert kind_of(effect, frozenset(tags)) == kind
    override = mark.override()
    assert (override.effect, override.tags) == (effect, frozenset(tags))


def test_only_a_spend_mark_says_where_money_is_and_an_amount_needs_a_currency() -> None:
    with pytest.raises(ValidationError):
        OperationMark(kind="communicate", amount="body.total", currency="USD")
    with pytest.raises(ValidationError):
        OperationMark(kind="spend", amount="body.total")
    with pytest.raises(ValidationError):
        OperationMark(kind="spend", amount="body.total", currency="USD", currency_field="body.currency")
    with pytest.raises(ValidationError):
        OperationMark(kind="spend", amount="body total", currency="USD")
    assert OperationMark(kind="spend").describe() == "spend"
    assert OperationMark(kind="spend", amount="total", currency="EUR").describe() == "spend (amount in total, EUR)"


def test_unmarked_mcp_tools_are_messages_whatever_they_claim_and_marks_decide() -> None:
    server = McpServerConfig(name="pay", transport="http", url="https://pay.example/mcp")
    toolset = build_toolset(server, [
        _Tool("send", {"type": "object", "properties": {"to": {"type": "string"}}},
              read_only_hint=False, destructive_hint=False),
        _Tool("pay", PAY_SCHEMA, read_only_hint=False, destructive_hint=False),
        _Tool("publish", {"type": "object"}, read_only_hint=True),
    ])
    plain = {op.name: (op.spec.effect, op.spec.tags) for op in mcp_operations(toolset)}
    assert plain == {"pay_send": (EffectClass.communicate, frozenset()),
                     "pay_pay": (EffectClass.communicate, frozenset()),
                     "pay_publish": (EffectClass.communicate, frozenset())}
    marks = {"pay_pay": OperationMark(kind="spend", amount="payment.value", currency_field="payment.currency"),
             "pay_publish": OperationMark(kind="share")}
    marked = {op.name: op for op in mcp_operations(toolset, marks)}
    assert marked["pay_pay"].spec.effect is EffectClass.spend
    assert marked["pay_publish"].spec.tags == frozenset({RiskTag.share})
    args = marked["pay_pay"].validate({"to": "bob", "payment": {"value": 120.5, "currency": "eur"}})
    assert marked["pay_pay"].amount(args) == (Decimal("120.5"), "EUR")
    # Arguments that leave the amount out commit to nothing the guard could compare: unknown.
    assert marked["pay_pay"].amount(marked["pay_pay"].validate({"to": "bob"})) is None
    assert marked["pay_send"].amount is None


def test_lowering_a_class_or_dropping_a_risk_is_less_guarded() -> None:
    communicate = (EffectClass.communicate, frozenset())
    assert less_guarded(OperationMark(kind="write"), communicate)
    assert less_guarded(OperationMark(kind="read"), communicate)
    assert not less_guarded(OperationMark(kind="spend"), communicate)
    assert less_guarded(OperationMark(kind="spend"), (EffectClass.communicate, frozenset({RiskTag.delete})))
    assert not less_guarded(OperationMark(kind="delete"), (EffectClass.write, frozenset({RiskTag.delete})))


def test_argument_paths_list_the_scalars_where_an_amount_can_be() -> None:
    assert argument_paths(PAY_SCHEMA) == [("to", "string"), ("payment.value", "number"),
                                          ("payment.currency", "string")]
    assert argument_paths(None) == [] and argument_paths({"type": "object"}) == []
