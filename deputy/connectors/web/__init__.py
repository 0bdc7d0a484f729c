"""The web connector: a real Chromium, one browser per user, every request guarded.

Each user's cookies and local storage are kept sealed in Redis (`BrowserStates`) and
loaded by whichever executor runs the step.

Operations (`WEB_OPERATIONS`): `open_page`, `search_web`, `screenshot` (reads),
`fill_form`, `click`, `submit_form` (writes) and `submit_sensitive_form` (a write tagged
`share`). `WebRunners` runs them in the executor through `BrowserSessions`, with
Sentinel's egress review on every request (`deputy.connectors.web.guard`). Pages that need a
person (CAPTCHA, two-factor code, a login with no saved password) raise `NeedsHuman`.

This package's `__init__` loads nothing: import each module by its full path (only the executor
imports the runners).
"""
