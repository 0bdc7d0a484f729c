"""The executor's side of the web connector: run an approved web action in the user's browser.

`WebRunners(...).runners()` maps `"web.<operation>"` to a callable taking the `Action` and
its idempotency key. Everything a page says comes back as an `OperationResult` labelled
with where it came from, so the agent sees it as untrusted and the guard remembers it.
Egress: `review_for(action)` gives the Sentinel `Reviewer` for that action's user and goal
(policy and context bound); every request the browser makes during the operation passes
it, and between operations nothing leaves the browser at all.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar
from urllib.parse import quote_plus

from pydantic import BaseModel, ValidationError

from deputy.core.records.effects import ConnectorRejected, OperationResult
from deputy.connectors.web import pages
from deputy.connectors.web.browser import BrowserSessions
from deputy.connectors.web.extract import MAX_CHARS, render_page
from deputy.connectors.web.forms import form_label
from deputy.connectors.web.guard import Blocked
from deputy.connectors.web.checkout import pay, take_card
from deputy.connectors.web.operations import PayArgs
from deputy.connectors.web.human import CodeEntry, NeedsHuman
from deputy.connectors.web.logins import NoLogins, WebLogins
from deputy.connectors.web.operations import (
    ClickArgs,
    FillFormArgs,
    OpenPageArgs,
    ScreenshotArgs,
    SearchArgs,
    SubmitFormArgs,
)
from deputy.connectors.web.session import UserSession
from deputy.connectors.web.slots import waiting_text
from deputy.core.records.actions import Action
from deputy.sentinel.egress.policy import Reviewer
from deputy.sentinel.policy import Verdict

DEFAULT_SEARCH_URL = "http://127.0.0.1:8095/search?q={query}"
"""The sandbox world's search page; operators point `search_url` at a real engine."""

T = TypeVar("T")
A = TypeVar("A", bound=BaseModel)

ReviewFor = Callable[[Action], Reviewer]
"""Gives the Sentinel egress review for an action: the operator's policy bound to that goal's context."""
WebRunner = Callable[[Action, str], OperationResult]
ShowUser = Callable[[Action, bytes, str, str], None]
"""Sends an image to the action's chat as a photo: (action, image, caption, dedupe key)."""
TellUser = Callable[[Action, str, str], None]
"""Sends a short notice to the action's chat: (action, text, dedupe key)."""
HandOffRecorder = Callable[[Action, NeedsHuman], str]
"""Records that a page needs the user (the goal runner then asks them); returns the agent's result text."""


