"""Resolving `$ref`s inside one OpenAPI document: local references only.

References to other files or URLs are refused when the document is checked, politely and
before anything is fetched: following them would make Deputy download whatever a
document points at. Recursive schemas are cut where they recur (the cut accepts any
value; the server still validates), and inlining is bounded so a document whose
references fan out exponentially is refused instead of exhausting memory.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from deputy.connectors.openapi.document import OpenApiDocumentError

MAX_REF_CHAIN = 32
MAX_INLINED_NODES = 500_000
"""Most schema values one import may produce by inlining references (all operations together)."""


def check_local_refs(content: dict[str, Any]) -> None:
    """Raise `OpenApiDocumentError` if any `$ref` points outside the document."""
    stack: list[Any] = [content]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                raise OpenApiDocumentError(
                    f"The document refers to another file or address ({ref[:100]}). I only use self-contained "
                    "documents; bundle it into one file first (for example with `redocly bundle`)."
                )
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


class RefResolver:
    """Looks up local `$ref`s (`#/components/schemas/Pet`) in one document."""

    def __init__(self, content: dict[str, Any], budget: int = MAX_INLINED_NODES) -> None:
        self._content = content
        self._budget = budget

    def lookup(self, ref: str) -> Any:
        """The value a local reference points at."""
        if ref == "#":
            return self._content
        if not ref.startswith("#/"):
            raise OpenApiDocumentError(f"The reference {ref[:100]} is not a JSON pointer into this document.")
        node: Any = self._content
        for raw in ref[2:].split("/"):
            part = unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise OpenApiDocumentError(f"The document refers to {ref[:100]}, which it doesn't contain.")
        return node

    def deref(self, node: Any) -> Any:
        """Follow `$ref` chains at the top of `node` (for parameters, bodies, responses)."""
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen or len(seen) >= MAX_REF_CHAIN:
                raise OpenApiDocumentError(f"The reference {ref[:100]} points back at itself.")
            seen.add(ref)
            target = self.lookup(ref)
            # OpenAPI 3.1 lets a reference carry siblings (e.g. a description) that apply on top.
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            node = {**target, **siblings} if siblings and isinstance(target, dict) else target
        return node

    def inline(self, schema: Any) -> Any:
        """`schema` with every `$ref` replaced by a copy of its target; recursion cut to `{}`."""
        return self._inline(schema, ())

    def _inline(self, node: Any, active: tuple[str, ...]) -> Any:
        self._budget -= 1
        if self._budget < 0:
            raise OpenApiDocumentError(
                "The document's schemas expand to more than I can use (too many nested references)."
            )
        if isinstance(node, list):
            return [self._inline(item, active) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in active:
                return {}  # a recursive schema: accept anything below this point
            if len(active) >= MAX_REF_CHAIN:
                raise OpenApiDocumentError("The document's schemas nest references too deeply.")
            target = self._inline(self.lookup(ref), (*active, ref))
            siblings = {k: self._inline(v, active) for k, v in node.items() if k != "$ref"}
            if siblings and isinstance(target, dict):
                return {**target, **siblings}
            return target
        # A property named "$ref" maps to a schema (an object), so it is not mistaken for a reference.
        return {key: self._inline(value, active) for key, value in node.items()}
