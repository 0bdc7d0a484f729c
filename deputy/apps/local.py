"""`deputy run`: everything on one machine, with nothing configured.

Whatever is not configured is started locally: Redis (with AOF, in the data directory),
the chat emulator (instead of Telegram), the sandbox mail server (instead of a real mail
account) and a local model (llama.cpp, see `deputy.local_model.model`; the rule-based demo brain
if it is turned off or cannot start) instead of a hosted one. Then the bot, an agent worker, the model
gateway and the executor run as separate processes, each given only the settings it needs: the executor
gets the mail password, the agent worker never does. Crashed processes are restarted.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import threading
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from redis import Redis
from redis.exceptions import RedisError

from deputy.core.infrastructure.ports import free_port
from deputy.local_model.server import die_with_parent, stop_process
from deputy.settings import Settings

if TYPE_CHECKING:
    from deputy.sandbox.services import SandboxEndpoints

log = logging.getLogger(__name__)

_RESTART_BACKOFF = 2.0


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def wait_until(check, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except (OSError, RedisError, httpx.HTTPError):
            pass
        time.sleep(0.1)
    raise SystemExit(f"{what} did not start within {timeout:.0f} s; see the messages above.")


def _deputy(*args: str) -> list[str]:
    return [sys.executable, "-m", "deputy", *args]


def _stored_password(path: Path) -> str:
    if not path.exists():
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(18))
    return path.read_text().strip()


def run_local(settings: Settings) -> int:
    data = settings.data_dir.resolve()
    data.mkdir(parents=True, exist_ok=True)
    # One health port cannot serve several processes: `deputy run` starts them without one.
    base_env = {k: v for k, v in os.environ.items() if k != "DEPUTY_HEALTH_PORT"}
    base_env["DEPUTY_SECRET"] = settings.secret_value()
    # Agent workers get no DEPUTY_SECRET but write the audit trail: they get its key on its own.
    base_env["DEPUTY_AUDIT_KEY"] = settings.audit_key_material()
    base_env["DEPUTY_UNLOCK_KEY"] = settings.unlock_key_material()
    base_env["DEPUTY_DATA_DIR"] = str(data)
    # The local chat page's users are the operator's own: on the biggest shipped plan unless told otherwise.
    if not settings.plans_file and not settings.default_plan:
        base_env["DEPUTY_DEFAULT_PLAN"] = "pro"
    children: dict[str, tuple[list[str], dict[str, str]]] = {}
    services: list[subprocess.Popen] = []
    notes: list[str] = []
    world = brain = None

    try:
        if not settings.redis_url:
            if shutil.which("redis-server") is None:
                raise SystemExit("redis-server is not installed: run `make run`, which installs it, or set REDIS_URL.")
            port = free_port()
            (data / "redis").mkdir(exist_ok=True)
            services.append(_spawn(
                ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data / "redis"),
                 "--appendonly", "yes", "--save", "", "--loglevel", "warning"],
                stdout=subprocess.DEVNULL,
            ))
            base_env["REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
            wait_until(lambda: Redis.from_url(base_env["REDIS_URL"]).ping(), "Redis")
            notes.append(f"Redis: local, data kept in {data / 'redis'}")

        if settings.telegram_bot_token is None:
            if not _port_free(settings.chat_port):
                raise SystemExit(
                    f"Port {settings.chat_port} is already in use; set DEPUTY_CHAT_PORT to a free port and try again."
                )
            chat_url = f"http://127.0.0.1:{settings.chat_port}"
            services.append(_spawn(_deputy("emulator", "--port", str(settings.chat_port)), env=base_env))
            wait_until(lambda: httpx.get(f"{chat_url}/healthz").status_code == 200, "The local chat")
            base_env["TELEGRAM_API_BASE"] = f"{chat_url}/bot"
            notes.append("Chat: the local chat page (set TELEGRAM_BOT_TOKEN for real Telegram)")

        if settings.whatsapp_token is None:
            wa_url = _start_whatsapp_emulator(settings, base_env, services)
            notes.append(f"WhatsApp: the local WhatsApp page at {wa_url}/ (set DEPUTY_WHATSAPP_TOKEN for real WhatsApp)")

        executor_env: dict[str, str] = {}
        if not settings.smtp_host:
            from deputy.sandbox.services import SandboxServices

            world = SandboxServices(data)
            endpoints = world.start()
            executor_env = sandbox_environment(endpoints)
            base_env.update(api_environment(endpoints))
            base_env["DEPUTY_OAUTH_PROVIDERS"] = endpoints.oauth_provider_spec()  # "Sign in with Sandbox"
            notes.append("Sandbox world: mail, calendar, restaurants, tickets, two shops, an airline, hotels, a card "
                         "issuer, a "
                         "marketplace with buyers to negotiate with, and a web search (`deputy sandbox --json` "
                         "lists them); mail for "
                         f"{endpoints.demo_address} is readable over IMAP")

        if settings.openai_api_key is None and not settings.openai_base_url:
            brain = _start_brain(settings, base_env, notes)

        _fetch_speech(settings, notes)

        # Model calls go through the model gateway unless the operator turned it off.
        base_env.setdefault("DEPUTY_MODEL_GATEWAY", "on")
        secret_names = {"DEPUTY_SMTP_PASSWORD", "DEPUTY_VAULT_KEY"}
        public_env = {k: v for k, v in base_env.items() if k not in secret_names}
        children["bot"] = (_deputy("bot"), public_env)
        # The web view behind /web links reads records and answers cards like the bot: no credentials.
        children["web-view"] = (_deputy("web-view"), {k: v for k, v in public_env.items()
                                                      if k not in ("TELEGRAM_BOT_TOKEN", "OPENAI_API_KEY")})
        children["whatsapp"] = (_deputy("whatsapp"), public_env)
        # The connect page writes what users type into the vault: it needs the vault key.
        children["connect-page"] = (_deputy("connect-page"), {k: v for k, v in base_env.items()
                                                              if k not in ("TELEGRAM_BOT_TOKEN", "OPENAI_API_KEY")})
        # The agent worker signs nothing and sends nothing itself: no token, no secret.
        children["worker"] = (
            _deputy("worker"),
            {k: v for k, v in public_env.items() if k not in ("TELEGRAM_BOT_TOKEN", "DEPUTY_SECRET")},
        )
        if Settings(**{"DEPUTY_MODEL_GATEWAY": base_env["DEPUTY_MODEL_GATEWAY"]}).model_gateway:
            # The gateway holds the model key and calls the model for every worker.
            children["gateway"] = (
                _deputy("gateway"),
                {k: v for k, v in public_env.items() if k not in ("TELEGRAM_BOT_TOKEN", "DEPUTY_SECRET")},
            )
        children["executor"] = (
            _deputy("executor"),
            {k: v for k, v in {**base_env, **executor_env}.items() if k not in ("TELEGRAM_BOT_TOKEN", "OPENAI_API_KEY")},
        )
        running = {name: _spawn(cmd, env=env) for name, (cmd, env) in children.items()}
        notes.append(f"Web view: {settings.web_base_url()} (send /web in the chat for your private link)")

        print("\n".join(["", "Deputy is running.", *(f"  {n}" for n in notes)]), flush=True)
        if settings.telegram_bot_token is None:
            print(f"\n  Open http://127.0.0.1:{settings.chat_port} in your browser and text your agent.\n", flush=True)
        print("Press Ctrl+C to stop.", flush=True)
        return _supervise(running, children)
    finally:
        # What the processes stood on goes last: the chat page, then Redis.
        _stop_in_order(list(reversed(services)))
        if world is not None:
            world.stop()
        if brain is not None:
            brain.stop()
        print("Deputy stopped.", flush=True)


def _warm_up(base_url: str, model: str, max_tools: int | None) -> None:
    """Have the local model read Deputy's instructions now, so the first goal does not wait for it."""
    from deputy.local_model.warmup import warm_up

    try:
        seconds = warm_up(base_url, model, max_tools)
    except httpx.HTTPError as exc:
        log.debug("the local model's warm-up did not finish: %s", exc)
        return
    print(f"The local model has read Deputy's instructions ({seconds:.0f} s): goals start from there.", flush=True)


