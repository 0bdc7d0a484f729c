"""Pure rules about forms: which form the agent means, and which forms are sensitive.

A form is *sensitive* when submitting it sends data to another site (its action, or a
submit button's `formaction`, points to a different host than the page) or when it asks
for a password or payment details. Sensitive forms may only be submitted through the
`submit_sensitive_form` operation, which carries the `share` risk tag, so the guard asks
the user; the runner enforces this at submit time from the live page, so an agent cannot
slip a sensitive form through the plain `submit_form`.
"""

from __future__ import annotations

import re

from deputy.core.records.effects import ConnectorRejected
from deputy.connectors.web.snapshot import FormField, FormInfo
from deputy.sentinel.egress.url import UrlProblem, is_within, parse_destination

_PAYMENT_AUTOCOMPLETE = re.compile(r"\bcc-(number|csc|exp|exp-month|exp-year|name|type)\b")
_PAYMENT_NAME = re.compile(
    r"(card.?(number|num|no)|cardnumber|\bcc.?(num|number|no)\b|\bccn\b|cvv|cvc|csc|security.?code|"
    r"\bexpiry|\bexp.?(date|month|year)|\biban\b|routing.?number|account.?number|\bpan\b)",
    re.IGNORECASE,
)


def host_of(url: str) -> str | None:
    """The host of an http(s) URL, lowercased; None when the URL is not one."""
    try:
        destination = parse_destination(url)
    except UrlProblem:
        return None
    return destination.host if destination.scheme in ("http", "https") else None


def same_site(url: str, other: str) -> bool:
    """True when both URLs name the same host, or one host is a subdomain of the other."""
    first, second = host_of(url), host_of(other)
    if first is None or second is None:
        return False
    return is_within(first, second) or is_within(second, first)


def is_password(field: FormField) -> bool:
    return field.type == "password" or field.autocomplete in ("current-password", "new-password")


def is_payment(field: FormField) -> bool:
    if _PAYMENT_AUTOCOMPLETE.search(field.autocomplete):
        return True
    return any(_PAYMENT_NAME.search(text) for text in (field.name, field.id, field.label) if text)


def sensitivity(form: FormInfo, page_url: str) -> list[str]:
    """Why submitting `form` shares data beyond the page's own site; empty for a plain form."""
    reasons = []
    destinations = [form.action or page_url, *(b.formaction for b in form.buttons if b.formaction)]
    for destination in dict.fromkeys(destinations):
        if not same_site(destination, page_url):
            reasons.append(f"it sends to {host_of(destination) or destination}, another site than the page")
    if any(is_password(f) for f in form.fields):
        reasons.append("it contains a password field")
    if any(is_payment(f) for f in form.fields):
        reasons.append("it asks for payment details")
    return reasons


def is_sensitive(form: FormInfo, page_url: str) -> bool:
    return bool(sensitivity(form, page_url))


def form_label(form: FormInfo) -> str:
    """How a form is named to the agent: "Form 2 (id=login)", "Fields outside any form"."""
    if form.index == 0:
        return "Fields outside any form"
    names = [f"id={form.id}" if form.id else "", f"name={form.name}" if form.name else ""]
    shown = ", ".join(n for n in names if n)
    return f"Form {form.index}" + (f" ({shown})" if shown else "")


def choose_form(forms: list[FormInfo], wanted: str | None, field_names: list[str], *, submittable: bool) -> FormInfo:
    """The form the agent means: by 1-based number, id or name; else the one holding its fields."""
    candidates = [f for f in forms if f.index > 0] if submittable else list(forms)
    if not candidates:
        raise ConnectorRejected("This page has no form to " + ("submit." if submittable else "fill."))
    if wanted:
        key = wanted.strip()
        for form in candidates:
            if key in (str(form.index), form.id, form.name) and key:
                return form
        raise ConnectorRejected(f"This page has no form called {key!r}. {_listing(candidates)}")
    if field_names:
        holding = [f for f in candidates if all(_has_field(f, n) for n in field_names)]
        if holding:
            return holding[0]
        if len(candidates) == 1:
            return candidates[0]  # the field lookup will say which name is wrong
        raise ConnectorRejected(
            f"No single form on this page has all of the fields {', '.join(field_names)}. " + _listing(candidates)
        )
    with_fields = [f for f in candidates if any(x.visible for x in f.fields)] or candidates
    if len(with_fields) == 1:
        return with_fields[0]
    raise ConnectorRejected(f"This page has several forms; say which one. {_listing(with_fields)}")


def find_field(form: FormInfo, key: str) -> FormField:
    """The field named `key` (its name, id or label), or a rejection listing the real names."""
    for field in form.fields:
        if key in (field.name, field.id):
            return field
    lowered = key.strip().lower()
    for field in form.fields:
        if field.label and field.label.strip().lower() == lowered:
            return field
    names = ", ".join(f.key() for f in form.fields if f.visible and f.key()) or "none"
    raise ConnectorRejected(f"{form_label(form)} has no field {key!r}. Its fields are: {names}.")


def _has_field(form: FormInfo, key: str) -> bool:
    try:
        find_field(form, key)
    except ConnectorRejected:
        return False
    return True


def _listing(forms: list[FormInfo]) -> str:
    return "Forms here: " + "; ".join(form_label(f) for f in forms) + "."
