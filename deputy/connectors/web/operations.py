"""The web operations the agent may request, as the model and the guard see them.

The effect classes are fixed per operation (the executor takes them from this catalog,
never from the agent), so a form that shares data beyond the page's own site has its own
operation: `submit_form` is a plain write and the runner refuses it for a sensitive form
(another site, a password, payment details); `submit_sensitive_form` carries the `share`
tag, so Sentinel asks the user. The targets are the addresses involved, which Sentinel
traces to the user's own words.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from deputy.core.records.effects import EffectClass, OperationSpec, RiskTag
from deputy.connectors.catalog import Operation
from deputy.sentinel.egress.url import UrlProblem, parse_destination, url_scheme

MAX_URL = 2_048
MAX_FIELDS = 40
MAX_VALUE = 10_000


def _web_address(value: str) -> str:
    text = value.strip()
    if url_scheme(text) not in ("http", "https"):
        raise ValueError("must be a web address starting with http:// or https://")
    try:
        parse_destination(text)
    except UrlProblem as problem:
        raise ValueError(str(problem)) from None
    return text


WebAddress = Annotated[str, Field(min_length=8, max_length=MAX_URL), AfterValidator(_web_address)]
FieldValues = Annotated[
    dict[Annotated[str, Field(min_length=1, max_length=200)], Annotated[str, Field(max_length=MAX_VALUE)]],
    Field(max_length=MAX_FIELDS),
]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OpenPageArgs(_Args):
    url: WebAddress


class SearchArgs(_Args):
    query: str = Field(min_length=1, max_length=300)


class FillFormArgs(_Args):
    url: WebAddress
    fields: FieldValues = Field(min_length=1)
    form: str | None = Field(default=None, max_length=200)


class SubmitFormArgs(_Args):
    url: WebAddress
    action_url: WebAddress
    fields: FieldValues = Field(default_factory=dict)
    form: str | None = Field(default=None, max_length=200)
    button: str | None = Field(default=None, max_length=200)


class ClickArgs(_Args):
    url: WebAddress
    text: str = Field(min_length=1, max_length=200)


class ScreenshotArgs(_Args):
    url: WebAddress | None = None
    full_page: bool = False


def _spec(operation: str, effect: EffectClass, description: str, *tags: RiskTag) -> OperationSpec:
    return OperationSpec(
        connector="web",
        operation=operation,
        effect=effect,
        description=description,
        tags=frozenset(tags),
        target_argument="url",
    )


_URL = {"type": "string", "description": "Full http(s) address."}
_PAGE_URL = {"type": "string", "description": "Address of the page (as open_page showed it)."}
_FIELDS = {
    "type": "object",
    "additionalProperties": {"type": "string"},
    "description": "Field name -> value. For a saved login use <vault:username> and <vault:password>.",
}
_FORM = {"type": "string", "description": "Form number, id or name, as open_page listed it (optional)."}


OPEN_PAGE = Operation(
    _spec(
        "open_page",
        EffectClass.read,
        "Open a web page in the browser and read its text, links and forms.",
        RiskTag.navigation,
    ),
    OpenPageArgs,
    targets=lambda a: [a.url],  # type: ignore[attr-defined]
    result_origin=lambda a: f"the web page {a.url}",  # type: ignore[attr-defined]
    schema={"type": "object", "properties": {"url": _URL}, "required": ["url"]},
)
SEARCH_WEB = Operation(
    OperationSpec(
        connector="web",
        operation="search_web",
        effect=EffectClass.read,
        description="Search the web; returns result titles with their links.",
    ),
    SearchArgs,
    targets=lambda a: [],
    result_origin=lambda a: f"web search results for {a.query!r}",  # type: ignore[attr-defined]
    schema={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
)
FILL_FORM = Operation(
    _spec("fill_form", EffectClass.write, "Type values into fields of a form on a page (does not send it)."),
    FillFormArgs,
    targets=lambda a: [a.url],  # type: ignore[attr-defined]
    schema={
        "type": "object",
        "properties": {"url": _PAGE_URL, "fields": _FIELDS, "form": _FORM},
        "required": ["url", "fields"],
    },
)
_SUBMIT_PROPERTIES = {
    "url": _PAGE_URL,
    "action_url": {"type": "string", "description": "Where the form sends, exactly as open_page showed it."},
    "fields": _FIELDS,
    "form": _FORM,
    "button": {"type": "string", "description": "Text of the submit button to press (optional)."},
}
SUBMIT_FORM = Operation(
    _spec(
        "submit_form",
        EffectClass.write,
        "Fill (optionally) and send a plain form that stays on the same site, then read the result page.",
    ),
    SubmitFormArgs,
    targets=lambda a: [a.action_url],  # type: ignore[attr-defined]
    result_origin=lambda a: f"the web page answering a form sent to {a.action_url}",  # type: ignore[attr-defined]
    schema={"type": "object", "properties": _SUBMIT_PROPERTIES, "required": ["url", "action_url"]},
)
SUBMIT_SENSITIVE_FORM = Operation(
    _spec(
        "submit_sensitive_form",
        EffectClass.write,
        "Send a form that goes to another site or holds a password or payment details (the user approves).",
        RiskTag.share,
    ),
    SubmitFormArgs,
    targets=lambda a: [a.action_url],  # type: ignore[attr-defined]
    result_origin=lambda a: f"the web page answering a form sent to {a.action_url}",  # type: ignore[attr-defined]
    schema={"type": "object", "properties": _SUBMIT_PROPERTIES, "required": ["url", "action_url"]},
)
CLICK = Operation(
    _spec(
        "click",
        EffectClass.write,
        "Click a link or button by its visible text and read the page that follows.",
        RiskTag.navigation,
    ),
    ClickArgs,
    targets=lambda a: [a.url],  # type: ignore[attr-defined]
    result_origin=lambda a: f"the web page reached from {a.url}",  # type: ignore[attr-defined]
    schema={
        "type": "object",
        "properties": {"url": _PAGE_URL, "text": {"type": "string"}},
        "required": ["url", "text"],
    },
)
SCREENSHOT = Operation(
    _spec(
        "screenshot",
        EffectClass.read,
        "Take a screenshot of a page (the open one if no url) to show the user.",
        RiskTag.navigation,
    ),
    ScreenshotArgs,
    targets=lambda a: [a.url] if a.url else [],  # type: ignore[attr-defined]
    schema={"type": "object", "properties": {"url": _URL, "full_page": {"type": "boolean"}}},
)

WEB_OPERATIONS = [OPEN_PAGE, SEARCH_WEB, FILL_FORM, SUBMIT_FORM, SUBMIT_SENSITIVE_FORM, CLICK, SCREENSHOT]
"""Every web operation, for the executor's and the agent's catalog."""


# Paying on a shop's own checkout page (`checkout` runs it, with a single-use card the agent never sees).
Money = Annotated[Decimal, Field(gt=0, max_digits=14, decimal_places=2)]


class PayArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: WebAddress
    action_url: WebAddress
    amount: Money
    currency: str = Field(pattern=r"^[A-Za-z]{3}$")
    fields: FieldValues = Field(min_length=1)
    form: str | None = Field(default=None, max_length=200)
    button: str | None = Field(default=None, max_length=200)


PAY_ON_PAGE = Operation(
    _spec("pay_on_page", EffectClass.spend,
          "Pay on a shop's own checkout page by card: the user approves the amount, then Deputy fills the "
          "card fields with a single-use card and sends the form."),
    PayArgs,
    targets=lambda a: [a.action_url],  # type: ignore[attr-defined]
    result_origin=lambda a: f"the web page answering a payment sent to {a.action_url}",  # type: ignore[attr-defined]
    amount=lambda a: (a.amount, a.currency.upper()),  # type: ignore[attr-defined]
    schema={
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "Address of the checkout page (as open_page showed it)."},
            "action_url": {"type": "string", "description": "Where its form sends, exactly as open_page showed it."},
            "amount": {"type": "string", "description": "The total the page asks for, e.g. 24.89."},
            "currency": {"type": "string", "description": "Three letters, e.g. USD."},
            "fields": {"type": "object", "additionalProperties": {"type": "string"},
                       "description": "Field name -> value; card fields get <card:number>, <card:expiry>, "
                                      "<card:cvc> (and <card:name>), never real numbers."},
            "form": {"type": "string"},
            "button": {"type": "string"},
        },
        "required": ["url", "action_url", "amount", "currency", "fields"],
    },
)