def _start_whatsapp_emulator(settings: Settings, base_env: dict[str, str], services: list[subprocess.Popen]) -> str:
    """The local WhatsApp Cloud API and its chat page, delivering to the local WhatsApp surface."""
    if not _port_free(settings.whatsapp_chat_port):
        raise SystemExit(f"Port {settings.whatsapp_chat_port} is already in use; set DEPUTY_WHATSAPP_CHAT_PORT "
                         "to a free port and try again.")
    url = f"http://127.0.0.1:{settings.whatsapp_chat_port}"
    command = _deputy("wa-emulator", "--port", str(settings.whatsapp_chat_port))
    if settings.telegram_bot_token is None:
        command += ["--telegram-page", f"http://127.0.0.1:{settings.chat_port}/"]
    services.append(_spawn(command, env=base_env))
    wait_until(lambda: httpx.get(f"{url}/healthz").status_code == 200, "The local WhatsApp page")
    return url


def _fetch_speech(settings: Settings, notes: list[str]) -> None:
    """The speech model's weights, fetched once into the cache (as the local model's are), so the first voice
    note is not kept waiting; a failure only means recordings are refused politely."""
    if settings.speech != "local" or settings.speech_model_dir is not None:
        return
    from deputy.speech.weights import WeightsError, ensure_speech_weights

    try:
        ensure_speech_weights(settings.speech_model_path().parent, lambda line: print(line, flush=True))
        notes.append("Voice notes: heard on this machine (Whisper base)")
    except (WeightsError, OSError) as exc:
        print(f"The speech model could not be fetched ({exc}); voice notes will be refused politely.", flush=True)


