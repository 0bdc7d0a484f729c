"""Entry point for `deputy connect-page`."""

from __future__ import annotations

import time

from aiohttp import web
from redis import Redis

from deputy.agent.answers import add_answer
from deputy.agent.confidential_records import seal_existing
from deputy.agent.goals import GoalStore
from deputy.credential_page.confidential_page import ConfidentialPage
from deputy.core.confidential import WaitingWork, confidential_keys, install_unlock_key
from deputy.core.accounts.connect_links import ConnectLinks
from deputy.credential_page.card_reminders import card_reminders
from deputy.credential_page.oauth_signin import OAuthSignIn
from deputy.credential_page.page import create_app
from deputy.runtime.health import LoopProbe, redis_check, serve_health
from deputy.core.records.outbox import Outbox
from deputy.core.infrastructure.redis_clients import sync_client
from deputy.settings import Settings
from deputy.sentinel.stores.audit import AuditLog
from deputy.vault import Vault
from deputy.queue.dispatch import RQDispatch
from deputy.vault.migrate import unlock_vault
from deputy.runtime.egress_guards import endpoint_guard


def confidential_page(redis: Redis, audit: AuditLog, vault: Vault) -> ConfidentialPage:
    """Turning on and unlocking; an unlock hands the work that waited back to the queues."""
    dispatch = RQDispatch(redis)

    goals, keys = GoalStore(redis), confidential_keys(redis)

    def answer(goal_id: str, sealed: str) -> None:
        goal = goals.get(goal_id)
        if goal is not None:
            add_answer(goals, goal_id, keys.open_text(goal.user_id, sealed), time.time(), dispatch.step)

    def resume(user_id: int) -> None:
        WaitingWork(redis).resume(user_id, dispatch, time.time(), answer)

    def seal_everything(user_id: int) -> None:
        seal_existing(redis, user_id)
        audit.reseal(user_id)
        vault.reseal(user_id)

    return ConfidentialPage(keys, Outbox(redis), audit.append, resume, seal_everything,
                            time.time)


def serve(settings: Settings, host: str, port: int) -> None:
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set: point it at your Redis, e.g. redis://127.0.0.1:6379/0")
    redis = sync_client(settings.redis_url, patient=False)
    vault = Vault(redis, unlock_vault(redis, settings))
    install_unlock_key(settings.unlock_key_value())
    audit = AuditLog(redis, settings.audit_key_value(), keep=settings.audit_keep)
    links, outbox = ConnectLinks(redis), Outbox(redis)
    dispatch = RQDispatch(redis)
    # Signing in again hands back the actions that waited for it (parked by the executor).
    signin = OAuthSignIn(redis, links, vault, outbox, audit, settings.oauth_providers(), settings.connect_base_url(),
                         on_connected=lambda user_id: WaitingWork(redis).resume(user_id, dispatch, time.time()))
    app = create_app(links, vault, outbox, audit,
                     egress=endpoint_guard(settings), card_connected=card_reminders(redis),
                     confidential=confidential_page(redis, audit, vault), signin=signin)
    live = LoopProbe()
    app.on_startup.append(live.bind_running)
    serve_health(settings.health_port, settings.health_host, live, {"redis": redis_check(settings.redis_url)})
    print(f"Connect page on http://{host}:{port} (links: {settings.connect_base_url()}/connect/...)", flush=True)
    web.run_app(app, host=host, port=port, print=None, access_log=None)
