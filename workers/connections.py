"""Disconnecting a service: the executor erases its credentials from the vault."""

from __future__ import annotations

import time
from typing import Callable

from deputy.outbox import Outbox
from sentinel.audit import AuditLog
from vault import Vault
from workers.payloads import ForgetConnectionJob


class Connections:
    def __init__(self, vault: Vault, outbox: Outbox, audit: AuditLog, clock: Callable[[], float] = time.time) -> None:
        self._vault = vault
        self._outbox = outbox
        self._audit = audit
        self._clock = clock

    def forget(self, job: ForgetConnectionJob) -> str:
        prefix = f"cred:{job.service}/"
        handles = [info.handle for info in self._vault.list(job.user_id) if info.handle.startswith(prefix)]
        for handle in handles:
            self._vault.delete(job.user_id, handle)
        self._audit.append(job.user_id, "connection_removed", self._clock(), service=job.service, handles=handles)
        if handles:
            self._outbox.send(job.chat_id, f"Disconnected {job.service}; its credentials are erased from the vault.")
        else:
            self._outbox.send(job.chat_id, f"{job.service.capitalize()} was not connected.")
        return "forgotten"
