"""Entry points for `deputy worker` (agent queue) and `deputy executor` (actions queue).

Here, and only here, settings become objects: the agent worker gets the model and no
credentials; the executor gets the credentials and no model.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import openai
from redis import Redis
from rq import SimpleWorker, Worker
from rq.serializers import JSONSerializer

from deputy.core.confidential import install_unlock_key
from deputy.agent.check_budget import CheckBudget
from deputy.core.metrics_plans import PlanCollector
from deputy.core.quotas import Quotas
from deputy.core.redis_clients import probe_client
from deputy.agent.goals import GoalStatus, GoalStore
from deputy.agent.memory_tools import MemoryTools
from deputy.agent.model import ChatModel, OpenAIChatModel
from deputy.agent.model_requests import ModelRequests
from deputy.agent.reading import injection_scanner
from deputy.agent.runner import GoalRunner, RunnerLimits
from deputy.agent.text_tools import TextToolsOptions
from deputy.agent.text_tools_model import TextToolsChatModel
from deputy.connectors.calendar import CalDavAccount, CalendarRunners
from deputy.connectors.calendar.reverts import CalendarReverts
from deputy.connectors.custom import CustomConnectors, UserCatalogs
from deputy.connectors.email import SmtpAccount
from deputy.connectors.email.imap import ImapAccount, ImapSession
from deputy.connectors.email.imap_accounts import ImapAccounts
from deputy.connectors.email.mail_reverts import MailReverts
from deputy.connectors.email.mail_runners import MailRunners
from deputy.connectors.email.sent_copy import SentFolder
from deputy.connectors.http import guarded_client
from deputy.connectors.web import DEFAULT_SEARCH_URL, BrowserConfig, BrowserSessions, BrowserStates, VaultLogins, WebRunners
from deputy.core.handoff import HandOffRecorder, HandOffStore
from deputy.health import RQWorkerProbe, redis_check, serve_health
from deputy.core.metrics import MeteredModel, provider_of
from deputy.core.outbox import Outbox
from deputy.core.redis_clients import sync_client
from deputy.settings import Settings
from deputy.core.user_settings import UserSettingsStore
from deputy.memory import MemoryStore
from deputy.memory.meaning import LazyEmbedder
from deputy.sentinel.stores.action_store import ActionStore
from deputy.core.actions import ActionState
from deputy.sentinel.stores.approvals import ApprovalSigner, ApprovalStore
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.detectors import default_detector
from deputy.sentinel.egress.policy import EgressContext, EgressPolicy, reviewer
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.vault import PaymentTokens, Scrubber, Vault, VaultKey
from deputy.vault.migrate import unlock_vault
from deputy.vault.migrate import migrate_file_vault
from deputy.executor.negotiation_moves import sentence_meaning
from deputy.executor.connections import Connections
from deputy.executor.erasure import STORES as ERASED_STORES
from deputy.queue.context import WorkerContext, install
from deputy.executor.credentials import EmailAccounts
from deputy.executor.custom_connectors import CustomConnectorService
from deputy.queue.dispatch import RQDispatch, erase_user_units, make_queues
from deputy.executor.egress_context import egress_context_for
from deputy.egress_guards import caldav_connect, endpoint_guard, mcp_visitor
from deputy.gateway_main import OPENAI_BASE_URL
from deputy.executor.executor import Executor
from deputy.executor.handoffs import HandOffService, web_recorder
from deputy.queue.inflight import Registration, Watchdog
from deputy.operations import api_runners, build_catalog, imported_apis
from deputy.queue.metrics_queues import queue_collector
from deputy.core.payloads import ACTIONS_QUEUE, AGENT_QUEUE
from deputy.executor.issuer_client import HttpIssuerClient
from deputy.executor.mandates import MandateSigner
from deputy.executor.payments import PaymentIssuer, receipt_on_confirmation
from deputy.queue.replication import replica_confirmation
from deputy.executor.review_context import ReviewContextBuilder, stored_rules
from deputy.agent.rule_proposer import RuleProposer

log = logging.getLogger(__name__)

LEASE_SECONDS = 3.0
WATCHDOG_INTERVAL = 1.0


def build_model(settings: Settings, helper: bool = False) -> ChatModel:
    """The planner model, or with `helper` the (possibly cheaper) model for helper tasks."""
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "no-key-needed"
    base_url = (settings.helper_base_url or settings.openai_base_url) if helper else settings.openai_base_url
    client = openai.OpenAI(api_key=key, base_url=base_url, timeout=settings.model_timeout, max_retries=1)
    # `client.chat` imports the SDK's chat modules on first use. Touched here, in the worker's
    # parent, so work horses forked per job inherit them instead of importing them every step.
    assert client.chat.completions is not None
    model = MeteredModel(OpenAIChatModel(client, settings.helper_model_name() if helper else settings.model,
                                         constrain_calls=settings.constrain_tool_calls),
                         provider_of(base_url or OPENAI_BASE_URL))
    # Local models write tool calls as text, and small ones choose better from few tools (deputy.agent.text_tools).
    return TextToolsChatModel(model, TextToolsOptions(max_tools=settings.max_tools,
                                                      force_tool_call=settings.force_tool_call))


def plan_collector(settings: Settings) -> PlanCollector:
    """Users per plan and their use, on `/metrics` (read with a probe client, as the queues are)."""
    return PlanCollector(Quotas(probe_client(settings.redis_url), settings.plan_book()))


def build_runner(redis: Redis, settings: Settings, apis: list) -> GoalRunner:
    delays = settings.retry_delays()
    limits = RunnerLimits(max_model_attempts=len(delays) + 1, retry_delays=delays or (1.0,))
    quotas = Quotas(redis, settings.plan_book())
    return GoalRunner(
        GoalStore(redis),
        ActionStore(redis),
        build_model(settings),
        Outbox(redis),
        RQDispatch(redis),
        build_catalog(apis),
        limits=limits,
        user_catalogs=UserCatalogs(build_catalog(apis), CustomConnectors(redis)),
        memory=MemoryTools(MemoryStore(redis, LazyEmbedder()), Outbox(redis),
                           AuditLog(redis, settings.audit_key_value())),
        scanner=injection_scanner(default_detector()),
        settings=UserSettingsStore(redis),
        checks=CheckBudget(redis, settings.checks_per_day, quotas),
        handoffs=HandOffStore(redis),
        gateway=ModelRequests(redis) if settings.model_gateway else None,
        quotas=quotas,
        model_name=settings.model,
    )


def email_account(settings: Settings) -> SmtpAccount | None:
    if not settings.smtp_host:
        return None
    sender = settings.smtp_from or (settings.smtp_username if "@" in (settings.smtp_username or "") else None)
    if sender is None:
        raise SystemExit("Set DEPUTY_SMTP_FROM to the address Deputy's email should come from.")
    return SmtpAccount(
        host=settings.smtp_host,
        port=settings.smtp_port,
        username=settings.smtp_username,
        password=settings.smtp_password,
        from_address=sender,
        starttls=settings.smtp_starttls,
    )


def imap_account(settings: Settings) -> ImapAccount | None:
    if not settings.imap_host or not settings.imap_username or settings.imap_password is None:
        return None
    return ImapAccount(
        host=settings.imap_host, port=settings.imap_port, username=settings.imap_username,
        password=settings.imap_password, use_ssl=settings.imap_ssl, starttls=settings.imap_starttls,
        address=settings.smtp_from,
    )


def caldav_account(settings: Settings) -> CalDavAccount | None:
    if not settings.caldav_url or not settings.caldav_username or settings.caldav_password is None:
        return None
    return CalDavAccount(url=settings.caldav_url, username=settings.caldav_username,
                         password=settings.caldav_password, email=settings.smtp_from)


def web_connector(settings: Settings, redis: Redis, vault: Vault, key: VaultKey) -> WebRunners | None:
    """The browser operations, when Chromium is installed; every request passes the egress guard.

    Screenshots go to the user's chat as photos; a page that needs the user becomes a hand-off.
    """
    if not Path(BrowserConfig.model_fields["executable_path"].default).exists():
        log.warning("Chromium is not installed: web browsing is off")
        return None
    policy = EgressPolicy(allow_private_networks=settings.egress_allow())
    goals, memory = GoalStore(redis), MemoryStore(redis)

    def review_for(action):
        return reviewer(policy, egress_context_for(action, goals, memory))

    def show_user(action, image: bytes, caption: str, dedupe_key: str) -> None:
        Outbox(redis).send_photo(action.chat_id, image, caption, dedupe_key=dedupe_key)

    # Cookies and local storage are kept sealed in Redis: a login follows the user to any executor.
    sessions = BrowserSessions(BrowserConfig(), states=BrowserStates(redis, key.sealer("browser")))
    recorder = web_recorder(HandOffRecorder(HandOffStore(redis), Outbox(redis)))
    return WebRunners(sessions, review_for, logins=VaultLogins(vault),
                      search_url=settings.search_url or DEFAULT_SEARCH_URL, show_user=show_user, handoffs=recorder)


def build_handoffs(redis: Redis, web: WebRunners | None, audit_key: bytes,
                   payments: PaymentIssuer | None = None) -> HandOffService | None:
    """Typing the codes users send into the pages that asked for them (needs the browser); a
    payment the bank made the user confirm gets its receipt once the page accepted the code."""
    if web is None:
        return None
    return HandOffService(HandOffStore(redis), HandOffRecorder(HandOffStore(redis), Outbox(redis)), GoalStore(redis),
                          Outbox(redis), AuditLog(redis, audit_key), RQDispatch(redis).step, web.enter_code,
                          confirmed=receipt_on_confirmation(redis, payments) if payments else None)


def open_vault(redis: Redis, settings: Settings) -> tuple[Vault, VaultKey]:
    """The vault and its key (derived once per process); an old vault file is moved into Redis first."""
    key = unlock_vault(redis, settings)
    vault = Vault(redis, key)
    migrate_file_vault(settings.vault_path, settings.vault_key_value(), vault, redis)
    return vault, key


def build_executor(
    redis: Redis, settings: Settings, apis: list, web: WebRunners | None = None, vault: Vault | None = None
) -> tuple[CustomConnectorService, Executor]:
    vault = vault or open_vault(redis, settings)[0]
    egress = endpoint_guard(settings)  # mail, calendar and MCP servers: checked and pinned per connection
    smtp_opener = egress.for_connector("smtp").connect
    imap = egress.for_connector("imap")
    imap_accounts = ImapAccounts(vault, imap_account(settings)).for_user
    imap_session = lambda account: ImapSession(account, opener=imap.connect)  # noqa: E731
    email = EmailAccounts(vault, email_account(settings), opener=smtp_opener,
                          sent=SentFolder(imap_accounts, session=imap_session))
    mail = MailRunners(imap_accounts, email.reply_sender(), session=imap_session)
    calendar = CalendarRunners(vault, default=caldav_account(settings),
                               zone_for=lambda user_id: UserSettingsStore(redis).clock_settings(user_id).timezone,
                               connect=caldav_connect(egress))
    runners = {
        **mail.runners(), "email.send_email": email.runner(), **calendar.runners(), **api_runners(settings, apis, vault),
        **(web.runners() if web is not None else {}),
    }
    goals = GoalStore(redis)
    catalogs = UserCatalogs(build_catalog(apis), CustomConnectors(redis))
    custom = CustomConnectorService(
        CustomConnectors(redis), catalogs, guarded_client(reviewer(EgressPolicy(allow_private_networks=settings.egress_allow()), EgressContext()), connector="custom"),
        vault, Outbox(redis), AuditLog(redis, settings.audit_key_value()), egress=egress, visitor=mcp_visitor(egress),
    )
    return custom, Executor(
        ActionStore(redis),
        ApprovalStore(redis),
        goals,
        Outbox(redis),
        AuditLog(redis, settings.audit_key_value()),
        ApprovalSigner(settings.secret_value()),
        RQDispatch(redis),
        runners,
        ReviewContextBuilder(redis, goals, build_catalog(apis), stored_rules(RuleStore(redis)), user_catalogs=catalogs),
        approval_ttl=settings.approval_ttl_seconds,
        scrubber=Scrubber([p for p in (settings.smtp_password, settings.imap_password, settings.caldav_password) if p]),
        user_runners=custom.runner_for,
        payments=payment_issuer(settings, redis, vault),
        replicated=replica_confirmation(redis),
        evidence=email.sent_note,
        meaning=sentence_meaning(),
        send_window=settings.send_window_seconds,
        reverters={"calendar": CalendarReverts(calendar).revert, "email": MailReverts(mail).revert},
    )


def payment_issuer(settings: Settings, redis: Redis, vault: Vault) -> PaymentIssuer:
    """Tokens from the card issuer when one is configured, else the vault's own."""
    if not settings.issuer_url or settings.issuer_key is None:
        return PaymentIssuer(PaymentTokens(redis, vault), redis)
    signer = MandateSigner(settings.mandate_key.get_secret_value().encode()) if settings.mandate_key else None
    issuer = HttpIssuerClient(settings.issuer_url, settings.issuer_key)
    return PaymentIssuer(PaymentTokens(redis, vault), redis, issuer=issuer, vault=vault, mandates=signer)


