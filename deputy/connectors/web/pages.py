"""What the web operations do inside the user's tab: read, fill, submit, click, screenshot.

Every function here is a coroutine run by `BrowserSessions.run` on the browser's loop; they
return plain data and raise only `ConnectorError`s. What the page says about itself is
untrusted: forms are re-read from the live page just before they are filled or sent, and
the address a form sends to is checked against the one the guard reviewed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page
from pydantic import SecretStr, ValidationError

from deputy.core.records.effects import ConnectorError, ConnectorRejected
from deputy.connectors.web.fields import fill_form_fields
from deputy.connectors.web.forms import choose_form, find_field, host_of, is_password, same_site, sensitivity
from deputy.connectors.web.guard import Blocked
from deputy.connectors.web.human import CodeEntry, NeedsHuman, human_step
from deputy.connectors.web.logins import PASSWORD_PLACEHOLDER, USERNAME_PLACEHOLDER, WebLogin, WebLogins
from deputy.connectors.web.navigation import act_and_follow, at, failure_for, goto, same_page
from deputy.connectors.web.session import UserSession
from deputy.connectors.web.snapshot import (
    MAX_BLOCKS,
    MAX_FIELDS,
    MAX_FORMS,
    SNAPSHOT_JS,
    FormButton,
    FormInfo,
    PageSnapshot,
)
from deputy.sentinel.egress.policy import SecretValue

SNAPSHOT_LIMITS = {
    "maxChars": 100_000,
    "maxNodes": 60_000,
    "maxBlocks": MAX_BLOCKS,
    "maxForms": MAX_FORMS,
    "maxFields": MAX_FIELDS,
}
MAX_SCREENSHOT_HEIGHT = 8_000
MAX_SCREENSHOT_BYTES = 9 * 1024 * 1024
"""Below Telegram's 10 MB for a photo; a larger PNG is taken again as a JPEG."""


@dataclass
class PageRead:
    """A page as read after an operation, with what the guard stopped meanwhile."""

    snapshot: PageSnapshot
    status: int | None = None
    blocked: list[Blocked] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    """Values the runner must scrub from anything it returns (a filled password)."""
    incomplete: bool = False
    """The page was still loading when it was read."""


async def snapshot_of(page: Page) -> PageSnapshot:
    """The page's visible content, validated; a page that breaks the walk is a rejection."""
    try:
        raw = await page.evaluate(SNAPSHOT_JS, SNAPSHOT_LIMITS)
        return PageSnapshot.model_validate(raw)
    except (PlaywrightError, ValidationError) as exc:
        detail = f"{type(exc).__name__}: {str(exc)[:300]}"
    raise ConnectorRejected(f"I couldn't make sense of the page at {host_of(page.url) or page.url}.", detail=detail)


async def read(session: UserSession, page: Page, logins: WebLogins, status: int | None = None) -> PageRead:
    """Read the page, stopping with `NeedsHuman` when it wants a CAPTCHA, a code or an unsaved login."""
    snapshot = await snapshot_of(page)
    host = host_of(snapshot.url)
    has_login = bool(host) and await asyncio.to_thread(logins.has_login, session.user_id, host)
    needed = human_step(snapshot, has_login=has_login)
    if needed is not None:
        raise await with_picture(page, needed)
    return PageRead(snapshot, status, session.guard.reportable(), incomplete=session.incomplete)


async def open_page(session: UserSession, url: str, logins: WebLogins) -> PageRead:
    page, status = await goto(session, url)
    return await read(session, page, logins, status)


async def fill(
    session: UserSession, url: str, values: dict[str, str], form_key: str | None, logins: WebLogins
) -> tuple[FormInfo, list[str], PageRead]:
    """Fill fields of a form on `url` (loaded if not open); returns the form, the names filled, the page."""
    page = await at(session, url)
    snapshot = await _before_acting(page)
    form = choose_form(snapshot.forms, form_key, list(values), submittable=False)
    login = await _login_if_needed(session, snapshot.url, values, logins)
    filled = await fill_form_fields(page, form, values, login, session.guard)
    return form, filled, PageRead(snapshot, None, session.guard.reportable(), _secrets(login))


