"""Pages of the sandbox shop that only a person can get past: a one-time-code sign-in and a CAPTCHA.

They exist so the hand-off (Deputy asking the user in the chat) can be tried and tested
against a real site:

- `/account/login`: sign in with an email address; a six-digit code is "texted" to the
  demo user's phone (`/phone`, the page a person would look at), and `/account/verify`
  asks for it (an `autocomplete=one-time-code` field). A right code signs the browser in
  (`/account`); a wrong one asks again.
- `/deals`: behind `/human-check`, a CAPTCHA: five characters drawn in an image (not in the
  page's text), typed into a field. A right answer lets the browser through. Like many simple
  CAPTCHAs it is bound to the browser (a cookie): reloading shows the same characters until
  they are answered, and a wrong answer draws new ones.

Cookies are persistent (ten minutes), as many sites do, so a browser profile that is
closed and opened again between two steps is still mid-sign-in.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field

from aiohttp import web

from deputy.sandbox.webapp_common import esc, page

DEMO_EMAIL = "demo@sandbox.local"
PENDING_COOKIE = "sandbox_pending"
SESSION_COOKIE = "sandbox_session"
HUMAN_COOKIE = "sandbox_human"
CHALLENGE_COOKIE = "sandbox_challenge"
_COOKIE_AGE = 600
_CAPTCHA_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I look-alikes


@dataclass
class AccountDesk:
    """Sign-ins waiting for their code, signed-in sessions, CAPTCHA challenges, and the phone's texts."""

    pending: dict[str, tuple[str, str]] = field(default_factory=dict)  # pending id -> (email, code)
    sessions: dict[str, str] = field(default_factory=dict)  # session id -> email
    challenges: dict[str, str] = field(default_factory=dict)  # challenge id -> answer
    passed: set[str] = field(default_factory=set)
    texts: list[str] = field(default_factory=list)

    def start_sign_in(self, email: str) -> str:
        code = f"{secrets.randbelow(1_000_000):06d}"
        pending_id = secrets.token_urlsafe(12)
        self.pending[pending_id] = (email, code)
        self.texts.append(f"Your sandbox shop sign-in code is {code}. It expires in 10 minutes.")
        return pending_id

    def last_code(self) -> str | None:
        """The code in the newest text (what the person reads on their phone)."""
        return self.texts[-1].split(" is ", 1)[1][:6] if self.texts else None

    def new_challenge(self) -> str:
        challenge_id = secrets.token_urlsafe(9)
        self.challenges[challenge_id] = "".join(secrets.choice(_CAPTCHA_LETTERS) for _ in range(5))
        return challenge_id


ACCOUNT: web.AppKey[AccountDesk] = web.AppKey("account", AccountDesk)


def add_account_pages(app: web.Application, site: str) -> AccountDesk:
    desk = AccountDesk()
    app[ACCOUNT] = desk
    app.add_routes(_routes(desk, site))
    return desk


