"""One reading of a message for every check: Unicode folded so that look-alike characters count.

A card number typed with full-width digits (４１１１…), Arabic-Indic digits, or with zero-width
spaces between its groups is still the card number. NFKC folds compatibility forms; digits of
any script become ASCII digits; invisible format characters are dropped. Checks and the
redaction both work on this text, so a span found is a span replaced.
"""

from __future__ import annotations

import unicodedata

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2212\u2015"), "-")


def normalise(text: str) -> str:
    if text.isascii():
        return text
    folded = unicodedata.normalize("NFKC", text).translate(_INVISIBLE).translate(_DASHES)
    if folded.isascii():
        return folded
    out = []
    for char in folded:
        if char.isdigit() and not char.isascii():
            value = unicodedata.digit(char, None)
            out.append(str(value) if value is not None else char)
        elif char in "\u00a0\u2007\u202f\u3000":
            out.append(" ")
        else:
            out.append(char)
    return "".join(out)
