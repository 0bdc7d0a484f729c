"""The records of its user a goal step reads, named for `deputy.core.infrastructure.step_reads` to fetch at once.

Each is read by its own store (the key's owner) through `step_reads.read`; this list only says which to
fetch together when the step starts: the user's public key (every checkpoint seals to it, or not), settings
and account (the plan's token check, the prompt), connectors and signed-in services (the tools offered),
memories (the prompt), and the model's answer the goal waits for.
"""

from __future__ import annotations

from deputy.agent.goals import Goal
from deputy.agent.model.model_requests import OUTCOME
from deputy.connectors.custom import CustomConnectors
from deputy.core.accounts.accounts import Accounts
from deputy.core.accounts.credential_index import checked_user, index_key
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.core.confidential.keys import public_key_field
from deputy.core.infrastructure.step_reads import Command
from deputy.core.records.vault_errors import InvalidCredential
from deputy.memory.store import MemoryStore


def step_user_reads(goal: Goal) -> list[Command]:
    user = goal.user_id
    commands: list[Command] = [
        ("HGET", *public_key_field(user)),
        ("GET", UserSettingsStore.key(user)),
        ("HGETALL", Accounts.key(user)),
        ("HGETALL", CustomConnectors.key(user)),
        ("HVALS", MemoryStore.key(user)),
    ]
    try:
        commands.append(("HGETALL", index_key(checked_user(user))))
    except InvalidCredential:
        pass  # no id the vault could key: nothing signed in to read
    if goal.waiting_model is not None:
        commands.append(("GET", OUTCOME.format(goal.waiting_model.request_id)))
    return commands
