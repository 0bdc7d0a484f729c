"""The `deputy` command: `run` starts everything locally; the others start one process each."""

from __future__ import annotations

import argparse
import logging
import sys

from pydantic import ValidationError

from deputy.settings import Settings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="deputy", description="Deputy, a personal agent you text goals to.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="everything on this machine: chat page, Redis, workers, sandbox mail, model")
    sub.add_parser("bot", help="the chat front end (python-telegram-bot)")
    sub.add_parser("whatsapp", help="the WhatsApp front end (Cloud API webhook, same handlers as the bot)")
    wa_emulator = sub.add_parser("wa-emulator", help="the local WhatsApp Cloud API emulator and its chat page")
    wa_emulator.add_argument("--port", type=int, default=None, help="port (default: DEPUTY_WHATSAPP_CHAT_PORT or 8082)")
    wa_emulator.add_argument("--host", default="127.0.0.1")
    wa_emulator.add_argument("--webhook", default=None, help="where to deliver (default: DEPUTY_WHATSAPP_LISTEN)")
    wa_emulator.add_argument("--telegram-page", default=None, help="the Telegram chat page, for the switch")
    worker = sub.add_parser("worker", help="an agent worker (runs goal steps with the model)")
    worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    sub.add_parser("gateway", help="the model gateway (many model calls in flight for all agent workers)")
    sub.add_parser("browser-host", help="the browser host (starts each user's keyless browser worker for executors)")
    executor = sub.add_parser("executor", help="the executor (runs reviewed actions with credentials)")
    executor.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    connect = sub.add_parser("connect-page", help="the private page where users connect accounts (/connect)")
    connect.add_argument("--port", type=int, default=None, help="port (default: DEPUTY_CONNECT_PORT or 8081)")
    connect.add_argument("--host", default="127.0.0.1")
    web_view = sub.add_parser("web-view", help="the private web view of goals, actions and the audit trail (/web)")
    web_view.add_argument("--port", type=int, default=None, help="port (default: DEPUTY_WEB_PORT or 8083)")
    web_view.add_argument("--host", default="127.0.0.1")
    sandbox = sub.add_parser("sandbox", help="the sandbox world alone: mail, calendar, restaurants, tickets, shop")
    sandbox.add_argument("--json", action="store_true", help="print the endpoints and demo credentials as JSON")
    training = sub.add_parser("export-training-data", help="conversations of opted-in users, personal data removed")
    training.add_argument("--out", required=True, help="JSON Lines file to write")
    audit = sub.add_parser("audit", help="the audit trail: `deputy audit verify` checks it has not been tampered with")
    audit_sub = audit.add_subparsers(dest="audit_command", required=True)
    verify = audit_sub.add_parser("verify", help="check every entry's seal and link, for every user or one")
    verify.add_argument("--user", type=int, default=None, help="only this user's trail (a chat user id)")
    _add_users(sub)
    emulator = sub.add_parser("emulator", help="the local Telegram emulator and chat page alone")
    emulator.add_argument("--port", type=int, default=None, help="port (default: DEPUTY_CHAT_PORT or 8080)")
    emulator.add_argument("--host", default="127.0.0.1")
    emulator.add_argument("--lenient", action="append", default=[], metavar="RULE",
                          help="relax one of the real Bot API's rules for a test: query-expiry, rate-limits or "
                               "webhook-url (also DEPUTY_EMULATOR_LENIENT=RULE,RULE)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = Settings()
    except ValidationError as exc:  # e.g. a mistyped REDIS_SENTINELS: say what to fix, not a traceback
        raise SystemExit("; ".join(error["msg"].removeprefix("Value error, ") for error in exc.errors())) from None
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )
    # httpx logs every request URL at INFO, and a Telegram URL contains the bot token.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    # One line per HTTP request (the bot's long polls every few seconds) drowns Deputy's own
    # lines: access logs show only at DEBUG.
    if logging.getLogger().getEffectiveLevel() > logging.DEBUG:
        logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
        logging.getLogger("mail.log").setLevel(logging.WARNING)  # the sandbox SMTP server's connections
    if args.command == "run":
        from deputy.apps.local import run_local

        return run_local(settings)
    if args.command == "bot":
        from deputy.apps.bot import serve

        serve(settings)
    elif args.command == "whatsapp":
        from deputy.apps.whatsapp import serve as serve_whatsapp

        serve_whatsapp(settings)
    elif args.command == "wa-emulator":
        from deputy.apps.whatsapp import run_emulator

        run_emulator(settings, args.host, args.port, args.webhook, args.telegram_page)
    elif args.command in ("worker", "executor"):
        if settings.health_port:
            from deputy.core.infrastructure.metrics_dir import count_across_forks

            count_across_forks()  # before anything that counts is imported: jobs run in forked children
        if args.command == "worker":
            from deputy.apps.agent_worker import serve as serve_worker
        else:
            from deputy.apps.executor import serve as serve_worker

        serve_worker(settings, burst=args.burst)
    elif args.command == "gateway":
        from deputy.apps.gateway import serve as serve_gateway

        serve_gateway(settings)
    elif args.command == "browser-host":
        from deputy.apps.browser_host import serve as serve_browser_host

        serve_browser_host(settings)
    elif args.command == "connect-page":
        from deputy.apps.connect_page import serve as serve_connect

        serve_connect(settings, host=args.host, port=args.port or settings.connect_port)
    elif args.command == "web-view":
        from deputy.apps.web_view import serve as serve_web_view

        serve_web_view(settings, host=args.host, port=args.port or settings.web_port)
    elif args.command == "sandbox":
        from deputy.apps.sandbox import serve as serve_sandbox

        serve_sandbox(settings, as_json=args.json)
    elif args.command == "export-training-data":
        from pathlib import Path

        from deputy.core.infrastructure.redis_clients import sync_client
        from deputy.admin.training_export import export_training_data

        if not settings.redis_url:
            raise SystemExit("REDIS_URL is not set.")
        count = export_training_data(sync_client(settings.redis_url, patient=False), Path(args.out), settings.secret_value())
        print(f"Wrote {count} conversations of users who opted in to {args.out}.")
    elif args.command == "audit":
        from deputy.admin.audit_verify import verify_trails
        from deputy.core.infrastructure.redis_clients import sync_client

        if not settings.redis_url:
            raise SystemExit("REDIS_URL is not set.")
        return verify_trails(sync_client(settings.redis_url, patient=False), settings.audit_key_value(), args.user, print)
    elif args.command == "users":
        return _users(args, settings)
    elif args.command == "emulator":
        from deputy.runtime.health import LoopProbe, serve_health
        from deputy.emulator import ApiRules, run

        try:
            rules = ApiRules.from_environment(args.lenient)
        except ValueError as exc:
            raise SystemExit(str(exc)) from None
        live = LoopProbe()
        serve_health(settings.health_port, settings.health_host, live, {})  # keeps no state of its own to reach
        run(host=args.host, port=args.port or settings.chat_port, on_startup=[live.bind_running],
            whatsapp_page=f"http://127.0.0.1:{settings.whatsapp_chat_port}/", rules=rules)
    return 0


def _add_users(sub: argparse._SubParsersAction) -> None:
    from deputy.admin.users import add_parser

    add_parser(sub)


def _users(args: argparse.Namespace, settings: Settings) -> int:
    from deputy.core.accounts.quotas import Quotas
    from deputy.core.infrastructure.redis_clients import sync_client
    from deputy.admin.users import run

    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set.")
    return run(args, Quotas(sync_client(settings.redis_url, patient=False), settings.plan_book()), print)


if __name__ == "__main__":
    raise SystemExit(main())
