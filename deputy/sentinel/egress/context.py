"""What an egress review weighs besides the request: the operator's policy and what is known of the goal.

Kept apart from `deputy.sentinel.egress.policy` so the rules in `deputy.sentinel.egress.checks` can take
these records without importing the entry point that calls them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from deputy.sentinel.egress.ip import parse_private_exceptions


class EgressPolicy(BaseModel):
    """What the operator allows, independent of any user or goal."""

    model_config = ConfigDict(frozen=True)

    connector_allow: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Connector -> the only domains it may reach (`api.example.com`, `*.example.com`).",
    )
    deny_domains: list[str] = Field(
        default_factory=list, description="Never contacted: a domain (with its subdomains), an IP or a CIDR."
    )
    allow_private_networks: list[str] = Field(
        default_factory=list,
        description="Openings in the private-network wall: CIDRs (`10.1.0.0/16`) or `host:port` endpoints.",
    )
    max_body_bytes: int = Field(default=5_000_000, gt=0)

    @field_validator("allow_private_networks")
    @classmethod
    def _exceptions_parse(cls, value: list[str]) -> list[str]:
        parse_private_exceptions(tuple(value))
        return value


class SecretValue(BaseModel):
    """A credential value the executor may put in requests, and where it may go."""

    model_config = ConfigDict(frozen=True)

    label: str = Field(description="A noun phrase naming it, e.g. 'your GitHub token'; shown in reasons.")
    value: SecretStr
    domains: list[str] = Field(description="The only hosts it may be sent to (`api.github.com`, `*.github.com`).")


class EgressContext(BaseModel):
    """What Sentinel knows about this user and goal when a request leaves."""

    private_values: dict[str, str] = Field(
        default_factory=dict,
        description="The user's own data -> a label ('your email address', 'your home address').",
    )
    secrets: list[SecretValue] = Field(default_factory=list)
    tainted_values: dict[str, str] = Field(
        default_factory=dict, description="Value seen only in untrusted content -> where ('an email from x@y')."
    )
    trusted_domains: set[str] = Field(
        default_factory=set, description="Domains the user typed or approved; their subdomains count too."
    )
    visited_domains: set[str] = Field(
        default_factory=set, description="Hosts already contacted by allowed top-level requests in this goal."
    )
