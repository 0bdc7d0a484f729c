"""The training export includes only users who opted in, and no personal data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from redis import Redis

from deputy.agent.goals import Goal, GoalStatus, GoalStore
from deputy.core.confidential import ConfidentialKeys
from deputy.testing.stack import RedisServer
from deputy.admin.training_export import training_records
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore

PERSONAL = "Email bob.smith@example.com or call +1 (415) 555-0134; card 4111 1111 1111 1111; " \
           "IBAN DE89 3704 0044 0532 0130 00; I live at 221 Baker Street."


def _goal(redis: Redis, user_id: int, text: str) -> None:
    GoalStore(redis).save(Goal(id=f"g_t{user_id}", user_id=user_id, chat_id=user_id, text=text,
                               messages=[{"role": "user", "content": text}], status=GoalStatus.done,
                               created_at=1.0, updated_at=1.0))


def test_only_opted_in_users_and_no_personal_data(redis_server: RedisServer, redis: Redis, tmp_path: Path) -> None:
    UserSettingsStore(redis).save(1, UserSettings(training_opt_in=True))
    UserSettingsStore(redis).save(2, UserSettings(training_opt_in=False))
    _goal(redis, 1, f"opted in: {PERSONAL}")
    _goal(redis, 2, "opted out: my secret plans")
    _goal(redis, 3, "never chose: other plans")

    out = tmp_path / "training.jsonl"
    env = {**os.environ, "REDIS_URL": redis_server.url, "DEPUTY_SECRET": "salt", "DEPUTY_DATA_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, "-m", "deputy", "export-training-data", "--out", str(out)],
                            env=env, capture_output=True, text=True, check=True)
    assert "Wrote 1 conversations" in result.stdout
    [record] = [json.loads(line) for line in out.read_text().splitlines()]
    text = record["messages"][0]["content"]
    assert text.startswith("opted in:")
    for leaked in ("bob.smith@example.com", "555-0134", "4111 1111 1111 1111", "DE89", "221 Baker Street"):
        assert leaked not in text
    assert "[email]" in text and "[phone]" in text and "[address]" in text
    assert record["user"] != "1" and "1" != record["user"][:1] or len(record["user"]) == 16


def test_a_confidential_users_conversations_are_never_exported(redis: Redis) -> None:
    keys = ConfidentialKeys(redis, b"u" * 32)
    keys.turn_on(4, "a long private passphrase")
    keys.unlock(4, "a long private passphrase", 3600)  # even while unlocked
    UserSettingsStore(redis, keys).save(4, UserSettings(training_opt_in=True))
    _goal(redis, 4, "confidential: my plans")
    UserSettingsStore(redis).save(5, UserSettings(training_opt_in=True))
    _goal(redis, 5, "plain: my plans")
    assert [m["content"] for r in training_records(redis, "salt") for m in r["messages"]] == ["plain: my plans"]
