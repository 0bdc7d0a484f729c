"""`deputy executor`: reviews every action with Sentinel and runs approved ones; the only process
that opens the vault.

Here, and only here, settings become the executor's objects: the vault, each connector's runners
(mail, calendar, the browser, imported APIs), payments, hand-offs and connections. Its RQ job
functions are below; `deputy.queue.job_paths` names them for the processes that enqueue them.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from redis import Redis
from rq import get_current_job

from deputy.agent.goals import GoalStore
from deputy.apps.worker_process import LEASE_SECONDS, WorkerContext, holding, install, open_redis, service, serve_worker
from deputy.connectors.calendar.client import CalDavAccount
from deputy.connectors.calendar.reverts import CalendarReverts
from deputy.connectors.calendar.runners import CalendarRunners
from deputy.connectors.custom import CustomConnectors, UserCatalogs
from deputy.core.infrastructure.clock import process_clock
from deputy.connectors.email.imap import ImapAccount, ImapSession
from deputy.connectors.email.imap_accounts import ImapAccounts
from deputy.connectors.email.mail_reverts import MailReverts
from deputy.connectors.email.mail_runners import MailRunners
from deputy.connectors.email.sent_copy import SentFolder
from deputy.connectors.email.smtp import SmtpAccount
from deputy.connectors.http.client import guarded_client
from deputy.connectors.openapi.api import ImportedApi
from deputy.connectors.openapi.runner import OpenApiRunner
from deputy.connectors.web.browser import BrowserSessions
from deputy.connectors.web.logins import VaultLogins
from deputy.connectors.web.runners import DEFAULT_SEARCH_URL, WebRunners
from deputy.connectors.web.confinement import INSTALL_HINT, confinement_problem
from deputy.connectors.web.session import BrowserConfig
from deputy.connectors.web.states import BrowserStates
from deputy.connectors.web.slots import BrowserSlots
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.core.confidential import install_unlock_key
from deputy.core.records.handoff import HandOffRecorder, HandOffStore
from deputy.core.records.outbox import Outbox
from deputy.core.records.payloads import (
    ACTIONS_QUEUE,
    ActionJob,
    AddConnectorJob,
    ApprovalExpiryJob,
    EraseUserJob,
    ForgetConnectionJob,
    HandOffCodeJob,
    UndoJob,
)
from deputy.executor.card_reminders import CardReminder, send_reminder
from deputy.executor.connections import Connections
from deputy.executor.credentials import EmailAccounts
from deputy.executor.oauth_tokens import OAuthTokens
from deputy.executor.custom_connectors import CustomConnectorService
from deputy.executor.egress_context import egress_context_for
from deputy.executor.erasure import STORES as ERASED_STORES
from deputy.executor.executor import Executor
from deputy.executor.handoffs import HandOffService, web_recorder
from deputy.executor.issuer_client import HttpIssuerClient
from deputy.executor.mandates import MandateSigner
from deputy.executor.negotiation_moves import sentence_meaning
from deputy.executor.payments import PaymentIssuer, receipt_on_confirmation
from deputy.executor.travel import travel_runners
from deputy.executor.review_context import ReviewContextBuilder, stored_rules
from deputy.memory import MemoryStore
from deputy.queue.dispatch import RQDispatch, action_unit, erase_user_units
from deputy.queue.replication import replica_confirmation
from deputy.runtime.egress_guards import caldav_connect, endpoint_guard, mcp_visitor
from deputy.runtime.operations import build_catalog, imported_apis
from deputy.sentinel.egress.policy import EgressContext, EgressPolicy, reviewer
from deputy.sentinel.stores.action_store import ActionStore
from deputy.sentinel.stores.approvals import ApprovalSigner, ApprovalStore
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.settings import Settings
from deputy.vault import PaymentTokens, Scrubber, Vault, VaultKey
from deputy.vault.migrate import migrate_file_vault, unlock_vault

log = logging.getLogger(__name__)

EXECUTOR = "the executor (`deputy executor`)"


def execute_action(payload: dict[str, Any]) -> str:
    """The RQ job of one action (actions queue), holding the action's lease."""
    job = ActionJob.model_validate(payload)

    def work(context: WorkerContext) -> str:
        if context.executor is None:
            raise RuntimeError("actions run on the executor (`deputy executor`)")
        context.executor.handle(job)
        return "handled"

    return holding(action_unit(job.action_id), work)


def expire_approval(payload: dict[str, Any]) -> str:
    service("executor", EXECUTOR).expire(ApprovalExpiryJob.model_validate(payload).approval_id)
    return "checked"


