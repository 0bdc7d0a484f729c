"""Mail connected by signing in with the sandbox OAuth provider, with the access the user chose.

One scenario, as a user lives it: connect read only, a send is refused with how to widen it;
widen it from /connections and the send goes out; the access token dies mid-goal and is renewed;
the user removes Deputy's access at the provider, is told once and the goal waits until they sign
in again; disconnecting revokes the grant at the provider. No token ever reaches the chat, the
model, the logs or the audit trail.
"""

from __future__ import annotations

import re
from typing import Iterator

import httpx
import pytest
from redis import Redis
from tests_support import GOAL

from deputy.agent.model.testing import ScriptedModelServer
from deputy.sandbox.mail import LocalMailServer
from deputy.sandbox.mailstore import MailStore
from deputy.sandbox.oauth_pages import create_app
from deputy.sandbox.oauth_provider import OAuthProvider
from deputy.sandbox.services import SandboxEndpoints
from deputy.sandbox.webapp_common import SiteServer
from deputy.sandbox.xoauth2 import ImapOAuthFront
from deputy.sentinel.stores.audit import AuditLog
from deputy.testing.stack import ChatUser, DeputyStack, wait_for

ANN = "ann@sandbox.local"
ANNS_PASSWORD = "ann-provider-password-77"


class Provider:
    """The sandbox provider and the mail servers that take its tokens, in this test's process."""

    def __init__(self, root) -> None:  # type: ignore[no-untyped-def]
        self.store = MailStore(root / "imap")
        self.store.start()
        self.store.add_user(ANN)
        self.oauth = OAuthProvider({ANN: ANNS_PASSWORD})
        self.site = SiteServer(create_app(self.oauth))
        self.url = self.site.start()
        self.smtp = LocalMailServer(store=self.store, token_check=self.oauth.check)
        self.smtp.start()
        self.front = ImapOAuthFront((self.store.host, self.store.port), self.oauth.check, self.store.password_for)
        self.front.start()
        self.tokens_seen: list[str] = []

    def spec(self) -> str:
        return SandboxEndpoints(smtp_port=self.smtp.port, imap_port=self.store.port, oauth_url=self.url,
                                imap_oauth_port=self.front.port).oauth_provider_spec()

    def every_token(self) -> list[str]:
        state = self.oauth.state
        return [*state.access, *state.refresh]

    def stop(self) -> None:
        for stop in (self.front.stop, self.smtp.stop, self.site.stop, self.store.stop):
            stop()


@pytest.fixture
def provider(tmp_path_factory) -> Iterator[Provider]:  # type: ignore[no-untyped-def]
    running = Provider(tmp_path_factory.mktemp("oauth-world"))
    yield running
    running.stop()


@pytest.fixture
def stack_env(provider: Provider) -> dict[str, str]:
    return {"DEPUTY_EGRESS_ALLOW": "127.0.0.1/32", "DEPUTY_OAUTH_PROVIDERS": provider.spec()}


def sign_in(user: ChatUser, link: str, level: str, provider: Provider) -> None:
    page = httpx.get(link)
    assert "Sign in with Sandbox" in page.text and "Read and send" in page.text
    to_provider = httpx.post(f"{link}/oauth", data={"provider": "sandbox", "level": level, "address": ANN})
    assert to_provider.status_code == 302 and "code_challenge=" in to_provider.headers["location"]
    consent_url = to_provider.headers["location"]
    consent = httpx.get(consent_url)
    assert consent.status_code == 200 and "Read your email" in consent.text
    query = dict(httpx.URL(consent_url).params)
    back = httpx.post(consent_url.split("?")[0], data={**query, "username": ANN, "password": ANNS_PASSWORD,
                                                       "decision": "allow"})
    assert back.status_code == 302
    done = httpx.get(back.headers["location"])
    assert done.status_code == 200 and "Done" in done.text, done.text


def link_in(message: dict) -> str:
    return re.search(r"http://\S+/connect/[\w-]+", message["text"]).group(0)


