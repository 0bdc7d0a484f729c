"""Spending rules: when a purchase may go through without a tap, and for at most how much.

A shop's price comes from the shop (outside data), so by itself it can never let a rule
approve a purchase. What makes it safe is that the bound is not enforced by Deputy's
reading of that price: the executor mints the single-use payment token for *the rule's
limit at that merchant*, and the card issuer refuses any charge above it. The guard then
only has to make sure that everything else about the purchase is the user's:

- an allow rule with an amount cap matches (and a rule naming a shop names this merchant),
  and no stricter rule matches;
- the user's own words for this goal ask to buy (never a suggestion from outside content);
- no injection warning, nothing copied from outside content, and no outside value in the
  action but the price itself;
- every piece of outside content the goal read came from the merchant being paid (its
  catalogue, its cart, its prices): a page, an email or another shop that mentions a
  product is exactly what could be steering the purchase, so that asks.

Pure: no IO, no clock; the executor passes the rules and the merchant's origin in.
"""

from __future__ import annotations

import re
from decimal import Decimal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.sentinel.intent import action_kinds, intended_kinds
from deputy.sentinel.provenance import ProvenanceContext, TracedValue, Trust, untrusted_sources
from deputy.sentinel.rules import (RequestedVerdict, RuleInput, UserRule, describe, evaluate_rules, match_rule,
                            target_matches)


class SpendingLimit(BaseModel):
    """The most one user rule lets Deputy pay one merchant without asking."""

    rule_id: str
    rule_text: str = Field(max_length=500)
    amount: Decimal
    currency: str
    merchant: str = Field(description="The merchant's origin (scheme://host:port) or name, as the token binds it.")

    def money(self) -> str:
        return f"{self.amount:.2f} {self.currency}"


def merchant_of(target: str) -> str:
    """The merchant a purchase pays: a URL's origin (scheme, host and port); a bare name as it is."""
    parts = urlsplit(target.strip())
    if parts.scheme in ("http", "https") and parts.hostname:
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{parts.hostname.lower()}{port}"
    return target.strip().lower()


def _names_merchant(pattern: str, merchant: str) -> bool:
    if "://" in pattern:
        return merchant_of(pattern) == merchant
    return target_matches(pattern, merchant)


def spending_limit(rules: list[UserRule], rule_input: RuleInput, merchant: str) -> SpendingLimit | None:
    """The lowest cap among the allow rules with an amount cap that let this purchase through at
    `merchant`; None when there is none, or when a deny or ask rule also matches."""
    if rule_input.effect is not EffectClass.spend or not merchant:
        return None
    if evaluate_rules(rules, rule_input).verdict is not RequestedVerdict.allow:
        return None
    best: SpendingLimit | None = None
    for rule in rules:
        cond = rule.conditions
        if rule.verdict is not RequestedVerdict.allow or cond.amount_at_most is None or cond.currency is None:
            continue
        if match_rule(rule, rule_input) is None:
            continue
        if cond.target_in and not any(_names_merchant(p, merchant) for p in cond.target_in):
            continue
        if any(_names_merchant(p, merchant) for p in cond.target_not_in):
            continue
        if best is None or cond.amount_at_most < best.amount:
            best = SpendingLimit(rule_id=rule.id, rule_text=rule.text.strip()[:500] or describe(rule),
                                 amount=cond.amount_at_most, currency=cond.currency, merchant=merchant)
    return best


def from_merchant(origin: str, merchant: str) -> bool:
    """Whether outside content's origin ("the API response from shop.example:8001") is the merchant's site."""
    parts = urlsplit(merchant)
    if not parts.netloc:
        return False
    site = parts.netloc.lower()
    for found in re.finditer(re.escape(site), origin.lower()):
        before = origin[found.start() - 1] if found.start() else " "
        after = origin[found.end()] if found.end() < len(origin) else " "
        if before in " /(\"'" and after in " /?#)\"'":
            return True
    return False


# A verb of buying, not the noun ("where is my order?", "the purchase I made"): a spending
# rule acts only on a goal that asks for a purchase.
_BUYING = re.compile(
    r"(?<!\bmy )(?<!\bthe )(?<!\ban )(?<!\ba )(?<!\bthis )(?<!\bthat )(?<!\byour )(?<!\bour )"
    r"\b(?:buy|purchase|order|reorder|re-order|restock|get me|pick up)\b(?! (?:status|number|history|id)\b)",
    re.IGNORECASE)


def asks_to_buy(text: str) -> bool:
    """Whether the user's own words ask to buy something (a verb of buying, not talk about an order)."""
    return _BUYING.search(" ".join(text.split())) is not None


def within_limit(action: Action, limit: SpendingLimit | None, provenance: ProvenanceContext,
                 traced: list[TracedValue], *, warned: bool, copied: bool) -> str | None:
    """Why this purchase may go without a tap under `limit` (one sentence for the audit and the
    user), or None when it must ask as any purchase does."""
    if limit is None or warned or copied or action.effect is not EffectClass.spend:
        return None
    if action.amount is None or (action.currency or "").upper() != limit.currency or action.amount > limit.amount:
        return None
    if not action.targets or any(merchant_of(t) != limit.merchant for t in action.targets):
        return None
    # The price is the one outside value the issuer bounds; any other (a site, an address,
    # an account) would be outside content choosing where the money or the goods go.
    if any(v.trust is not Trust.trusted and v.argument != "amount" for v in traced if v.kind != "name"):
        return None
    if any(v.trust is Trust.tainted and v.argument != "amount" for v in traced):
        return None
    kinds = action_kinds(action.effect, frozenset(action.tags), action.connector, action.operation)
    if not kinds & intended_kinds(provenance.user_words) or not any(map(asks_to_buy, provenance.user_words)):
        return None
    sources = untrusted_sources(provenance) if provenance.untrusted else []
    if any(not from_merchant(s.origin, limit.merchant) for s in sources):
        return None
    return (f"Within your rule “{limit.rule_text}”: you asked me to buy this, and the card issuer will refuse "
            f"any charge above {limit.money()} at {limit.merchant}.")