async def submit(
    session: UserSession,
    url: str,
    form_key: str | None,
    action_url: str,
    values: dict[str, str],
    button: str | None,
    *,
    sensitive_allowed: bool,
    logins: WebLogins,
) -> PageRead:
    """Fill (optionally) and send a form, after checking where it sends and whether it is sensitive."""
    page = await at(session, url)
    snapshot = await _before_acting(page)
    form = choose_form(snapshot.forms, form_key, list(values), submittable=True)
    chosen = _choose_button(form, button)
    destination = chosen.formaction if chosen is not None and chosen.formaction else (form.action or snapshot.url)
    if not same_page(destination, action_url):
        raise ConnectorRejected(
            f"That form sends to {destination}, not to {action_url}. Read the page again and "
            "give the address it shows as action_url."
        )
    reasons = sensitivity(form, snapshot.url)
    if reasons and not sensitive_allowed:
        raise ConnectorRejected(
            f"This form is sensitive ({'; '.join(reasons)}), so it must be sent with "
            "submit_sensitive_form, which asks the user first."
        )
    login = await _login_if_needed(session, snapshot.url, values, logins)
    if values:
        await fill_form_fields(page, form, values, login, session.guard)
    return await submit_and_read(session, page, form, chosen, destination, logins, _secrets(login))


async def submit_and_read(
    session: UserSession, page: Page, form: FormInfo, chosen: FormButton | None, destination: str,
    logins: WebLogins, secrets: list[str],
) -> PageRead:
    """Submit a filled form (with its chosen button, if any), follow where it leads and read that page.

    `secrets` are the values typed into it that the reader must scrub from what it returns.
    """
    form_locator = _form_locator(page, form)
    session.guard.expect_submit(destination)

    async def send() -> None:
        session.form_sent = True  # from here on, a dead browser leaves the outcome unknown
        if chosen is not None:
            await _press(form_locator, form, chosen)
        else:
            await form_locator.evaluate("f => f.requestSubmit()")

    page = await act_and_follow(session, page, send)
    result = await read(session, page, logins)
    result.secrets = secrets
    return result


async def click(session: UserSession, url: str, text: str, logins: WebLogins) -> PageRead:
    """Click the visible link or button whose text is `text` and read what follows."""
    page = await at(session, url)
    target = await _clickable(page, text)
    submits = await target.evaluate(
        "e => { const b = e.closest('button,input'); return !!(b && b.form && ['submit','image'].includes(b.type)); }"
    )
    if submits:
        raise ConnectorRejected(
            f"“{text}” sends a form; use submit_form (or submit_sensitive_form) for that, so the form can be reviewed."
        )
    page = await act_and_follow(session, page, lambda: target.click())
    return await read(session, page, logins)


async def screenshot(session: UserSession, url: str | None, full_page: bool) -> tuple[str, int, int, bytes]:
    """A picture of the tab (after loading `url` if given): the page address, the image size and its bytes."""
    if url:
        page = await at(session, url)
    else:
        page = await session.page()
        if page.url.startswith(("about:", "chrome-error:")):
            raise ConnectorRejected("No page is open yet; give the address to take a screenshot of.")
    size = page.viewport_size or {"width": 1280, "height": 900}
    width, height = size["width"], size["height"]
    clip = None
    try:
        if full_page:
            height = min(int(await page.evaluate("document.documentElement.scrollHeight")), MAX_SCREENSHOT_HEIGHT)
            clip = {"x": 0, "y": 0, "width": width, "height": height}
        image = await page.screenshot(type="png", full_page=full_page, clip=clip)
        if len(image) > MAX_SCREENSHOT_BYTES:
            image = await page.screenshot(type="jpeg", quality=70, full_page=full_page, clip=clip)
    except PlaywrightError as exc:
        failure: ConnectorError = failure_for(str(exc), page.url, session.guard)
    else:
        return page.url, width, height, image
    raise failure


async def with_picture(page: Page, needed: NeedsHuman) -> NeedsHuman:
    """`needed` with a screenshot of the page attached, so the user sees what it asks (best effort)."""
    try:
        needed.screenshot = await page.screenshot(type="png", timeout=10_000)
    except PlaywrightError:
        needed.screenshot = None
    return needed