def give_up(redis: Redis):
    """What the watchdog does with a unit whose jobs kept dying: tell the user, keep the goal."""
    goals, outbox, actions, dispatch = GoalStore(redis), Outbox(redis), ActionStore(redis), RQDispatch(redis)

    def handle(registration: Registration) -> None:
        log.error("giving up on %s after %d attempts", registration.unit, registration.attempts)
        kind, _, ident = registration.unit.partition(":")
        if kind == "action":
            record = actions.get(ident)
            pending = (ActionState.submitted, ActionState.awaiting_approval, ActionState.executing)
            if record and actions.transition(ident, pending, ActionState.failed, outcome="Failed: internal error."):
                dispatch.step(record.action.goal_id, int(registration.payload["step"]))
            return

        def fail(goal):
            if goal.status.finished:
                return None
            goal.status, goal.error = GoalStatus.failed, "internal error"
            return goal

        goal = goals.update(ident, fail)
        if goal is not None:
            outbox.send(
                goal.chat_id,
                "I ran into an internal problem with this goal and stopped after several tries. "
                "It is saved: send /retry to try again.",
                dedupe_key=f"{goal.id}:gave-up:{goal.revision}",
            )

    return handle


def serve(settings: Settings, role: str, burst: bool = False) -> None:
    """Run an RQ worker for `role` ("agent" or "executor") with a watchdog beside it."""
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set: point it at your Redis, e.g. redis://127.0.0.1:6379/0")
    redis = sync_client(settings.redis_url)  # survives Redis restarts
    install_unlock_key(settings.unlock_key_value())
    context = WorkerContext(redis=redis, lease_ttl=LEASE_SECONDS)
    apis = imported_apis(settings)
    if role == "agent":
        if settings.audit_key is None and settings.secret is None:
            log.warning("neither DEPUTY_AUDIT_KEY nor DEPUTY_SECRET is set: this worker's audit entries "
                        "will not verify against the other processes' key")
        context.runner = build_runner(redis, settings, apis)
        context.rule_proposer = RuleProposer(build_model(settings, helper=True), RuleStore(redis), Outbox(redis),
                                             quotas=Quotas(redis, settings.plan_book()),
                                             model_name=settings.helper_model_name())
        queue_name = AGENT_QUEUE
    else:
        vault, key = open_vault(redis, settings)
        web = web_connector(settings, redis, vault, key)
        context.custom_connectors, context.executor = build_executor(redis, settings, apis, web=web, vault=vault)
        context.handoffs = build_handoffs(redis, web, settings.audit_key_value(),
                                          payment_issuer(settings, redis, vault))
        context.connections = Connections(vault, Outbox(redis), AuditLog(redis, settings.audit_key_value()),
                                          redis=redis, data_dir=settings.data_dir,
                                          stores=(*ERASED_STORES, erase_user_units))
        queue_name = ACTIONS_QUEUE
    install(context)

    watchdog_redis = sync_client(settings.redis_url)
    watchdog = Watchdog(watchdog_redis, make_queues(watchdog_redis), LEASE_SECONDS, give_up(watchdog_redis))
    stop = threading.Event()
    watchdog_thread = threading.Thread(target=watchdog.run, args=(stop, WATCHDOG_INTERVAL), name="watchdog", daemon=True)
    watchdog_thread.start()

    queues = make_queues(redis)
    # Without a fork per job a step costs a few ms instead of ~20; fine for agent workers whose
    # steps wait on nothing slow (model calls through the gateway), never for the executor.
    worker_class = SimpleWorker if role == "agent" and not settings.worker_fork else Worker
    worker = worker_class([queues[queue_name]], connection=redis, serializer=JSONSerializer)
    serve_health(settings.health_port, settings.health_host, RQWorkerProbe(worker, [watchdog_thread]),
                 {"redis": redis_check(settings.redis_url)}, [queue_collector(settings.redis_url),
                                                              plan_collector(settings)])
    try:
        # RQ's line per job (taken, done, result kept) is the queue's access log: shown at DEBUG only.
        queue_log_level = "DEBUG" if settings.log_level.upper() == "DEBUG" else "WARNING"
        worker.work(with_scheduler=True, burst=burst, logging_level=queue_log_level)
    finally:
        stop.set()