def _routes(desk: AccountDesk, site: str) -> list[web.RouteDef]:
    def signed_in(request: web.Request) -> str | None:
        return desk.sessions.get(request.cookies.get(SESSION_COOKIE, ""))

    def verify_page(error: str = "") -> web.Response:
        note = f"<p class='error'>{esc(error)}</p>" if error else ""
        form = (
            "<form method='post' action='/account/verify'>"
            "<label>Verification code <input type='text' name='otp' autocomplete='one-time-code' "
            "inputmode='numeric' maxlength='6' required></label>"
            "<button type='submit'>Verify</button></form>"
        )
        body = f"{note}<p>We sent a 6-digit verification code to your phone. Enter the code to sign in.</p>{form}"
        return page("Enter the verification code", body, site=site)

    async def account(request: web.Request) -> web.Response:
        email = signed_in(request)
        if email is None:
            raise web.HTTPSeeOther("/account/login")
        body = f"<p>Signed in as {esc(email)}.</p><p>You have no open orders.</p><p><a href='/'>Shop</a></p>"
        return page("Your account", body, site=site)

    async def login_form(request: web.Request) -> web.Response:
        form = (
            "<form method='post' action='/account/login'>"
            "<label>Email <input type='email' name='email' autocomplete='email' required></label>"
            "<button type='submit'>Send me a code</button></form>"
        )
        return page("Sign in", f"<p>Sign in with a code sent to your phone.</p>{form}", site=site)

    async def login(request: web.Request) -> web.Response:
        email = str((await request.post()).get("email", "")).strip().lower()
        if email != DEMO_EMAIL:
            return page("Sign in", f"<p class='error'>No account for {esc(email) or 'that address'}.</p>"
                                   "<p><a href='/account/login'>Try again</a></p>", site=site)
        response = web.HTTPSeeOther("/account/verify")
        response.set_cookie(PENDING_COOKIE, desk.start_sign_in(email), max_age=_COOKIE_AGE, httponly=True,
                            samesite="Lax")
        raise response

    async def verify_form(request: web.Request) -> web.Response:
        if request.cookies.get(PENDING_COOKIE, "") not in desk.pending:
            raise web.HTTPSeeOther("/account/login")
        return verify_page()

    async def verify(request: web.Request) -> web.Response:
        pending_id = request.cookies.get(PENDING_COOKIE, "")
        waiting = desk.pending.get(pending_id)
        if waiting is None:
            raise web.HTTPSeeOther("/account/login")
        given = str((await request.post()).get("otp", "")).strip()
        email, code = waiting
        if not hmac.compare_digest(given.encode(), code.encode()):
            return verify_page("That code is not right. Check the text we sent and try again.")
        del desk.pending[pending_id]
        session_id = secrets.token_urlsafe(16)
        desk.sessions[session_id] = email
        response = web.HTTPSeeOther("/account")
        response.set_cookie(SESSION_COOKIE, session_id, max_age=_COOKIE_AGE, httponly=True, samesite="Lax")
        response.del_cookie(PENDING_COOKIE)
        raise response

    async def phone(request: web.Request) -> web.Response:
        texts = "".join(f"<li>{esc(t)}</li>" for t in reversed(desk.texts)) or "<li>No messages.</li>"
        return page("Your phone (sandbox)", f"<p>Text messages for {DEMO_EMAIL}:</p><ul>{texts}</ul>", site=site)

    async def deals(request: web.Request) -> web.Response:
        if request.cookies.get(HUMAN_COOKIE, "") not in desk.passed:
            raise web.HTTPSeeOther("/human-check")
        body = ("<ul><li>Espresso machine: 20% off this week</li><li>Travel mug: buy one, get one free</li></ul>"
                "<p><a href='/'>All products</a></p>")
        return page("Today's deals", body, site=site)

    def check_page(request: web.Request, error: str = "") -> web.Response:
        challenge_id = request.cookies.get(CHALLENGE_COOKIE, "")
        if error or challenge_id not in desk.challenges:
            challenge_id = desk.new_challenge()
        note = f"<p class='error'>{esc(error)}</p>" if error else ""
        form = (
            "<form method='post' action='/human-check'>"
            f"<input type='hidden' name='challenge' value='{esc(challenge_id)}'>"
            f"<img src='/human-check/captcha/{esc(challenge_id)}.svg' alt='characters to type' width='220' "
            "height='70'>"
            "<label>Type the characters you see <input type='text' name='captcha_answer' autocomplete='off' "
            "required></label><button type='submit'>Continue</button></form>"
        )
        response = page("Verify you are human", f"{note}<p>Before you see our deals, a quick check.</p>{form}",
                        site=site)
        response.set_cookie(CHALLENGE_COOKIE, challenge_id, max_age=_COOKIE_AGE, httponly=True, samesite="Lax")
        return response

    async def check_form(request: web.Request) -> web.Response:
        return check_page(request)

    async def check(request: web.Request) -> web.Response:
        form = await request.post()
        answer = desk.challenges.pop(str(form.get("challenge", "")), None)
        given = str(form.get("captcha_answer", "")).strip().upper()
        if answer is None or not hmac.compare_digest(given.encode(), answer.encode()):
            return check_page(request, "That wasn't right; here is a new one.")
        token = secrets.token_urlsafe(12)
        desk.passed.add(token)
        response = web.HTTPSeeOther("/deals")
        response.set_cookie(HUMAN_COOKIE, token, max_age=_COOKIE_AGE, httponly=True, samesite="Lax")
        raise response

    async def captcha_image(request: web.Request) -> web.Response:
        answer = desk.challenges.get(request.match_info["challenge"])
        if answer is None:
            raise web.HTTPNotFound()
        return web.Response(text=_svg(answer), content_type="image/svg+xml")

    return [
        web.get("/account", account),
        web.get("/account/login", login_form),
        web.post("/account/login", login),
        web.get("/account/verify", verify_form),
        web.post("/account/verify", verify),
        web.get("/phone", phone),
        web.get("/deals", deals),
        web.get("/human-check", check_form),
        web.post("/human-check", check),
        web.get("/human-check/captcha/{challenge}.svg", captcha_image),
    ]


def _svg(answer: str) -> str:
    """The characters drawn tilted over noise lines: easy for a person, not in the page's text."""
    letters = "".join(
        f"<text x='{18 + i * 40}' y='{46 + (i % 2) * 8}' transform='rotate({(-12, 9, -6, 14, -9)[i]} "
        f"{28 + i * 40} 40)' font-size='38' font-family='monospace' fill='#234'>{ch}</text>"
        for i, ch in enumerate(answer)
    )
    noise = "".join(
        f"<line x1='0' y1='{y}' x2='220' y2='{70 - y}' stroke='#9ab' stroke-width='2'/>" for y in (12, 30, 55)
    )
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='220' height='70'><rect width='220' height='70' "
            f"fill='#eef'/>{noise}{letters}</svg>")
