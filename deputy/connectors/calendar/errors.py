"""CalDAV failures (caldav, niquests, lxml and whatever else) as plain `ConnectorError`s."""

from __future__ import annotations

import ssl

from deputy.core.records.effects import ConnectorAuthError, ConnectorError, ConnectorRejected, ConnectorUnavailable


def translate(exc: BaseException, where: str, stage: str, secret: str = "") -> ConnectorError:
    """A ConnectorError with a plain sentence for `exc`, raised while `stage` talking to `where`.

    `secret` (the password) is taken out of the logged detail; the user message never
    quotes the library's text at all.
    """
    from caldav.lib import error as dav
    from niquests import exceptions as http

    if isinstance(exc, ConnectorError):  # already plain (e.g. the egress guard refused the server)
        return exc
    detail = f"{type(exc).__name__} during {stage}: {str(exc)[:500]}"
    if secret:
        detail = detail.replace(secret, "***")
    if isinstance(exc, dav.AuthorizationError):
        if getattr(exc, "status", None) == 403:
            return ConnectorRejected(
                f"The calendar server at {where} refused access to that calendar or event.", detail=detail
            )
        return ConnectorAuthError(f"The calendar server at {where} rejected the username or password.", detail=detail)
    if isinstance(exc, dav.RateLimitError):
        return ConnectorUnavailable(
            f"The calendar server at {where} is busy; it asked to try again later.", detail=detail
        )
    if isinstance(exc, dav.NotFoundError):
        return ConnectorRejected(f"The calendar server at {where} doesn't have that (it may have been deleted).",
                                 detail=detail)
    if isinstance(exc, (dav.ETagMismatchError, dav.ScheduleTagMismatchError)):
        return ConnectorUnavailable("The event changed on the server while I was editing it; try again.", detail=detail)
    if isinstance(exc, dav.DAVError):
        status = getattr(exc, "status", None)
        if isinstance(status, int) and 400 <= status < 500 and status not in (408, 423, 429):
            return ConnectorRejected(f"The calendar server at {where} refused the request ({status}).", detail=detail)
        return ConnectorUnavailable(f"The calendar server at {where} had a problem; try again later.", detail=detail)
    if isinstance(exc, (http.SSLError, ssl.SSLError)):
        return ConnectorError(
            f"I couldn't verify the secure connection to the calendar server at {where}, so I sent nothing.",
            detail=detail,
        )
    if isinstance(exc, http.Timeout):
        return ConnectorUnavailable(f"The calendar server at {where} stopped answering.", detail=detail)
    if isinstance(exc, (http.InvalidURL, http.MissingSchema, http.InvalidSchema)):
        return ConnectorRejected("The calendar address isn't a valid http:// or https:// URL; reconnect the calendar.",
                                 detail=detail)
    if isinstance(exc, (http.ConnectionError, ConnectionError)):
        return ConnectorUnavailable(f"I couldn't reach the calendar server at {where}.", detail=detail)
    if isinstance(exc, (http.RequestException, OSError)):
        return ConnectorUnavailable(f"The connection to the calendar server at {where} broke off.", detail=detail)
    # lxml syntax errors, caldav's consistency assertions, odd values: the server said nonsense.
    return ConnectorUnavailable(
        f"The calendar server at {where} answered in a way I couldn't understand; try again later.", detail=detail
    )
