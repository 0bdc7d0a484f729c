"""Typing values into a form's fields, as a person would, with the vault's logins swapped in.

Rules that keep a hijacked agent in bounds: hidden fields and file inputs are never
touched (a hidden `amount` or `redirect` field is exactly what an injected instruction
would aim at); a password field only ever receives the saved login (`<vault:password>`),
never a value the agent made up; and a saved login is only used on its own sites, with
the password registered with the page guard so no request may carry it anywhere else.
"""

from __future__ import annotations

import json

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from deputy.core.records.effects import ConnectorError, ConnectorRejected
from deputy.connectors.web.forms import find_field, form_label, host_of, is_password
from deputy.connectors.web.guard import PageGuard
from deputy.connectors.web.logins import PASSWORD_PLACEHOLDER, USERNAME_PLACEHOLDER, WebLogin
from deputy.connectors.web.snapshot import FormField, FormInfo
from deputy.sentinel.egress.policy import SecretValue

_TRUE = {"true", "yes", "on", "1", "checked", "x"}
_FALSE = {"false", "no", "off", "0", "unchecked", ""}
_FIELD_TIMEOUT_MS = 5_000


async def fill_form_fields(
    page: Page, form: FormInfo, values: dict[str, str], login: WebLogin | None, guard: PageGuard
) -> list[str]:
    """Fill each named field; returns the field names filled. Raises ConnectorRejected for misuse."""
    scope: Page | Locator = page.locator("form").nth(form.index - 1) if form.index else page
    plan = [(find_field(form, key), key, value) for key, value in values.items()]
    for field, key, value in plan:
        _check_allowed(form, field, key, value)
    if login is not None:
        host = host_of(page.url) or ""
        guard.protect_secret(
            SecretValue(label=f"your password for {login.sites[0]}", value=login.password, domains=list(login.sites))
        )
        if not login.allowed_on(host):
            raise ConnectorRejected(f"The saved login is for {', '.join(login.sites)}, not for {host}.")
    filled = []
    for field, key, value in plan:
        actual = _resolve(value, login)
        try:
            await _fill_one(scope, field, actual)
        except ConnectorError:
            raise
        except PlaywrightError as exc:
            # The message may quote the value: never pass it on (it can be a password).
            detail = type(exc).__name__
            failure = ConnectorRejected(f"I couldn't fill the field {key!r} of {form_label(form)}.", detail=detail)
        else:
            filled.append(key)
            continue
        raise failure
    return filled


def _check_allowed(form: FormInfo, field: FormField, key: str, value: str) -> None:
    if not field.visible:
        raise ConnectorRejected(f"The field {key!r} is hidden on the page; I only fill fields a person can see.")
    if field.type == "file":
        raise ConnectorRejected(f"The field {key!r} uploads a file; I don't upload files.")
    if field.type in ("submit", "button", "image", "reset"):
        raise ConnectorRejected(f"{key!r} is a button, not a field.")
    if is_password(field) and value != PASSWORD_PLACEHOLDER:
        raise ConnectorRejected(
            f"The field {key!r} is a password field: fill it with {PASSWORD_PLACEHOLDER} so I use the saved login."
        )
    if value == PASSWORD_PLACEHOLDER and not is_password(field):
        raise ConnectorRejected(f"{PASSWORD_PLACEHOLDER} only goes into password fields; {key!r} is not one.")


def _resolve(value: str, login: WebLogin | None) -> str:
    if login is not None and value == PASSWORD_PLACEHOLDER:
        return login.password.get_secret_value()
    if login is not None and value == USERNAME_PLACEHOLDER:
        return login.username
    return value


def _selector(field: FormField) -> str:
    # json.dumps gives a double-quoted string with quotes and backslashes escaped, as CSS wants.
    if field.name:
        return f"[name={json.dumps(field.name)}]"
    return f"[id={json.dumps(field.id)}]"


async def _fill_one(scope: Page | Locator, field: FormField, value: str) -> None:
    if field.type == "radio":
        option = scope.locator(f"input[type=radio]{_selector(field)}[value={json.dumps(value)}]")
        if not await option.count():
            option = scope.locator(f"input[type=radio]{_selector(field)}").and_(scope.get_by_label(value, exact=True))
        if not await option.count():
            raise ConnectorRejected(f"The choice {value!r} is not one of the options of {field.key()!r}.")
        await option.first.check(timeout=_FIELD_TIMEOUT_MS)
        return
    element = scope.locator(_selector(field)).first
    if field.type == "checkbox":
        wanted = value.strip().lower()
        if wanted not in _TRUE | _FALSE:
            raise ConnectorRejected(f"{field.key()!r} is a checkbox: give true or false.")
        await element.set_checked(wanted in _TRUE, timeout=_FIELD_TIMEOUT_MS)
        return
    if field.tag == "select":
        known = await element.evaluate(
            "(s, v) => [...s.options].some(o => o.value === v || o.label === v || o.text.trim() === v)", value
        )
        if not known:
            choices = ", ".join(field.options) or "none"
            raise ConnectorRejected(f"{value!r} is not one of the options of {field.key()!r} ({choices}).")
        await element.select_option(value, timeout=_FIELD_TIMEOUT_MS)
        return
    await element.fill(value, timeout=_FIELD_TIMEOUT_MS)
