"""The page guard's own rules, driven like Playwright drives a route handler."""

from __future__ import annotations

from dataclasses import dataclass, field

from conftest import POLICY, fake_dns
from pydantic import SecretStr

from deputy.connectors.web.guard import PageGuard
from deputy.sentinel.egress.policy import EgressContext, SecretValue, reviewer
from deputy.sentinel.policy import Verdict


@dataclass
class Frame:
    parent_frame: object = None


@dataclass
class Request:
    url: str
    method: str = "GET"
    navigation: bool = False
    main: bool = True
    headers: dict[str, str] = field(default_factory=dict)
    post_data_buffer: bytes | None = None
    redirected_from: object = None

    def is_navigation_request(self) -> bool:
        return self.navigation

    @property
    def frame(self) -> Frame:
        return Frame(None if self.main else Frame())


@dataclass
class Route:
    outcome: str | None = None

    async def continue_(self) -> None:
        self.outcome = "continued"

    async def abort(self, error_code: str = "failed") -> None:
        self.outcome = f"aborted:{error_code}"


async def send(guard: PageGuard, request: Request) -> str | None:
    route = Route()
    await guard.route(route, request)
    return route.outcome


URL = "http://127.0.0.1:8000"
REVIEW = reviewer(POLICY, EgressContext())


async def test_nothing_leaves_between_operations() -> None:
    guard = PageGuard(fake_dns)
    assert await send(guard, Request(f"{URL}/poll")) == "aborted:blockedbyclient"
    guard.begin(REVIEW)
    assert await send(guard, Request(f"{URL}/poll")) == "continued"
    guard.end()
    assert await send(guard, Request(f"{URL}/poll")) == "aborted:blockedbyclient"


async def test_forms_only_go_out_through_a_submit_and_only_where_reviewed() -> None:
    guard = PageGuard(fake_dns)
    guard.begin(REVIEW)
    post = Request(f"{URL}/order", method="POST", navigation=True, post_data_buffer=b"a=1")
    assert await send(guard, post) == "aborted:blockedbyclient"
    assert "forms are only sent with submit_form" in guard.blocked[-1].decision.reasons[0]
    assert guard.blocked[-1].main_frame

    guard.expect_submit(f"{URL}/order")
    assert await send(guard, Request("http://127.0.0.2:8000/steal", method="POST", navigation=True)) == (
        "aborted:blockedbyclient"
    )
    guard.expect_submit(f"{URL}/order")
    assert await send(guard, post) == "continued"
    assert await send(guard, post) == "aborted:blockedbyclient"  # one submission per submit
    # A redirect after the post is an ordinary navigation, reviewed by the policy.
    assert await send(guard, Request(f"{URL}/thanks", navigation=True, redirected_from=post)) == "continued"


async def test_a_saved_password_only_goes_to_its_own_site() -> None:
    guard = PageGuard(fake_dns)
    guard.protect_secret(
        SecretValue(label="your password for 127.0.0.1", value=SecretStr("hunter2-long"), domains=["127.0.0.1"])
    )
    leak = Request("http://127.0.0.2:9/x?p=hunter2-long")
    # Without an allow-list the policy itself lets 127.0.0.2 through; the password may not go.
    policy_allows = reviewer(POLICY.model_copy(update={"connector_allow": {}}), EgressContext())
    guard.begin(policy_allows)
    assert await send(guard, leak) == "aborted:blockedbyclient"
    assert guard.blocked[-1].decision.verdict is Verdict.deny
    assert "your password for 127.0.0.1" in guard.blocked[-1].decision.reasons[0]
    assert "hunter2" not in " ".join(guard.blocked[-1].decision.reasons)
    assert await send(guard, Request(f"{URL}/login", method="GET", post_data_buffer=b"p=hunter2-long")) == "continued"