class WebRunners:
    """Runs web actions for every user through `sessions`; see the module docstring."""

    def __init__(
        self,
        sessions: BrowserSessions,
        review_for: ReviewFor,
        *,
        search_url: str = DEFAULT_SEARCH_URL,
        logins: WebLogins | None = None,
        max_chars: int = MAX_CHARS,
        show_user: ShowUser | None = None,
        handoffs: HandOffRecorder | None = None,
        tell_user: TellUser | None = None,
    ) -> None:
        if "{query}" not in search_url:
            raise ValueError("search_url needs a {query} placeholder")
        self._sessions = sessions
        self._review_for = review_for
        self._search_url = search_url
        self._logins: WebLogins = logins or NoLogins()
        self._max_chars = max_chars
        self._show_user = show_user
        self._handoffs = handoffs
        self._tell_user = tell_user

    def runners(self) -> dict[str, WebRunner]:
        """The executor's runner for each web operation, keyed `"web.<operation>"`.

        With a hand-off recorder, a page that needs the user (`NeedsHuman`) is recorded for
        the goal runner to ask them, and the agent is told so; without one it is a failure.
        """
        runners = {
            "web.open_page": self.open_page,
            "web.search_web": self.search_web,
            "web.fill_form": self.fill_form,
            "web.submit_form": self.submit_form,
            "web.submit_sensitive_form": self.submit_sensitive_form,
            "web.click": self.click,
            "web.screenshot": self.screenshot,
            "web.pay_on_page": self.pay_on_page,
        }
        return {name: self._handing_off(run) for name, run in runners.items()}

    def _handing_off(self, run: WebRunner) -> WebRunner:
        def runner(action: Action, idempotency_key: str) -> OperationResult:
            try:
                return run(action, idempotency_key)
            except NeedsHuman as needed:
                if self._handoffs is None:
                    raise
                summary, url = self._handoffs(action, needed), needed.url
            return OperationResult(summary=summary, untrusted_origin=f"the web page {url}")

        return runner

    def enter_code(self, action: Action, url: str, entry: CodeEntry, code: str) -> str:
        """Type the user's `code` into `entry` on `url` and send it; the address of the page that follows.

        Raises `NeedsHuman` when the page still (or again) needs the user, e.g. a wrong code.
        """
        read = self._run(action, lambda s: pages.enter_code(s, url, entry, code, self._logins))
        return read.snapshot.url

    def open_page(self, action: Action, idempotency_key: str) -> OperationResult:
        args = _arguments(OpenPageArgs, action)
        read = self._run(action, lambda s: pages.open_page(s, args.url, self._logins))
        return self._page_result(read)

    def search_web(self, action: Action, idempotency_key: str) -> OperationResult:
        args = _arguments(SearchArgs, action)
        url = self._search_url.replace("{query}", quote_plus(args.query))
        read = self._run(action, lambda s: pages.open_page(s, url, self._logins))
        return self._page_result(read, origin=f"the web search results page {read.snapshot.url}")

    def fill_form(self, action: Action, idempotency_key: str) -> OperationResult:
        args = _arguments(FillFormArgs, action)
        form, filled, read = self._run(
            action, lambda s: pages.fill(s, args.url, dict(args.fields), args.form, self._logins)
        )
        summary = f"Filled {', '.join(filled)} in {form_label(form)} on {read.snapshot.url}. Nothing was sent yet."
        notes = _blocked_notes(read.blocked)
        if notes:
            summary += "\n" + "\n".join(f"- {n}" for n in notes)
        # The form's name and the address come from the page: labelled like any page content.
        return OperationResult(
            summary=_scrub(summary, read.secrets), untrusted_origin=f"the web page {read.snapshot.url}"
        )

    def submit_form(self, action: Action, idempotency_key: str) -> OperationResult:
        return self._submit(action, sensitive_allowed=False)

    def submit_sensitive_form(self, action: Action, idempotency_key: str) -> OperationResult:
        return self._submit(action, sensitive_allowed=True)

    def click(self, action: Action, idempotency_key: str) -> OperationResult:
        args = _arguments(ClickArgs, action)
        read = self._run(action, lambda s: pages.click(s, args.url, args.text, self._logins))
        return self._page_result(read, lead=f"Clicked “{args.text}”.")

    def screenshot(self, action: Action, idempotency_key: str) -> OperationResult:
        """The picture goes to the user's chat as a photo; the agent only learns that it was sent."""
        args = _arguments(ScreenshotArgs, action)
        if self._show_user is None:
            raise ConnectorRejected("Screenshots can't be shown in this chat.")
        url, width, height, image = self._run(action, lambda s: pages.screenshot(s, args.url, args.full_page))
        try:
            # Keyed by the idempotency key: a retried action sends the picture once.
            self._show_user(action, image, f"Screenshot of {url}", f"shot:{idempotency_key}")
        except ValueError:
            raise ConnectorRejected("That screenshot is too large to send; try one without full_page.") from None
        return OperationResult(
            summary=f"Screenshot of {url} ({width}x{height}) sent to the user.",
            untrusted_origin=f"the web page {url}",
        )

    def pay_on_page(self, action: Action, idempotency_key: str) -> OperationResult:
        """Only with the single-use card the executor minted for this very action (`checkout`)."""
        args = _arguments(PayArgs, action)
        card = take_card(action.id)
        if card is None:
            raise ConnectorRejected("There is no approved card payment for this; nothing was paid.")
        read = self._run(action, lambda s: pay(s, args, card, self._logins))
        return self._page_result(read, lead=f"Paid on {args.action_url}. The page that came back:")

    def _submit(self, action: Action, *, sensitive_allowed: bool) -> OperationResult:
        args = _arguments(SubmitFormArgs, action)
        read = self._run(
            action,
            lambda s: pages.submit(
                s,
                args.url,
                args.form,
                args.action_url,
                dict(args.fields),
                args.button,
                sensitive_allowed=sensitive_allowed,
                logins=self._logins,
            ),
        )
        return self._page_result(read, lead=f"Sent the form to {args.action_url}. The page that came back:")

    def _run(self, action: Action, work: Callable[[UserSession], Awaitable[T]]) -> T:
        tell = self._tell_user

        def waiting(ahead: int) -> None:
            if tell is not None:
                # Once per action: a retried job that waits again does not say it twice.
                tell(action, waiting_text(ahead), f"browser-wait:{action.id}")

        return self._sessions.run(action.user_id, self._review_for(action), work, on_wait=waiting)

    def _page_result(self, read: pages.PageRead, *, origin: str | None = None, lead: str = "") -> OperationResult:
        notes = _blocked_notes(read.blocked)
        if read.status is not None and read.status >= 400:
            notes.insert(0, f"The site answered with HTTP status {read.status}.")
        if read.incomplete:
            notes.append("The page was still loading; this is what had arrived.")
        text = render_page(read.snapshot, notes=notes, max_chars=self._max_chars)
        summary = f"{lead}\n{text}" if lead else text
        return OperationResult(
            summary=_scrub(summary, read.secrets),
            untrusted_origin=origin or f"the web page {read.snapshot.url}",
        )


def _arguments(model: type[A], action: Action) -> A:
    """The action's arguments, checked again here: the executor must not trust what it was handed."""
    try:
        return model.model_validate(action.arguments)
    except ValidationError:
        raise ConnectorRejected(f"The arguments for web.{action.operation} are not valid.") from None


def _blocked_notes(blocked: list[Blocked], limit: int = 5) -> list[str]:
    """One line per blocked host: what Deputy's network guard stopped during the operation, and why."""
    by_host: dict[str, list[Blocked]] = {}
    for item in blocked:
        by_host.setdefault(item.host, []).append(item)
    notes = []
    for host, items in list(by_host.items())[:limit]:
        verb = "held back (needs approval)" if items[0].decision.verdict is Verdict.ask else "blocked"
        count = f"{len(items)} requests" if len(items) > 1 else "a request"
        notes.append(f"Deputy's network guard {verb} {count} to {host}: {' '.join(items[0].decision.reasons)}")
    if len(by_host) > limit:
        notes.append(f"…and requests to {len(by_host) - limit} more sites were blocked.")
    return notes


def _scrub(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text