async def enter_code(session: UserSession, url: str, entry: CodeEntry, code: str, logins: WebLogins) -> PageRead:
    """Type the user's code (or CAPTCHA answer) into the field the page asked for, send its form, read the result.

    The field was chosen by the connector when the page asked, not by the agent; the form
    must still be there, still send to the same site, and the code may go nowhere else.
    """
    page = await at(session, url)
    snapshot = await snapshot_of(page)
    form = next((f for f in snapshot.forms if f.index == entry.form), None)
    if form is None:
        raise ConnectorRejected("The page changed and no longer asks for the code; ask me to look at it again.")
    field = find_field(form, entry.field)
    if not field.visible or is_password(field) or field.type not in ("", "text", "number", "tel", "search"):
        raise ConnectorRejected("The page changed and no longer asks for the code; ask me to look at it again.")
    destination = form.action or snapshot.url
    if not same_site(destination, snapshot.url):
        raise ConnectorRejected(f"That form sends to {host_of(destination) or destination}, not to the page's own site.")
    host = host_of(snapshot.url) or ""
    # The code may only travel to the site that asked for it, like a saved password.
    session.guard.protect_secret(SecretValue(label="the code you sent", value=SecretStr(code), domains=[host]))
    await fill_form_fields(page, form, {entry.field: code}, None, session.guard)
    form_locator = _form_locator(page, form)
    session.guard.expect_submit(destination)
    chosen = _choose_button(form, None)

    async def send() -> None:
        session.form_sent = True  # from here on, a dead browser leaves the outcome unknown
        if chosen is not None:
            await _press(form_locator, form, chosen)
        else:
            await form_locator.evaluate("f => f.requestSubmit()")

    page = await act_and_follow(session, page, send)
    result = await read(session, page, logins)
    result.secrets = [code]
    return result


async def _before_acting(page: Page) -> PageSnapshot:
    snapshot = await snapshot_of(page)
    needed = human_step(snapshot, has_login=True)
    if needed is not None and needed.reason == "captcha":
        raise await with_picture(page, needed)
    return snapshot


async def _login_if_needed(
    session: UserSession, page_url: str, values: dict[str, str], logins: WebLogins
) -> WebLogin | None:
    if not any(v in (PASSWORD_PLACEHOLDER, USERNAME_PLACEHOLDER) for v in values.values()):
        return None
    host = host_of(page_url) or ""
    login = await asyncio.to_thread(logins.login_for, session.user_id, host) if host else None
    if login is None or not login.allowed_on(host):
        needed = NeedsHuman(
            f"{host or 'This site'} wants you to sign in, and no login for it is saved for me. Please save one "
            "with /connect web (I use it without ever seeing the password), then tell me to continue.",
            reason="login",
            url=page_url,
        )
        raise await with_picture(await session.page(), needed)
    return login


def _secrets(login: WebLogin | None) -> list[str]:
    return [login.password.get_secret_value()] if login is not None else []


def _form_locator(page: Page, form: FormInfo) -> Locator:
    return page.locator("form").nth(form.index - 1)


def _choose_button(form: FormInfo, text: str | None) -> FormButton | None:
    submitters = [b for b in form.buttons if b.submits]
    if text is None:
        return submitters[0] if submitters else None
    wanted = text.strip().lower()
    for button in submitters:
        if button.text.strip().lower() == wanted:
            return button
    shown = ", ".join(f"“{b.text}”" for b in submitters if b.text) or "none"
    raise ConnectorRejected(f"The form has no submit button “{text}”. Its submit buttons are: {shown}.")


async def _press(form: Locator, form_info: FormInfo, button: FormButton) -> None:
    """Click the submit button as a person would; if it has no accessible name, click it by position."""
    by_role = form.get_by_role("button", name=button.text, exact=True).filter(visible=True)
    if button.text and await by_role.count():
        await by_role.first.click()
        return
    position = form_info.buttons.index(button)
    await form.evaluate(_CLICK_NTH_BUTTON, position)


# The same button list as the snapshot's (buttons and button-like inputs, resets left out).
_CLICK_NTH_BUTTON = """(f, i) => {
  const bs = [...f.elements].filter(e => e.tagName === 'BUTTON' ||
    (e.tagName === 'INPUT' && ['submit', 'image', 'button'].includes((e.type || '').toLowerCase())))
    .filter(e => (e.type || '').toLowerCase() !== 'reset');
  bs[i].click();
}"""


async def _clickable(page: Page, text: str) -> Locator:
    for exact in (True, False):
        for candidate in (
            page.get_by_role("link", name=text, exact=exact),
            page.get_by_role("button", name=text, exact=exact),
            page.get_by_text(text, exact=exact),
        ):
            visible = candidate.filter(visible=True)
            if await visible.count():
                return visible.first
    raise ConnectorRejected(f"I couldn't find a visible link or button saying “{text}” on this page.")