def undo_action(payload: dict[str, Any]) -> str:
    service("executor", EXECUTOR).undo(UndoJob.model_validate(payload).action_id)
    return "checked"


def forget_connection(payload: dict[str, Any]) -> str:
    return service("connections", EXECUTOR).forget(ForgetConnectionJob.model_validate(payload))


def erase_user(payload: dict[str, Any]) -> str:
    return service("connections", EXECUTOR).erase(EraseUserJob.model_validate(payload))


def add_connector(payload: dict[str, Any]) -> str:
    return service("custom_connectors", EXECUTOR).add(AddConnectorJob.model_validate(payload))


def enter_handoff_code(payload: dict[str, Any]) -> str:
    return service("handoffs", EXECUTOR).enter(HandOffCodeJob.model_validate(payload))


def remind_card_expiry(payload: dict[str, Any]) -> str:
    """The heads-up a month before a connected card expires, scheduled by the connect page."""
    job = get_current_job()
    assert job is not None, "runs as an RQ job"
    return send_reminder(job.connection, CardReminder.model_validate(payload), time.time())


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
    host_socket = str(settings.browser_host_socket.absolute()) if settings.browser_host_socket else None
    config = BrowserConfig(confined=settings.browser_confined, worker=settings.browser_worker, host_socket=host_socket,
                           max_open=settings.max_browsers, idle_seconds=settings.browser_idle_seconds)
    if not config.confined:
        log.warning("DEPUTY_BROWSER_CONFINED is off: Chromium runs unconfined, as this process's own user")
    elif host_socket is not None:
        # The host confines the browsers: this process needs neither bubblewrap nor root to browse.
        log.info("browsers are started by the browser host at %s", host_socket)
    elif (problem := confinement_problem()) is not None:
        # The operations stay, so users are told the browser is unavailable; nothing runs unconfined.
        log.error("the browser cannot be confined here, so web browsing will fail: %s. %s", problem, INSTALL_HINT)
    policy = EgressPolicy(allow_private_networks=settings.egress_allow())
    goals, memory = GoalStore(redis), MemoryStore(redis)

    def review_for(action):
        return reviewer(policy, egress_context_for(action, goals, memory))

    def show_user(action, image: bytes, caption: str, dedupe_key: str) -> None:
        Outbox(redis).send_photo(action.chat_id, image, caption, dedupe_key=dedupe_key)

    def tell_user(action, text: str, dedupe_key: str) -> None:
        Outbox(redis).send(action.chat_id, text, dedupe_key=dedupe_key)

    # Cookies and local storage are kept sealed in Redis: a login follows the user to any executor.
    # The cap on browsers holds across executors: each open browser leases a slot in Redis.
    sessions = BrowserSessions(config, states=BrowserStates(redis, key.sealer("browser")),
                               slots=BrowserSlots(redis, config.max_open))
    recorder = web_recorder(HandOffRecorder(HandOffStore(redis), Outbox(redis)))
    return WebRunners(sessions, review_for, logins=VaultLogins(vault),
                      search_url=settings.search_url or DEFAULT_SEARCH_URL, show_user=show_user, handoffs=recorder,
                      tell_user=tell_user)