def _start_brain(settings: Settings, base_env: dict[str, str], notes: list[str]):
    """The local model (llama.cpp), or the rule-based demo brain if it is off or cannot start."""
    from deputy.local_model.model import LocalModelError, ensure_local_model

    if settings.local_model:
        try:
            model = ensure_local_model(settings.cache_path(), lambda line: print(line, flush=True),
                                       gguf=settings.local_gguf, threads=settings.local_threads)
        except LocalModelError as exc:
            print(f"The local model could not start: {exc}\nUsing the built-in demo brain instead, which only "
                  "understands “email <address> that <message>”.", flush=True)
        else:
            for key, value in model.env().items():
                # The user's own DEPUTY_MAX_TOOLS / DEPUTY_MODEL_TIMEOUT win over the local model's defaults.
                if key in ("OPENAI_BASE_URL", "DEPUTY_MODEL") or key not in base_env:
                    base_env[key] = value
            notes.append(f"Model: {model.model}, local (llama.cpp on 127.0.0.1; set OPENAI_API_KEY or "
                         "OPENAI_BASE_URL for a hosted model)")
            max_tools = int(base_env["DEPUTY_MAX_TOOLS"]) if base_env.get("DEPUTY_MAX_TOOLS") else None
            threading.Thread(target=_warm_up, args=(model.base_url, model.model, max_tools), name="warm-up",
                             daemon=True).start()
            return model
    from deputy.agent.model.testing import ScriptedModelServer, function_responder
    from deputy.local_model.stand_in import NAME, demo_reply

    brain = ScriptedModelServer(function_responder(demo_reply), model_name=NAME).start()
    base_env["OPENAI_BASE_URL"] = brain.base_url
    base_env["DEPUTY_MODEL"] = NAME
    notes.append("Model: the built-in demo brain (set OPENAI_API_KEY or OPENAI_BASE_URL for a real model)")
    return brain


