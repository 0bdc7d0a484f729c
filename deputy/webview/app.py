"""The private web view: an aiohttp app serving one user's goals, actions, audit trail and money.

A `/web` link from the chat opens a session (`deputy.core.accounts.web_sessions`) whose cookie
is bound to that user; every page shows only that user's records (another user's goal is a 403),
and a confidential user who is locked sees only "unlock first". Approve and Deny on a page go
through the chat's own press handling (`deputy.bot.presses.decide_press`), so an answer counts
once across both, and the chat's card is edited as a press would edit it.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from typing import Awaitable, Callable

from aiohttp import web

from deputy.bot.presses import decide_press
from deputy.bot.send_window_presses import press_send_window, press_undo_write
from deputy.bot.services import BotServices
from deputy.core.accounts.web_sessions import SESSION_SECONDS, WebSessions, form_token
from deputy.core.confidential import Locked, confidential_keys
from deputy.core.records.outbox import Outbox, OutboxMessage
from deputy.sentinel.stores.approvals import Choice
from deputy.webview.goal_pages import goal_body, goals_body
from deputy.webview.layout import page
from deputy.webview.money_page import money_body
from deputy.webview.record_pages import audit_body
from deputy.webview.story import goal_story, undo_offered

log = logging.getLogger(__name__)

COOKIE = "deputy_web"
_GONE = "This link has expired or was already used. Send /web in the chat for a new one."
_SIGN_IN = "This page opens from a link in the chat: send /web to Deputy for a private link."
_LOCKED = ("🔒 Your data is locked (confidential mode), so nothing can be shown. Unlock first: send /unlock in "
           "the chat, then reload this page.")

Handler = Callable[[web.Request, int, str], Awaitable[web.StreamResponse]]


def create_app(services: BotServices, secret: str, *, secure_cookie: bool = False,
               sessions: WebSessions | None = None) -> web.Application:
    """The web view over `services` (the bot's stores and press handling); `secret` binds the pages'
    forms to their session."""
    sessions = sessions or WebSessions(services.redis)
    keys = confidential_keys(services.redis)
    outbox = Outbox(services.redis)

    def signed_in(handler: Handler) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def wrapped(request: web.Request) -> web.StreamResponse:
            session = request.cookies.get(COOKIE)
            user_id = sessions.user_of(session)
            if user_id is None or session is None:
                return page("Private page", f"<p>{_SIGN_IN}</p>", status=401, nav=False)
            if keys.enabled(user_id) and keys.is_locked(user_id):
                return page("Unlock first", f"<p class='notice'>{_LOCKED}</p>", nav=False)
            try:
                return await handler(request, user_id, session)
            except Locked:
                return page("Unlock first", f"<p class='notice'>{_LOCKED}</p>", nav=False)
        return wrapped

    async def show_link(request: web.Request) -> web.Response:
        token = request.match_info["token"]
        if not sessions.link_valid(token):
            return page("Link expired", f"<p>{_GONE}</p>", status=410, nav=False)
        return page("Your private Deputy page", (
            "<p>This opens your goals, what Deputy read, every action and why, your audit trail and money, in "
            "this browser, for a few hours. The link works once.</p><form method='post'>"
            "<button class='open' type='submit'>Open my Deputy</button></form>"), nav=False)

    async def open_link(request: web.Request) -> web.StreamResponse:
        opened = sessions.open(request.match_info["token"])
        if opened is None:
            return page("Link expired", f"<p>{_GONE}</p>", status=410, nav=False)
        user_id, session = opened
        services.audit.append(user_id, "web_session_opened", services.clock())
        response = web.HTTPSeeOther("/web/goals")
        response.set_cookie(COOKIE, session, max_age=SESSION_SECONDS, httponly=True, samesite="Strict",
                            secure=secure_cookie, path="/web")
        return response

    async def goals(request: web.Request, user_id: int, session: str) -> web.Response:
        listed = await asyncio.to_thread(services.goals.recent, user_id, 100)
        return page("Your goals", goals_body(listed), current="goals")

    async def goal(request: web.Request, user_id: int, session: str) -> web.Response:
        goal_id = request.match_info["goal_id"]
        owner = services.goals.owner(goal_id)
        if owner is None:
            return page("Not found", "<p>There is no such goal.</p>", status=404)
        if owner != user_id:
            return page("Not yours", "<p>This goal belongs to someone else.</p>", status=403)
        found = await asyncio.to_thread(services.goals.get, goal_id)
        if found is None:
            return page("Not found", "<p>There is no such goal.</p>", status=404)
        steps = await asyncio.to_thread(goal_story, services.redis, services.goals, services.audit, found,
                                        services.clock())
        title = found.text if len(found.text) <= 80 else found.text[:79] + "…"
        return page(title, goal_body(found, steps, form_token(session, secret)), current="goals")

    async def audit(request: web.Request, user_id: int, session: str) -> web.Response:
        return page("Audit trail", await asyncio.to_thread(audit_body, services, user_id), current="audit")

    async def money(request: web.Request, user_id: int, session: str) -> web.Response:
        return page("Money", await asyncio.to_thread(money_body, services, user_id, services.clock()), current="money")

    async def decide(request: web.Request, user_id: int, session: str) -> web.Response:
        form = await request.post()
        if not hmac.compare_digest(str(form.get("form", "")), form_token(session, secret)):
            return page("Not accepted", "<p>This form is not from your page. Reload it and try again.</p>",
                        status=403)
        choice = {"approve": Choice.approve, "deny": Choice.deny}.get(str(form.get("choice", "")))
        approval_id = request.match_info["approval_id"]
        stored = services.approvals.get(approval_id)
        if choice is None or stored is None:
            return page("Not found", "<p>There is no such question (it may be gone).</p>", status=404)
        request_, _ = stored
        if request_.user_id != user_id:
            return page("Not yours", "<p>Only the person this request belongs to can answer it.</p>", status=403)
        answer = decide_press(services, services.signer.button_data(approval_id, choice, user_id), user_id)
        if answer.card_suffix:  # the chat's card changes as if its button had been pressed
            outbox.put(OutboxMessage(chat_id=request_.chat_id, text=f"{request_.card_text}\n\n{answer.card_suffix}",
                                     edit_ref=f"card:{approval_id}", dedupe_key=f"web-decided:{approval_id}"))
        return page(answer.toast.split(".")[0], f"<p class='notice' role='status'>{answer.toast}</p><p><a href='"
                    f"/web/goal/{request_.goal_id}'>Back to the goal</a></p>", current="goals")

    async def undo(request: web.Request, user_id: int, session: str) -> web.Response:
        form = await request.post()
        if not hmac.compare_digest(str(form.get("form", "")), form_token(session, secret)):
            return page("Not accepted", "<p>This form is not from your page. Reload it and try again.</p>",
                        status=403)
        action_id = request.match_info["action_id"]
        record = services.actions.get(action_id)
        if record is None:
            return page("Not found", "<p>There is no such action (it may be gone).</p>", status=404)
        if record.action.user_id != user_id:
            return page("Not yours", "<p>Only the person this action belongs to can undo it.</p>", status=403)
        # The chat's own Undo: the message's or the change's record decides once, whichever is pressed first.
        kind = undo_offered(services.redis, action_id, services.clock())
        answer = press_undo_write(services, action_id, user_id) if kind == "change" else \
            press_send_window(services, "su", action_id, user_id)
        return page(answer.toast.split(".")[0].split("…")[0], f"<p class='notice' role='status'>{answer.toast}</p>"
                    f"<p><a href='/web/goal/{record.action.goal_id}'>Back to the goal</a></p>", current="goals")

    async def home(request: web.Request) -> web.StreamResponse:
        raise web.HTTPSeeOther("/web/goals")

    async def healthz(request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    app = web.Application(client_max_size=16 * 1024)
    app.add_routes([
        web.get("/web/open/{token}", show_link), web.post("/web/open/{token}", open_link),
        web.get("/web/goals", signed_in(goals)), web.get("/web/goal/{goal_id}", signed_in(goal)),
        web.get("/web/audit", signed_in(audit)), web.get("/web/money", signed_in(money)),
        web.post("/web/decide/{approval_id}", signed_in(decide)), web.post("/web/undo/{action_id}", signed_in(undo)),
        web.get("/", home), web.get("/web", home), web.get("/healthz", healthz),
    ])
    return app
