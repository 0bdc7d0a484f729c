"""The generic HTTP connector: fetch a page or call an API, every request guarded by Sentinel."""

from deputy.core.records.effects import EffectClass, OperationSpec

FETCH_URL = OperationSpec(
    connector="http",
    operation="fetch_url",
    effect=EffectClass.read,
    description="Fetch a web page and read its text",
    target_argument="url",
)
"""The spec of `fetch_url`: a GET that changes nothing; `url` names where it goes."""

HTTP_REQUEST = OperationSpec(
    connector="http",
    operation="http_request",
    effect=EffectClass.write,
    description="Call a web API (any method) and read its answer",
    target_argument="url",
)
"""The spec of `http_request` with a method that may change something (POST, PUT, PATCH, DELETE...)."""

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def http_request_spec(method: str) -> OperationSpec:
    """The spec for one `http_request` call: a read for GET/HEAD/OPTIONS, otherwise a write."""
    if method.strip().upper() in _SAFE_METHODS:
        return HTTP_REQUEST.model_copy(update={"effect": EffectClass.read})
    return HTTP_REQUEST