def sandbox_environment(endpoints: SandboxEndpoints) -> dict[str, str]:
    """The executor's default accounts: the sandbox demo user's mail and calendar."""
    env = {
        "DEPUTY_SMTP_HOST": endpoints.smtp_host, "DEPUTY_SMTP_PORT": str(endpoints.smtp_port),
        "DEPUTY_SMTP_USERNAME": endpoints.demo_address, "DEPUTY_SMTP_PASSWORD": endpoints.demo_password,
        "DEPUTY_SMTP_FROM": endpoints.demo_address, "DEPUTY_SMTP_STARTTLS": "false",
        "DEPUTY_IMAP_HOST": endpoints.imap_host, "DEPUTY_IMAP_PORT": str(endpoints.imap_port),
        "DEPUTY_IMAP_USERNAME": endpoints.demo_address, "DEPUTY_IMAP_PASSWORD": endpoints.demo_password,
        "DEPUTY_IMAP_SSL": "false", "DEPUTY_IMAP_STARTTLS": "false",
    }
    if endpoints.caldav_url:
        env.update({"DEPUTY_CALDAV_URL": endpoints.caldav_url, "DEPUTY_CALDAV_USERNAME": endpoints.demo_address,
                    "DEPUTY_CALDAV_PASSWORD": endpoints.demo_password})
    if endpoints.issuer_url and endpoints.issuer_key:
        env.update({"DEPUTY_ISSUER_URL": endpoints.issuer_url, "DEPUTY_ISSUER_KEY": endpoints.issuer_key,
                    "DEPUTY_MANDATE_KEY": endpoints.mandate_key or ""})
    return env


def api_environment(endpoints: SandboxEndpoints) -> dict[str, str]:
    """The sandbox sites as OpenAPI services, and the sandbox search as the web search, behind the egress guard."""
    sites = endpoints.site_urls()
    # The sandbox mail and calendar servers too, so a user may also connect them as their own account.
    servers = [f"{endpoints.smtp_host}:{endpoints.smtp_port}", f"{endpoints.imap_host}:{endpoints.imap_port}"]
    if endpoints.caldav_url:
        servers.append(endpoints.caldav_url.removeprefix("http://").split("/", 1)[0])
    if endpoints.imap_oauth_port:
        servers.append(f"{endpoints.imap_host}:{endpoints.imap_oauth_port}")
    if endpoints.caldav_oauth_url:
        servers.append(endpoints.caldav_oauth_url.removeprefix("http://").split("/", 1)[0])
    reachable = [*sites.values(), *([endpoints.search_url] if endpoints.search_url else [])]
    env = {
        "DEPUTY_OPENAPI_SERVICES": ",".join(f"{name}={url}/openapi.json" for name, url in sites.items()),
        "DEPUTY_EGRESS_ALLOW": ",".join([*(url.removeprefix("http://") for url in reachable), *servers]),
    }
    if endpoints.search_url:
        env["DEPUTY_SEARCH_URL"] = endpoints.search_url + "/search?q={query}"
    # The listings suggestions are matched against (public catalogues: no user data goes out).
    env["DEPUTY_SUGGESTION_SOURCES"] = ",".join(f"{name}={url}" for name, url in sites.items()
                                                if name in ("tickets", "restaurants", "shop", "market", "marketplace"))
    return env


# Front end first (no new goals or presses), then the agent workers and the gateway, then the
# executor (it may be finishing an approved action), and only then what they all stand on.
_STOP_ORDER = ("bot", "web-view", "connect-page", "worker", "gateway", "executor")


def _spawn(command: list[str], **options: Any) -> subprocess.Popen:
    """A child in its own session, so the terminal's Ctrl+C reaches only `deputy run`, which then
    stops everything in order; and one that Linux stops if `deputy run` itself is killed."""
    return subprocess.Popen([*die_with_parent(), *command], start_new_session=True, **options)


def _stop_in_order(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        stop_process(process)


def _supervise(running: dict[str, subprocess.Popen], children: dict[str, tuple[list[str], dict[str, str]]]) -> int:
    stopping = False

    def stop(signum, frame):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        while not stopping:
            time.sleep(0.5)
            for name, process in list(running.items()):
                if process.poll() is not None and not stopping:
                    print(f"{name} stopped (exit {process.returncode}); restarting it.", flush=True)
                    time.sleep(_RESTART_BACKOFF)
                    cmd, env = children[name]
                    running[name] = _spawn(cmd, env=env)
    finally:
        print("Stopping Deputy...", flush=True)
        ordered = sorted(running, key=lambda name: _STOP_ORDER.index(name) if name in _STOP_ORDER else -1)
        _stop_in_order([running[name] for name in ordered])
    return 0