def run_goal(user: ChatUser) -> dict:
    """Send the goal; approve its card if one comes; the goal's last word."""
    sent = user.send(GOAL)
    ending = ("Done:", "That didn't work")
    first = user.wait_for_bot(lambda m: m["text"].startswith(ending) or any(
        b.get("text") == "Approve" for row in m["buttons"] for b in row), after=sent)
    if first["text"].startswith(ending):
        return first
    user.press(first["message_id"], button="Approve")
    return user.wait_for_bot(lambda m: m["text"].startswith(ending), after=first["message_id"])


def test_mail_by_sign_in_with_chosen_scopes_refresh_revocation_and_waiting(
    stack: DeputyStack, provider: Provider, model_server: ScriptedModelServer, redis: Redis
) -> None:
    user = stack.user(601, "Ann")
    sent = user.send("/connect email")
    sign_in(user, link_in(user.wait_for_bot(lambda m: "/connect/" in m["text"], after=sent)), "read", provider)
    user.wait_for_bot(lambda m: "connected through Sandbox (read only)" in m["text"], after=sent)

    # Read only: the executor refuses the send before the guard, and says how to widen it.
    refused = run_goal(user)
    assert "Read only" in refused["text"] and "/connections" in refused["text"], refused["text"]
    assert provider.smtp.messages() == []
    offered = {t["function"]["name"] for t in model_server.requests[-1].tools}
    assert "search_email" in offered and not {"send_email", "draft_email"} & offered, "only what the scopes allow"

    # Widen it from /connections: sign in again choosing "read and send"; the send goes out as Ann.
    sent = user.send("/connections")
    listing = user.wait_for_bot(lambda m: m["text"].startswith("Connected:"), after=sent)
    assert "signed in with Sandbox" in listing["text"] and "Read only" in listing["text"]
    user.press(listing["message_id"], button="Change email access")
    changed = user.wait_for_bot(lambda m: "sign in again" in m["text"] and "/connect/" in m["text"], after=sent)
    sign_in(user, link_in(changed), "send", provider)
    assert run_goal(user)["text"].startswith("Done:")
    assert provider.smtp.wait_for(1)[0].mail_from == ANN
    assert "send_email" in {t["function"]["name"] for t in model_server.requests[-1].tools}

    # An hour later the access token has expired: the executor renews it and the send still goes out.
    provider.oauth.skew += 3700
    assert run_goal(user)["text"].startswith("Done:")
    assert len(provider.smtp.wait_for(2)) == 2

    # Ann removes Deputy's access at the provider: she is told once, with a link, and the goal waits.
    provider.oauth.revoke_everything()
    provider.oauth.skew += 3700
    sent = user.send(GOAL)
    notice = user.wait_for_bot(lambda m: "sign-in with Sandbox has ended" in m["text"], after=sent)
    assert len(provider.smtp.messages()) == 2, "nothing sent while the grant is dead"
    second = user.send(GOAL)
    wait_for(lambda: redis.hlen("deputy:user:601:confidential:waiting") >= 2, what="both goals' sends to wait")
    notices = [m for m in user.bot_messages(sent) if "has ended" in m["text"]]
    assert len(notices) == 1, "told once, not once per goal"
    # Signing in again through the link hands the waiting sends back: both go out, once each.
    sign_in(user, link_in(notice), "send", provider)
    user.wait_for_bot(lambda m: m["text"].startswith("Done:"), after=second)
    assert len(provider.smtp.wait_for(4, timeout=15)) == 4

    # Disconnect: the provider ends the grant, and the vault forgets it.
    sent = user.send("/connections")
    listing = user.wait_for_bot(lambda m: m["text"].startswith("Connected:"), after=sent)
    user.press(listing["message_id"], button="Disconnect email")
    user.wait_for_bot(lambda m: "provider has ended Deputy's access" in m["text"], after=listing["message_id"])
    assert provider.oauth.live_grants(ANN) == []

    everything = stack.logs() + repr([r.model_dump() for r in model_server.requests])
    everything += repr([e.model_dump() for e in AuditLog(redis).entries(601)]) + repr(user.messages())
    leaked = [t for t in provider.every_token() if t in everything]
    assert leaked == [], "no access or refresh token in logs, prompts, audit or chat"
