"""Disconnecting a service: the executor erases its credentials from the vault."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Sequence

from redis import Redis

from deputy.connectors.custom import CustomConnectors
from deputy.core.records.outbox import Outbox
from deputy.sentinel.stores.audit import AuditLog
from deputy.vault import Vault
from deputy.core.records.erasure import Eraser
from deputy.executor.erasure import STORES, erase_user
from deputy.core.records.payloads import EraseUserJob, ForgetConnectionJob


class Connections:
    def __init__(
        self,
        vault: Vault,
        outbox: Outbox,
        audit: AuditLog,
        clock: Callable[[], float] = time.time,
        redis: Redis | None = None,
        data_dir: Path | None = None,
        stores: Sequence[Eraser] = STORES,
        revoke: Callable[[int, str], bool] | None = None,
    ) -> None:
        self._revoke = revoke  # a signed-in connection: the provider ends the grant before the vault forgets it
        self._redis = redis
        self._data_dir = data_dir
        self._stores = stores
        self._vault = vault
        self._outbox = outbox
        self._audit = audit
        self._clock = clock

    def forget(self, job: ForgetConnectionJob) -> str:
        prefix = f"cred:{job.service}/"
        own = {f"cred:api/{job.service}", f"cred:mcp/{job.service}"}  # a custom service's key
        handles = [info.handle for info in self._vault.list(job.user_id)
                   if info.handle.startswith(prefix) or info.handle in own]
        revoked = self._revoke(job.user_id, job.service) if self._revoke is not None and handles else False
        removed_service = self._redis is not None and CustomConnectors(self._redis).remove(job.user_id, job.service)
        for handle in handles:
            self._vault.delete(job.user_id, handle)
        self._audit.append(job.user_id, "connection_removed", self._clock(), service=job.service, handles=handles,
                           **({"revoked_at_provider": True} if revoked else {}))
        if handles or removed_service:
            told = " and the provider has ended Deputy's access" if revoked else ""
            self._outbox.send(job.chat_id, f"Disconnected {job.service}; its credentials are erased from the vault{told}.")
        else:
            self._outbox.send(job.chat_id, f"{job.service.capitalize()} was not connected.")
        return "forgotten"

    def erase(self, job: EraseUserJob) -> str:
        """Everything about the user, gone; then one message saying so (not kept once delivered)."""
        assert self._redis is not None
        report = erase_user(self._redis, job.user_id, self._data_dir, self._stores)
        self._outbox.send(
            job.chat_id,
            f"Done: everything Deputy stored about you is erased ({report.goals} goals, their actions and "
            "approvals, your memory, rules, settings, connections and activity record). Send /start to begin again.",
        )
        return "erased"
