"""The records a goal step reads, named for `deputy.core.infrastructure.step_reads` to fetch together.

Each is read by its own store (the key's owner) through `step_reads.read`; these lists only say which to
fetch together. When the step starts, with the goal's record (its owner is known from the job): the user's
public key (every checkpoint seals to it, or not), settings and account (the plan's token check, the
prompt), connectors and signed-in services (the tools offered) and memories (the prompt). Once the goal is
read: the model's answer it waits for, and the plan's counters of the user's day and month (their keys
follow the user's time zone, in the settings just read).
"""

from __future__ import annotations

from deputy.agent.goals import Goal, goal_key
from deputy.agent.model.model_requests import OUTCOME
from deputy.connectors.custom import CustomConnectors
from deputy.core.accounts.accounts import Accounts
from deputy.core.accounts.credential_index import checked_user, index_key
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.core.confidential.keys import public_key_field
from deputy.core.infrastructure.step_reads import Command
from deputy.core.records.vault_errors import InvalidCredential
from deputy.memory.store import MemoryStore


def step_start_reads(goal_id: str, user: int) -> list[Command]:
    """The goal's record and what the step reads of its user."""
    return [("GET", goal_key(goal_id)), *user_records(user)]


def goal_reads(goal: Goal, quota_counters: list[str]) -> list[Command]:
    """What the step reads once the goal is known: its user's records (if not fetched with it), the awaited answer
    and `quota_counters` (the keys of the user's day and month counters)."""
    commands = [*user_records(goal.user_id), *(("HGETALL", key) for key in quota_counters)]
    if goal.waiting_model is not None:
        commands.append(("GET", OUTCOME.format(goal.waiting_model.request_id)))
    return commands


def user_records(user: int) -> list[Command]:
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
    return commands
