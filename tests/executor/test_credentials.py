"""The executor sends mail from the user's own account, resolved from the vault at call time."""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr
from redis import Redis

from deputy.core.records.effects import ConnectorError, EffectClass
from deputy.connectors.email.smtp import SmtpAccount
from deputy.sandbox.mail import LocalMailServer
from deputy.core.records.actions import Action
from deputy.vault import KdfCost, Vault
from deputy.executor.credentials import SMTP_HANDLE, EmailAccounts

CHEAP = KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1)


def _action(user_id: int) -> Action:
    return Action(
        id=f"a_{user_id}", goal_id="g", user_id=user_id, chat_id=user_id, connector="email",
        operation="send_email", effect=EffectClass.communicate,
        arguments={"to": ["alice@example.org"], "subject": "Hi", "body": "Hello"}, targets=["alice@example.org"],
        tool_call_id="c", created_at=0,
    )


def test_each_user_sends_from_their_own_account(redis: Redis, tmp_path: Path) -> None:
    with LocalMailServer(username="ann", password="ann-smtp-pass") as server:
        vault = Vault(redis, SecretStr("vault-key-for-tests"), kdf=CHEAP)
        vault.put(
            1, SMTP_HANDLE, SecretStr("ann-smtp-pass"), "password", "Ann's mail",
            public={"host": "127.0.0.1", "port": str(server.port), "username": "ann",
                    "from_address": "ann@home.example", "starttls": "false"},
        )
        accounts = EmailAccounts(vault, default=None)
        summary = accounts.runner()(_action(1), "key-1")
        assert summary == "Email sent to alice@example.org."
        assert server.wait_for(1)[0].mail_from == "ann@home.example"

        # A user with no account of their own and no operator default gets a plain answer.
        try:
            accounts.runner()(_action(2), "key-2")
        except ConnectorError as exc:
            assert "isn't connected" in exc.user_message
        else:
            raise AssertionError("user 2 has no mail account")


def test_the_operator_account_is_the_fallback(redis: Redis, tmp_path: Path) -> None:
    with LocalMailServer() as server:
        vault = Vault(redis, SecretStr("vault-key-for-tests"), kdf=CHEAP)
        default = SmtpAccount(host="127.0.0.1", port=server.port, from_address="deputy@ops.example", starttls=False)
        EmailAccounts(vault, default).runner()(_action(3), "key-3")
        assert server.wait_for(1)[0].mail_from == "deputy@ops.example"
