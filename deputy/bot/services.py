"""What the bot's handlers need, passed in explicitly (built by `deputy.apps.bot`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from redis import Redis

from deputy.agent.goals import GoalStore
from deputy.workspace.files import WorkspaceLimits
from deputy.agent.uploads import Uploads
from deputy.bot.buttons import ButtonSigner
from deputy.bot.held_messages import HeldMessages
from deputy.bot.intake import GoalIntake, LoopRedis, url_of
from deputy.core.accounts.connect_links import ConnectLinks
from deputy.core.accounts.plans import PlanBook
from deputy.core.accounts.quotas import Quotas
from deputy.sentinel.stores.action_store import ActionStore
from deputy.sentinel.stores.approvals import ApprovalSigner, ApprovalStore
from deputy.sentinel.stores.audit import DEFAULT_KEEP, AuditLog
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.queue.dispatch import RQDispatch
from deputy.speech import Transcriber


@dataclass
class BotServices:
    redis: Redis
    goals: GoalStore
    approvals: ApprovalStore
    signer: ApprovalSigner
    audit: AuditLog
    dispatch: RQDispatch
    allowed_users: frozenset[int] | None
    rules: RuleStore
    buttons: ButtonSigner
    actions: ActionStore
    links: ConnectLinks
    intake: GoalIntake
    uploads: Uploads | None = None
    connect_url: str = "http://127.0.0.1:8081"
    web_url: str = ""  # the private web view (`deputy web-view`); empty: none is served
    agent_name: str = "Deputy"
    clock: Callable[[], float] = field(default=time.time)
    quotas: Quotas | None = None  # None: no plans enforced
    messages_per_minute: int | None = None  # per user; None: no flood limit
    held: HeldMessages | None = None  # messages taken for secrets, releasable; None: none kept
    workspace_limits: WorkspaceLimits = field(default_factory=WorkspaceLimits)
    transcriber: Transcriber | None = None  # voice notes, audio, videos' sound; None: not transcribed
    egress_allow: list[str] = field(default_factory=list)  # private addresses a recording's link may be fetched from
    spoken_replies: bool = False  # answers to voice notes also go back as voice notes

    @classmethod
    def create(
        cls,
        redis: Redis,
        secret: str,
        allowed_users: frozenset[int] | None,
        connect_url: str = "http://127.0.0.1:8081",
        redis_url: str | None = None,
        audit_key: bytes | None = None,
        audit_keep: int = DEFAULT_KEEP,
        plans: PlanBook | None = None,
        messages_per_minute: int | None = None,
        workspace_limits: WorkspaceLimits | None = None,
        web_url: str = "",
        transcriber: Transcriber | None = None,
        egress_allow: list[str] | None = None,
        spoken_replies: bool = False,
    ) -> "BotServices":
        """`redis_url` is the server `redis` talks to, for the intake's asyncio client (derived when not given);
        `audit_key` seals the audit trail (`Settings.audit_key_value()`; a development key when not given),
        which keeps its newest `audit_keep` entries (`Settings.audit_keep`);
        `plans` are enforced per user when given."""
        dispatch = RQDispatch(redis)
        audit = AuditLog(redis, audit_key, keep=audit_keep)
        loop_redis = LoopRedis(redis_url or url_of(redis))
        quotas = Quotas(redis, plans) if plans is not None else None
        return cls(
            redis=redis,
            goals=GoalStore(redis),
            approvals=ApprovalStore(redis),
            signer=ApprovalSigner(secret),
            audit=audit,
            dispatch=dispatch,
            allowed_users=allowed_users,
            rules=RuleStore(redis),
            buttons=ButtonSigner(secret),
            held=HeldMessages(redis, secret),
            actions=ActionStore(redis),
            links=ConnectLinks(redis),
            intake=GoalIntake(loop_redis, dispatch, audit.key, quotas, audit.keep),
            connect_url=connect_url,
            web_url=web_url.rstrip("/"),
            uploads=Uploads(redis),
            quotas=quotas,
            messages_per_minute=messages_per_minute,
            workspace_limits=workspace_limits or WorkspaceLimits(),
            transcriber=transcriber,
            egress_allow=list(egress_allow or []),
            spoken_replies=spoken_replies,
        )

    def __post_init__(self) -> None:
        if self.uploads is None:
            self.uploads = Uploads(self.redis)

    def is_allowed(self, user_id: int) -> bool:
        return self.allowed_users is None or user_id in self.allowed_users