def build_handoffs(redis: Redis, web: WebRunners | None, audit: AuditLog,
                   payments: PaymentIssuer | None = None) -> HandOffService | None:
    """Typing the codes users send into the pages that asked for them (needs the browser); a
    payment the bank made the user confirm gets its receipt once the page accepted the code."""
    if web is None:
        return None
    return HandOffService(HandOffStore(redis), HandOffRecorder(HandOffStore(redis), Outbox(redis)), GoalStore(redis),
                          Outbox(redis), audit, RQDispatch(redis).step, web.enter_code,
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
    clock = process_clock()  # real time, or an end-to-end test's clock (DEPUTY_TEST_CLOCK_FILE)
    audit = AuditLog(redis, settings.audit_key_value(), keep=settings.audit_keep)
    egress = endpoint_guard(settings)  # mail, calendar and MCP servers: checked and pinned per connection
    smtp_opener = egress.for_connector("smtp").connect
    imap = egress.for_connector("imap")
    oauth = oauth_tokens(redis, settings, vault)
    imap_accounts = ImapAccounts(vault, imap_account(settings), signed_in=oauth.imap_account).for_user
    imap_session = lambda account: ImapSession(account, opener=imap.connect)  # noqa: E731
    email = EmailAccounts(vault, email_account(settings), opener=smtp_opener,
                          sent=SentFolder(imap_accounts, session=imap_session), signed_in=oauth.smtp_account)
    mail = MailRunners(imap_accounts, email.reply_sender(), session=imap_session)
    calendar = CalendarRunners(vault, default=caldav_account(settings),
                               zone_for=lambda user_id: UserSettingsStore(redis).clock_settings(user_id).timezone,
                               connect=caldav_connect(egress), signed_in=oauth.caldav_account)
    apis_run = api_runners(settings, apis, vault)
    payments = payment_issuer(settings, redis, vault, clock)
    runners = {
        **mail.runners(), "email.send_email": email.runner(), **calendar.runners(), **apis_run,
        **(web.runners() if web is not None else {}),
        **travel_runners(redis, apis_run, {a.service: a.base_url for a in apis}, payments, calendar, vault,
                         today=lambda: datetime.fromtimestamp(clock()).date()),
    }
    goals = GoalStore(redis)
    catalogs = UserCatalogs(build_catalog(apis), CustomConnectors(redis))
    custom = CustomConnectorService(
        CustomConnectors(redis), catalogs, guarded_client(reviewer(EgressPolicy(allow_private_networks=settings.egress_allow()), EgressContext()), connector="custom"),
        vault, Outbox(redis), audit, egress=egress, visitor=mcp_visitor(egress),
    )
    return custom, Executor(
        ActionStore(redis),
        ApprovalStore(redis),
        goals,
        Outbox(redis),
        audit,
        ApprovalSigner(settings.secret_value()),
        RQDispatch(redis),
        runners,
        ReviewContextBuilder(redis, goals, build_catalog(apis), stored_rules(RuleStore(redis)), user_catalogs=catalogs),
        approval_ttl=settings.approval_ttl_seconds,
        clock=clock,
        scrubber=Scrubber([p for p in (settings.smtp_password, settings.imap_password, settings.caldav_password) if p]),
        user_runners=custom.runner_for,
        payments=payments,
        replicated=replica_confirmation(redis),
        evidence=email.sent_note,
        meaning=sentence_meaning(),
        send_window=settings.send_window_seconds,
        reverters={"calendar": CalendarReverts(calendar).revert, "email": MailReverts(mail).revert},
        oauth=oauth,
    )


def oauth_tokens(redis: Redis, settings: Settings, vault: Vault) -> OAuthTokens:
    """Access tokens of the connections users made by signing in (DEPUTY_OAUTH_PROVIDERS)."""
    return OAuthTokens(vault, settings.oauth_providers(), redis, Outbox(redis), settings.connect_base_url())


def payment_issuer(settings: Settings, redis: Redis, vault: Vault,
                   clock: Callable[[], float] = time.time) -> PaymentIssuer:
    """Tokens from the card issuer when one is configured, else the vault's own."""
    if not settings.issuer_url or settings.issuer_key is None:
        return PaymentIssuer(PaymentTokens(redis, vault), redis, clock=clock)
    signer = MandateSigner(settings.mandate_key.get_secret_value().encode()) if settings.mandate_key else None
    issuer = HttpIssuerClient(settings.issuer_url, settings.issuer_key)
    return PaymentIssuer(PaymentTokens(redis, vault), redis, issuer=issuer, vault=vault, mandates=signer, clock=clock)


def api_runners(settings: Settings, apis: list[ImportedApi], vault: Vault) -> dict:
    """The imported APIs' runners: each adds its credential from the vault, every request egress-guarded."""
    policy = EgressPolicy(allow_private_networks=settings.egress_allow())
    client = guarded_client(reviewer(policy, EgressContext()), connector="openapi")
    runners: dict = {}
    for api in apis:
        runners.update(OpenApiRunner(api, client, vault).runners())
    return runners


def serve(settings: Settings, burst: bool = False) -> None:
    """Run the executor: actions and the other credentialed jobs, with a watchdog beside it."""
    redis = open_redis(settings)
    install_unlock_key(settings.unlock_key_value())
    context = WorkerContext(redis=redis, lease_ttl=LEASE_SECONDS)
    apis = imported_apis(settings)
    vault, key = open_vault(redis, settings)
    web = web_connector(settings, redis, vault, key)
    context.custom_connectors, context.executor = build_executor(redis, settings, apis, web=web, vault=vault)
    audit = AuditLog(redis, settings.audit_key_value(), keep=settings.audit_keep)
    context.handoffs = build_handoffs(redis, web, audit, payment_issuer(settings, redis, vault, process_clock()))
    context.connections = Connections(vault, Outbox(redis), audit, redis=redis, data_dir=settings.data_dir,
                                      stores=(*ERASED_STORES, erase_user_units),
                                      revoke=oauth_tokens(redis, settings, vault).revoke)
    install(context)
    # Always a fork per job: an action must not share a crash with the next one.
    serve_worker(settings, redis, ACTIONS_QUEUE, fork=True, burst=burst)
