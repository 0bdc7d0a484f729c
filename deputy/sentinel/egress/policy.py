"""The egress policy: may this outgoing network request leave, and with this data in it?

`review_request` is pure: the IO edges (`deputy.sentinel.egress.transports.http_client` for httpx,
`deputy.sentinel.egress.transports.browser` for Chromium) resolve DNS, build an `OutboundRequest` and act on
the `EgressDecision`. The model is assumed hijacked: every rule here holds whatever the
URL, headers and body say, and no rule trusts anything the request claims about itself.
Reasons are plain sentences for the user; they never contain a secret value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from deputy.sentinel.egress.checks import (
    Findings,
    check_body_size,
    check_data,
    check_destination,
    check_tainted_target,
)
# The records a review weighs; callers name them from here, beside the review itself.
from deputy.sentinel.egress.context import EgressContext, EgressPolicy, SecretValue
from deputy.sentinel.egress.url import UrlProblem, parse_destination, url_scheme
from deputy.sentinel.policy import Decision, Risk, Verdict

Initiator = Literal["navigation", "subresource", "api_call", "form_submit"]


class OutboundRequest(BaseModel):
    """One request about to leave Deputy, as the IO edge saw it."""

    model_config = ConfigDict(frozen=True)

    method: str = "GET"
    url: str
    # Kept out of repr: the executor may have added a credential header or private data.
    headers: list[tuple[str, str]] = Field(default_factory=list, repr=False)
    body: bytes | str | None = Field(default=None, repr=False)
    connector: str
    initiated_by: Initiator
    resolved_ips: list[str] = Field(
        default_factory=list,
        description="Every address DNS gave for the host (filled by the IO edge; empty if not resolved).",
    )

    @field_validator("headers", mode="before")
    @classmethod
    def _headers_from_mapping(cls, value: object) -> object:
        if isinstance(value, Mapping):
            return list(value.items())
        return value


class EgressDecision(Decision):
    """A `Decision` about one request, with what private or tainted data it would carry out."""

    exfiltration: list[str] = Field(default_factory=list)
    host: str | None = None


Reviewer = Callable[[OutboundRequest], EgressDecision]
"""A bound review function, as the IO edges take it."""


def review_request(request: OutboundRequest, policy: EgressPolicy, context: EgressContext) -> EgressDecision:
    """Allow, deny or ask the user about one outgoing request, with plain reasons."""
    scheme = url_scheme(request.url)
    if scheme not in ("http", "https"):
        return _review_other_scheme(scheme, request)
    try:
        destination = parse_destination(request.url)
    except UrlProblem as problem:
        return EgressDecision(
            verdict=Verdict.deny,
            reasons=[f"{problem} Deputy does not contact an address it cannot read."],
            risk=Risk.high,
        )
    findings = Findings()
    check_destination(destination, request.resolved_ips, request.connector, policy, findings)
    check_body_size(request.body, policy.max_body_bytes, findings)
    check_data(destination, request.headers, request.body, context, findings)
    if request.initiated_by != "subresource":
        check_tainted_target(destination.host, context, findings)
    return EgressDecision(**findings.decision(destination.host, context), host=destination.host)


def reviewer(policy: EgressPolicy, context: EgressContext | Callable[[], EgressContext]) -> Reviewer:
    """Bind a policy and a context (or a function returning the current one) into a `Reviewer`."""

    def review(request: OutboundRequest) -> EgressDecision:
        current = context() if callable(context) else context
        return review_request(request, policy, current)

    return review


def _review_other_scheme(scheme: str | None, request: OutboundRequest) -> EgressDecision:
    # data: and blob: subresources never leave the browser; as navigations they are a
    # phishing and script-smuggling vector, so only inline use is allowed.
    if scheme in ("data", "blob") and request.initiated_by == "subresource":
        return EgressDecision(
            verdict=Verdict.allow, reasons=["The content is inline and nothing leaves the browser."], risk=Risk.low
        )
    shown = f"{scheme}:" if scheme else "no scheme"
    return EgressDecision(
        verdict=Verdict.deny,
        reasons=[f"Deputy only opens web addresses starting with http:// or https://; this one uses {shown}."],
        risk=Risk.high,
    )
