"""Addresses the model composed: what a link would tell the site it points to.

Opening a page on a site the user named is a read, but the address itself can carry data
out ("https://site.example/?q=<your reset code>"). An address found verbatim in what the
user wrote or in the content read is a link someone gave; otherwise every query value and
path segment that is not made of the user's own words is data the model chose to send.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlsplit

from deputy.sentinel.provenance import ProvenanceContext
from deputy.sentinel.textflow import normalise

_MIN_CHARS = 4


def composed_data(targets: list[str], provenance: ProvenanceContext) -> list[str]:
    """Values carried by the query of a composed address that the user never gave."""
    seen = "\n".join([*provenance.trusted_texts, *(i.text for i in provenance.untrusted)])
    user_words = set(normalise(" ".join([*provenance.trusted_texts, *provenance.contacts])).split())
    carried: list[str] = []
    for target in targets:
        if "://" not in target or target in seen:
            continue
        parts = urlsplit(target)
        values = [v for _, v in parse_qsl(parts.query, keep_blank_values=False)]
        values += [unquote(parts.fragment)] if parts.fragment else []
        for value in values:
            words = normalise(value).split()
            if len(value) >= _MIN_CHARS and not set(words) <= user_words:
                carried.append(value)
    return carried
