"""Pages only a person can get past: CAPTCHAs, two-factor codes, logins without a saved password.

Guessing at these is how agents get accounts locked, so the connector stops and raises
`NeedsHuman`; the agent then asks the user in the chat. Detection is pure: it reads a
`PageSnapshot` (widgets and fields found by the DOM walk, and telling phrases in the
title, headings or a short page), never the network.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deputy.core.records.effects import ConnectorError
from deputy.connectors.web.forms import host_of, is_password
from deputy.connectors.web.snapshot import FormField, PageSnapshot

_CAPTCHA_WORDS = re.compile(
    r"captcha|verify (that )?you are (a )?human|are you (a )?(human|robot)|i'?m not a robot|"
    r"checking your browser|unusual traffic|press (and|&) hold|human verification|security check",
    re.IGNORECASE,
)
_CODE_WORDS = re.compile(
    r"two.?factor|2.?step verification|2fa\b|verification code|authentication code|security code we sent|"
    r"enter the code|one.?time (pass)?code|authenticator app",
    re.IGNORECASE,
)
_CODE_NAME = re.compile(r"(^|[_-])(otp|totp|2fa|mfa|one.?time.?code|code|captcha)([_-]|$)", re.IGNORECASE)
_TYPABLE = {"", "text", "number", "tel", "search"}
_SHORT_PAGE = 1_500
"""A page with less text than this is about its form (a login or challenge page), not an article."""


@dataclass(frozen=True)
class CodeEntry:
    """The one field where what the user reads or receives (a one-time code, a CAPTCHA's answer) goes.

    Found by the connector from the live page, never named by the agent: the user's reply
    is typed here by the executor and the form sent, without the model seeing it.
    """

    form: int
    """1-based index of the form."""
    field: str
    """The field's name (or id)."""
    label: str


class NeedsHuman(ConnectorError):
    """The page wants a step only the user can do; `user_message` asks them to do it.

    A control signal, not a failure: the web runner turns it into a hand-off (the user is
    asked in the chat, with `screenshot`), and `entry`, when set, is where their answer goes.
    """

    retryable = False

    def __init__(self, user_message: str, *, reason: str, url: str, entry: CodeEntry | None = None) -> None:
        super().__init__(user_message, detail=reason)
        self.reason = reason
        """One of `captcha`, `two_factor`, `login`."""
        self.url = url
        self.entry = entry
        self.screenshot: bytes | None = None
        """A PNG of the page as it asked, attached where the page is open."""


def _telling_text(snapshot: PageSnapshot) -> str:
    """Where a phrase means what it says: the title and headings, or all of a short page."""
    total = sum(len(b.text) for b in snapshot.blocks)
    blocks = snapshot.blocks if total < _SHORT_PAGE else [b for b in snapshot.blocks if b.kind == "heading"]
    return "\n".join([snapshot.title, *(b.text for b in blocks)])


def is_login_wall(snapshot: PageSnapshot) -> bool:
    """A visible password field on a page that is mostly that form."""
    if not snapshot.signals.password_fields:
        return False
    content = sum(len(b.text) for b in snapshot.blocks if b.region != "boilerplate")
    return content < _SHORT_PAGE


def human_step(snapshot: PageSnapshot, *, has_login: bool) -> NeedsHuman | None:
    """The `NeedsHuman` this page calls for, or None when the agent can carry on."""
    site = host_of(snapshot.url) or "this site"
    text = _telling_text(snapshot)
    if snapshot.signals.captcha_widgets or _CAPTCHA_WORDS.search(text):
        return NeedsHuman(
            f'{site} wants to check that a person is visiting (a CAPTCHA or "verify you are human" step). '
            f"I can't get past that on my own: please do that step yourself at {snapshot.url}, "
            "then tell me how to continue.",
            reason="captcha",
            url=snapshot.url,
            entry=entry_for(snapshot, "captcha"),
        )
    if snapshot.signals.one_time_code_fields or (_CODE_WORDS.search(text) and _has_visible_input(snapshot)):
        return NeedsHuman(
            f"{site} is asking for a verification code (two-factor sign-in), which only you can provide. "
            f"Please do that sign-in step yourself at {snapshot.url}, then tell me how to continue.",
            reason="two_factor",
            url=snapshot.url,
            entry=entry_for(snapshot, "two_factor"),
        )
    if not has_login and is_login_wall(snapshot):
        return NeedsHuman(
            f"{site} wants you to sign in, and no login for {site} is saved for me. Please save one with "
            "/connect web (I use it without ever seeing the password), then tell me to continue.",
            reason="login",
            url=snapshot.url,
        )
    return None


def _has_visible_input(snapshot: PageSnapshot) -> bool:
    return any(f.visible and f.tag in ("input", "textarea") for form in snapshot.forms for f in form.fields)


def entry_for(snapshot: PageSnapshot, reason: str) -> CodeEntry | None:
    """Where the user's answer can be typed: a one-time-code field, or a form's single text field.

    None when there is no such field (a CAPTCHA widget in a frame, a login): then only the
    user can do the step, and the agent just waits for them.
    """
    for form in snapshot.forms:
        if form.index == 0 or any(is_password(f) for f in form.fields if f.visible):
            continue
        typable = [f for f in form.fields if f.visible and f.tag == "input" and f.type in _TYPABLE and f.key()]
        marked = [f for f in typable if f.autocomplete == "one-time-code" or _CODE_NAME.search(f.key())]
        if reason == "captcha":
            marked = [f for f in marked if "captcha" in f.key().lower()] or marked
        chosen = marked[0] if marked else (typable[0] if len(typable) == 1 else None)
        if chosen is not None:
            return CodeEntry(form=form.index, field=chosen.key(), label=_label(chosen))
    return None


def _label(field: FormField) -> str:
    return (field.label or field.key()).strip()[:80]
