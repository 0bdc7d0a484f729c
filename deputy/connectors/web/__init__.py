"""The web connector: a real Chromium, one browser per user, every request guarded.

Each user's cookies and local storage are kept sealed in Redis (`BrowserStates`) and
loaded by whichever executor runs the step.

Operations (`WEB_OPERATIONS`): `open_page`, `search_web`, `screenshot` (reads),
`fill_form`, `click`, `submit_form` (writes) and `submit_sensitive_form` (a write tagged
`share`). `WebRunners` runs them in the executor through `BrowserSessions`, with
Sentinel's egress review on every request (`deputy.connectors.web.guard`). Pages that need a
person (CAPTCHA, two-factor code, a login with no saved password) raise `NeedsHuman`.
"""

from deputy.connectors.web.browser import BrowserSessions
from deputy.connectors.web.states import BrowserStates, erase_browser_state
from deputy.connectors.web.extract import MAX_CHARS, readable_blocks, render_page
from deputy.connectors.web.forms import is_sensitive, sensitivity
from deputy.connectors.web.guard import Blocked, PageGuard
from deputy.connectors.web.human import NeedsHuman, human_step
from deputy.connectors.web.logins import (
    PASSWORD_PLACEHOLDER,
    USERNAME_PLACEHOLDER,
    NoLogins,
    VaultLogins,
    WebLogin,
    WebLogins,
)
from deputy.connectors.web.operations import (
    CLICK,
    FILL_FORM,
    OPEN_PAGE,
    SCREENSHOT,
    SEARCH_WEB,
    SUBMIT_FORM,
    SUBMIT_SENSITIVE_FORM,
    WEB_OPERATIONS,
)
from deputy.connectors.web.runners import DEFAULT_SEARCH_URL, ReviewFor, WebRunners
from deputy.connectors.web.session import CHROMIUM_ARGS, BrowserConfig, UserSession
from deputy.connectors.web.snapshot import PageSnapshot

__all__ = [
    "CHROMIUM_ARGS",
    "CLICK",
    "DEFAULT_SEARCH_URL",
    "FILL_FORM",
    "MAX_CHARS",
    "OPEN_PAGE",
    "PASSWORD_PLACEHOLDER",
    "SCREENSHOT",
    "SEARCH_WEB",
    "SUBMIT_FORM",
    "SUBMIT_SENSITIVE_FORM",
    "USERNAME_PLACEHOLDER",
    "WEB_OPERATIONS",
    "Blocked",
    "BrowserConfig",
    "BrowserSessions",
    "BrowserStates",
    "NeedsHuman",
    "NoLogins",
    "PageGuard",
    "PageSnapshot",
    "ReviewFor",
    "UserSession",
    "VaultLogins",
    "WebLogin",
    "WebLogins",
    "WebRunners",
    "erase_browser_state",
    "human_step",
    "is_sensitive",
    "readable_blocks",
    "render_page",
    "sensitivity",
]
