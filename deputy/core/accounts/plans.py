"""Plans (Free, Plus, Pro...): what each user may use, read from one TOML file the operator owns.

The shipped defaults are `core/default_plans.toml`; `DEPUTY_PLANS_FILE` points at the
operator's own copy. A plan sets daily and monthly limits (goals started, background
checks, model tokens in total or per model), limits on what is held at once (active
goals, connected services, stored files, memories) and the capabilities it includes.
A limit left out is no limit.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError, model_validator

ALL_MODELS = "*"
EVERYTHING = "*"
PERIODS = ("day", "month")

# What a user may keep at once, with the words the user reads.
HELD = {"active_goals": "goals in progress", "services": "connected services", "files": "stored files",
        "memories": "memories"}


class Window(BaseModel):
    """Limits over one period (a day or a month, in the user's time zone)."""

    model_config = {"extra": "forbid"}

    goals: int | None = Field(default=None, ge=0)
    checks: int | None = Field(default=None, ge=0)
    tokens: dict[str, int] = Field(default_factory=dict, description='"*": all models; else one model by name')

    def limit(self, counter: str) -> int | None:
        """The limit on a counter name: `goals`, `checks`, `tokens` (all models) or `tokens:<model>`."""
        if counter.startswith("tokens"):
            _, _, model = counter.partition(":")
            return self.tokens.get(model or ALL_MODELS)
        return getattr(self, counter, None)

    def counters(self) -> list[str]:
        """The counters this window limits."""
        names = [name for name in ("goals", "checks") if getattr(self, name) is not None]
        names += ["tokens" if model == ALL_MODELS else f"tokens:{model}" for model in self.tokens]
        return names


class Plan(BaseModel):
    model_config = {"extra": "forbid"}

    name: str = ""
    title: str
    active_goals: int | None = Field(default=None, ge=0)
    services: int | None = Field(default=None, ge=0)
    files: int | None = Field(default=None, ge=0)
    memories: int | None = Field(default=None, ge=0)
    capabilities: list[str] = Field(default_factory=lambda: [EVERYTHING])
    day: Window = Field(default_factory=Window)
    month: Window = Field(default_factory=Window)

    def includes(self, capability: str) -> bool:
        return EVERYTHING in self.capabilities or capability in self.capabilities

    def window(self, period: str) -> Window:
        return self.day if period == "day" else self.month

    def held_limit(self, what: str) -> int | None:
        return getattr(self, what)


class PlanBook(BaseModel):
    """Every plan, the one new users get, and what to tell a user who wants more."""

    model_config = {"extra": "forbid"}

    default: str
    upgrade: str = "Ask the person who runs this Deputy for a bigger plan."
    plans: dict[str, Plan]

    @model_validator(mode="after")
    def _named(self) -> "PlanBook":
        for name, plan in self.plans.items():
            plan.name = name
        if self.default not in self.plans:
            raise ValueError(f"the default plan {self.default!r} is not one of the plans ({', '.join(self.plans)})")
        return self

    def get(self, name: str | None) -> Plan:
        """The plan by name; an unknown or missing name (a plan the operator removed) is the default plan."""
        return self.plans.get(name or "", self.plans[self.default])


class PlansFileError(ValueError):
    """The plans file cannot be used; the message says what to fix."""


def parse_plans(text: str, source: str = "plans file") -> PlanBook:
    try:
        return PlanBook.model_validate(tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        raise PlansFileError(f"{source} is not valid TOML: {exc}") from None
    except ValidationError as exc:
        where = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise PlansFileError(f"{source} has a mistake: {where}") from None


def default_plans() -> PlanBook:
    return parse_plans(resources.files("deputy.core.accounts").joinpath("default_plans.toml").read_text(), "default_plans.toml")


def load_plans(path: Path | None) -> PlanBook:
    """The operator's plans (`DEPUTY_PLANS_FILE`), or the shipped defaults when no file is set."""
    if path is None:
        return default_plans()
    try:
        text = path.read_text()
    except OSError as exc:
        raise PlansFileError(f"cannot read the plans file {path}: {exc.strerror}") from None
    return parse_plans(text, str(path))


# Capabilities a plan may include, by what an operation does and which connector does it.
CAPABILITIES = {
    "email": "reading and sending email",
    "calendar": "the calendar",
    "browsing": "browsing the web",
    "services": "connected services and shops (OpenAPI, MCP)",
    "purchases": "purchases and anything that spends money",
    "negotiation": "negotiating on your behalf",
}
_BY_CONNECTOR = {"email": "email", "calendar": "calendar", "web": "browsing"}


def capabilities_of(connector: str, effect: str) -> list[str]:
    """The capabilities an operation needs: its connector's, and `purchases` when it spends."""
    needed = [_BY_CONNECTOR.get(connector, "services")]
    if effect == "spend":
        needed.append("purchases")
    return needed
