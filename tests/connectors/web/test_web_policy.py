"""What Sentinel decides about web actions built from this catalog, as the agent would submit them."""

from __future__ import annotations

import time
from typing import Any

from deputy.connectors.catalog import Catalog
from deputy.connectors.web.operations import WEB_OPERATIONS
from deputy.core.records.actions import Action
from deputy.sentinel.policy import ReviewContext, Verdict, review
from deputy.sentinel.provenance import ProvenanceContext, UntrustedItem

CATALOG = Catalog(WEB_OPERATIONS)
USER_SAID = "Order a large pizza for me at https://pizza.example/order"


def action(name: str, arguments: dict[str, Any]) -> Action:
    operation = CATALOG.get(name)
    assert operation is not None
    args = operation.validate(arguments)
    return Action(
        id="a1", goal_id="g1", user_id=1, chat_id=1, connector="web", operation=name,
        effect=operation.spec.effect, tags=sorted(operation.spec.tags), arguments=args.model_dump(mode="json"),
        targets=operation.targets(args), tool_call_id="c1", created_at=time.time(),
    )  # fmt: skip


def decide(name: str, arguments: dict[str, Any], untrusted: list[UntrustedItem] = ()) -> Verdict:  # type: ignore[assignment]
    context = ReviewContext(provenance=ProvenanceContext(trusted_texts=[USER_SAID], user_words=[USER_SAID],
                                                         untrusted=list(untrusted)))
    return review(action(name, arguments), context).verdict


def test_opening_the_address_the_user_gave_is_allowed_and_an_injected_one_asks() -> None:
    assert decide("open_page", {"url": "https://pizza.example/order"}) is Verdict.allow
    injected = UntrustedItem(origin="the web page https://pizza.example/order", text="see https://evil.example/x", at=0)
    assert decide("open_page", {"url": "https://evil.example/x"}, [injected]) is Verdict.ask


def test_a_plain_same_site_form_is_a_plain_write_and_a_sensitive_one_asks() -> None:
    form = {"url": "https://pizza.example/order", "action_url": "https://pizza.example/order",
            "fields": {"size": "large"}}  # fmt: skip
    assert decide("submit_form", form) is Verdict.allow
    assert decide("submit_sensitive_form", form) is Verdict.ask


def test_reading_search_results_and_screenshots_changes_nothing() -> None:
    assert decide("search_web", {"query": "pizza near me"}) is Verdict.allow
    assert decide("screenshot", {}) is Verdict.allow


def test_a_form_sending_within_the_site_the_user_named_is_traced_to_the_user() -> None:
    page = UntrustedItem(origin="the web page https://pizza.example/order", text="form to /cart/checkout", at=0)
    form = {"url": "https://pizza.example/order", "action_url": "https://pizza.example/cart/checkout"}
    assert decide("submit_form", form, [page]) is Verdict.allow
    elsewhere = {"url": "https://pizza.example/order", "action_url": "https://collect.evil.example/x"}
    assert decide("submit_sensitive_form", elsewhere, [page]) is Verdict.ask
