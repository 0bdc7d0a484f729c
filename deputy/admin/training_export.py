"""`deputy export-training-data`: conversations of users who opted in, with personal data removed.

Only users whose settings say `training_opt_in` are included (the default is out). Email
addresses, phone numbers, card numbers, bank accounts, street addresses and secrets are
replaced by placeholders; the user id is replaced by a one-way pseudonym.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Iterator

from redis import Redis

from deputy.agent.goals import GoalStore
from deputy.core.accounts.user_settings import UserSettings
from deputy.vault import redact_patterns

_EMAIL = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_PHONE = re.compile(r"(?<![\w])\+?\d[\d\s().-]{7,}\d(?![\w])")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]){11,30}\b")
_STREET = re.compile(
    r"\b\d{1,5}\s+(?:[A-Z][a-z]+\s){1,3}(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Way|Court|Ct"
    r"|Place|Pl|Square|Sq)\b\.?"
)


def redact(text: str) -> str:
    text = redact_patterns(text)
    text = _EMAIL.sub("[email]", text)
    text = _IBAN.sub("[account]", text)
    text = _STREET.sub("[address]", text)
    return _PHONE.sub("[phone]", text)


def _redact_message(message: dict[str, Any]) -> dict[str, Any]:
    clean = dict(message)
    if isinstance(clean.get("content"), str):
        clean["content"] = redact(clean["content"])
    if clean.get("tool_calls"):
        clean["tool_calls"] = [
            {**call, "function": {**call["function"], "arguments": redact(call["function"].get("arguments", ""))}}
            for call in clean["tool_calls"]
        ]
    return clean


def training_records(redis: Redis, salt: str) -> Iterator[dict[str, Any]]:
    goals = GoalStore(redis)
    for key in redis.scan_iter("deputy:settings:*"):
        user_id = key.decode().rsplit(":", 1)[1]
        if not UserSettings.model_validate_json(redis.get(key)).training_opt_in:
            continue
        pseudonym = hashlib.sha256(f"{salt}:{user_id}".encode()).hexdigest()[:16]
        for goal_id in redis.zrange(f"deputy:user:{user_id}:goals", 0, -1):
            goal = goals.get(goal_id.decode())
            if goal is None or not goal.status.finished:
                continue
            yield {"user": pseudonym, "status": goal.status.value,
                   "messages": [_redact_message(m) for m in goal.messages]}


def export_training_data(redis: Redis, out: Path, salt: str) -> int:
    count = 0
    with out.open("w") as handle:
        for record in training_records(redis, salt):
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count
