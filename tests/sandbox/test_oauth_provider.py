"""The sandbox OAuth provider and the mail servers that take its tokens, driven by Deputy's own connectors.

Everything a real provider refuses, it refuses: a code without PKCE, a wrong verifier, a wrong
password; and its mail servers refuse an expired, revoked or out-of-scope token.
"""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import datetime, timezone

import httpx
import pytest

from deputy.connectors.email.imap import ImapAccount, ImapSession
from deputy.connectors.email.smtp import OutgoingEmail, SmtpAccount, send_email
from deputy.core.records.effects import ConnectorError
from deputy.sandbox.mail import LocalMailServer
from deputy.sandbox.mailstore import MailStore
from deputy.sandbox.oauth_pages import create_app
from deputy.sandbox.oauth_provider import CLIENT_ID, OAuthProvider
from deputy.sandbox.webapp_common import SiteServer
from deputy.sandbox.xoauth2 import ImapOAuthFront

ME = "demo@sandbox.local"
PASSWORD = "the-demo-password"
REDIRECT = "http://127.0.0.1:5999/oauth/callback"
VERIFIER = "a-long-enough-pkce-verifier-" + "x" * 30


def _challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


class World:
    def __init__(self, tmp) -> None:  # type: ignore[no-untyped-def]
        self.store = MailStore(tmp / "imap")
        self.store.start()
        self.store.add_user(ME, PASSWORD)
        self.provider = OAuthProvider({ME: PASSWORD})
        self.site = SiteServer(create_app(self.provider))
        self.url = self.site.start()
        self.smtp = LocalMailServer(store=self.store, token_check=self.provider.check)
        self.smtp.start()
        self.front = ImapOAuthFront((self.store.host, self.store.port), self.provider.check, self.store.password_for)
        self.front.start()

    def stop(self) -> None:
        for stop in (self.front.stop, self.smtp.stop, self.site.stop, self.store.stop):
            stop()

    def authorize(self, scope: str, **changes: str | None) -> httpx.Response:
        """The user allows; a change to None leaves that parameter out."""
        query = {"response_type": "code", "client_id": CLIENT_ID, "redirect_uri": REDIRECT, "scope": scope,
                 "state": "s1", "code_challenge": _challenge(VERIFIER), "code_challenge_method": "S256",
                 "username": ME, "password": PASSWORD, "decision": "allow", **changes}
        return httpx.post(f"{self.url}/authorize", data={k: v for k, v in query.items() if v is not None})

    def sign_in(self, scope: str) -> dict:
        code = re.search(r"code=([^&]+)", self.authorize(scope).headers["location"]).group(1)
        answer = httpx.post(f"{self.url}/token", data={"grant_type": "authorization_code", "code": code,
                                                         "client_id": CLIENT_ID, "redirect_uri": REDIRECT,
                                                         "code_verifier": VERIFIER})
        assert answer.status_code == 200, answer.text
        return answer.json()

    def refresh(self, refresh_token: str) -> httpx.Response:
        return httpx.post(f"{self.url}/token", data={"grant_type": "refresh_token", "refresh_token": refresh_token,
                                                       "client_id": CLIENT_ID})

    def send(self, token: str) -> None:
        account = SmtpAccount(host="127.0.0.1", port=self.smtp.port, username=ME, password=token, from_address=ME,
                              starttls=False, oauth=True)
        send_email(account, OutgoingEmail(to=["bob@example.com"], subject="Hi", body="Hello Bob"), "key-" + token[:8])

    def read(self, token: str) -> list[str]:
        account = ImapAccount(host="127.0.0.1", port=self.front.port, username=ME, password=token, use_ssl=False,
                              starttls=False, oauth=True)
        with ImapSession(account) as session:
            session.select("INBOX")
            return [f.name for f in session.folders()]

    def draft(self, token: str) -> None:
        account = ImapAccount(host="127.0.0.1", port=self.front.port, username=ME, password=token, use_ssl=False,
                              starttls=False, oauth=True)
        with ImapSession(account) as session:
            session.append("Drafts", "(\\Draft)", datetime.now(timezone.utc), b"Subject: draft\r\n\r\nHi\r\n")


@pytest.fixture(scope="module")
def world(tmp_path_factory):  # type: ignore[no-untyped-def]
    running = World(tmp_path_factory.mktemp("oauth"))
    yield running
    running.stop()


def test_the_consent_page_names_the_scopes_and_the_code_flow_needs_pkce_and_the_password(world: World) -> None:
    page = httpx.get(f"{world.url}/authorize", params={"response_type": "code", "client_id": CLIENT_ID,
                                                       "redirect_uri": REDIRECT, "scope": "mail.read mail.send",
                                                       "code_challenge": _challenge(VERIFIER),
                                                       "code_challenge_method": "S256"})
    assert page.status_code == 200 and "Read your email" in page.text and "Send email as you" in page.text
    no_pkce = world.authorize("mail.read", code_challenge=None, code_challenge_method=None)
    refusal = no_pkce.headers.get("location", "") + no_pkce.text
    assert "code=" not in refusal and "code_challenge" in refusal, "PKCE is required"
    assert world.authorize("mail.read", password="wrong").status_code == 401
    code = re.search(r"code=([^&]+)", world.authorize("mail.read").headers["location"]).group(1)
    stolen = httpx.post(f"{world.url}/token", data={"grant_type": "authorization_code", "code": code,
                                                      "client_id": CLIENT_ID, "redirect_uri": REDIRECT,
                                                      "code_verifier": "not-the-verifier-" + "y" * 40})
    assert stolen.status_code == 400 and stolen.json()["error"] == "invalid_grant"


def test_smtp_takes_a_token_only_with_the_send_scope(world: World) -> None:
    reading = world.sign_in("mail.read")
    with pytest.raises(ConnectorError) as refused:
        world.send(reading["access_token"])
    assert reading["access_token"] not in refused.value.user_message
    assert not world.smtp.messages()
    world.send(world.sign_in("mail.read mail.send")["access_token"])
    assert world.smtp.wait_for(1)[0].mail_from == ME


def test_imap_reads_with_a_token_and_refuses_drafts_expired_and_revoked_tokens(world: World) -> None:
    reading = world.sign_in("mail.read")
    assert "INBOX" in world.read(reading["access_token"])
    with pytest.raises(ConnectorError):
        world.draft(reading["access_token"])  # read only: no drafts
    world.draft(world.sign_in("mail.read mail.draft")["access_token"])

    world.provider.skew += 3700  # an hour later: the access token has expired
    with pytest.raises(ConnectorError):
        world.read(reading["access_token"])
    renewed = world.refresh(reading["refresh_token"])
    assert renewed.status_code == 200
    assert "INBOX" in world.read(renewed.json()["access_token"])

    revoked = httpx.post(f"{world.url}/revoke", data={"token": reading["refresh_token"], "client_id": CLIENT_ID})
    assert revoked.status_code == 200
    assert world.refresh(reading["refresh_token"]).json()["error"] == "invalid_grant"
    with pytest.raises(ConnectorError):
        world.read(renewed.json()["access_token"])  # revoking the grant ends its access tokens too
