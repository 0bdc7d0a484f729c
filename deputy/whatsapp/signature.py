"""Meta signs every webhook POST: ``X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>``,
keyed with the app secret. A body whose signature is missing or wrong is not processed."""

from __future__ import annotations

import hashlib
import hmac

SIGNATURE_HEADER = "X-Hub-Signature-256"
_PREFIX = "sha256="


def sign(body: bytes, app_secret: str) -> str:
    """The header value Meta sends for `body`."""
    return _PREFIX + hmac.new(app_secret.encode(), body, hashlib.sha256).hexdigest()


def verify(body: bytes, header: str | None, app_secret: str) -> bool:
    """True only for the exact signature of these bytes (compared in constant time)."""
    if not header or not header.startswith(_PREFIX) or not app_secret:
        return False
    return hmac.compare_digest(header.strip().lower().encode(), sign(body, app_secret).encode())
