"""An outgoing email as the agent, the guard and the sender all see it: validated, with its limits.

Pure: the agent's operations check a message against these before anything is sent, and only
`smtp` (in the executor) sends one.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, model_validator

from deputy.connectors.addresses import check_header_text, normalize_address

MAX_RECIPIENTS = 50
"""Most addresses one email may go to, To and Cc together."""
MAX_BODY_BYTES = 1_000_000
"""Largest body accepted, measured as UTF-8."""

Address = Annotated[str, AfterValidator(normalize_address)]


def _one_or_many(value: object) -> object:
    """Let a caller (often a model's tool call) pass a single address as a plain string."""
    return [value] if isinstance(value, str) else value


class OutgoingEmail(BaseModel):
    """A plain-text email; validation makes header injection impossible."""

    to: Annotated[list[Address], BeforeValidator(_one_or_many), Field(min_length=1, max_length=MAX_RECIPIENTS)]
    subject: Annotated[str, AfterValidator(lambda v: check_header_text(v, "subject")), Field(max_length=998)]
    body: str
    cc: Annotated[list[Address], BeforeValidator(_one_or_many), Field(max_length=MAX_RECIPIENTS)] = []

    @model_validator(mode="after")
    def _within_limits(self) -> OutgoingEmail:
        if len(self.to) + len(self.cc) > MAX_RECIPIENTS:
            raise ValueError(f"an email may go to at most {MAX_RECIPIENTS} addresses")
        if len(self.body.encode("utf-8")) > MAX_BODY_BYTES:  # lone surrogates fail here too
            raise ValueError("the body is larger than 1 MB")
        return self

    def recipients(self) -> list[str]:
        """Every envelope recipient, To then Cc, without duplicates."""
        return list(dict.fromkeys(self.to + self.cc))
