"""Deputy's configuration, read from environment variables (each documented in docs/running/configuration.md).

Only entry points build a `Settings`; everything else receives the values it needs.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from deputy.core.infrastructure.redis_address import sentinel_url
from deputy.workspace.files import WorkspaceLimits
from deputy.core.records.send_window import DEFAULT_SEND_WINDOW

if TYPE_CHECKING:
    from deputy.core.accounts.plans import PlanBook
    from deputy.speech import Transcriber


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", populate_by_name=True)

    redis_url: str | None = Field(default=None, alias="REDIS_URL")
    # With sentinels, `redis_url` becomes the primary's `redis+sentinel://` address (deputy.core.infrastructure.redis_address).
    redis_sentinels: str | None = Field(default=None, alias="REDIS_SENTINELS")
    redis_master_name: str = Field(default="deputy", alias="REDIS_MASTER_NAME")
    redis_password: SecretStr | None = Field(default=None, alias="REDIS_PASSWORD")
    telegram_bot_token: SecretStr | None = Field(default=None, alias="TELEGRAM_BOT_TOKEN")
    telegram_api_base: str | None = Field(default=None, alias="TELEGRAM_API_BASE")
    openai_api_key: SecretStr | None = Field(default=None, alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(default=None, alias="OPENAI_BASE_URL")
    model: str = Field(default="gpt-4.1-mini", alias="DEPUTY_MODEL")
    model_timeout: float = Field(default=60.0, alias="DEPUTY_MODEL_TIMEOUT")
    model_stream: bool = Field(default=False, alias="DEPUTY_MODEL_STREAM")
    constrain_tool_calls: bool = Field(default=False, alias="DEPUTY_CONSTRAIN_TOOL_CALLS")
    model_retry_delays: str = Field(default="2,8,30", alias="DEPUTY_MODEL_RETRY_DELAYS")
    model_gateway: bool = Field(default=False, alias="DEPUTY_MODEL_GATEWAY")
    gateway_concurrency: int = Field(default=500, ge=1, alias="DEPUTY_GATEWAY_CONCURRENCY")
    # Calls sent to the model endpoint at once (its slots); unset: as many as the gateway holds.
    model_concurrency: int | None = Field(default=None, ge=1, alias="DEPUTY_MODEL_CONCURRENCY")
    model_requests_per_minute: float | None = Field(default=None, gt=0, alias="DEPUTY_MODEL_REQUESTS_PER_MINUTE")
    worker_fork: bool = Field(default=True, alias="DEPUTY_WORKER_FORK")
    # Agent workers run steps on the step engine (many at once, no RQ loop per job); off: one RQ job at a time.
    step_engine: bool = Field(default=True, alias="DEPUTY_STEP_ENGINE")
    engine_threads: int = Field(default=8, ge=1, le=256, alias="DEPUTY_ENGINE_THREADS")
    helper_model: str | None = Field(default=None, alias="DEPUTY_HELPER_MODEL")
    helper_base_url: str | None = Field(default=None, alias="DEPUTY_HELPER_BASE_URL")
    max_tools: int | None = Field(default=None, ge=1, alias="DEPUTY_MAX_TOOLS")
    force_tool_call: bool = Field(default=False, alias="DEPUTY_FORCE_TOOL_CALL")
    decide_first: bool = Field(default=False, alias="DEPUTY_DECIDE_FIRST")
    local_model: bool = Field(default=True, alias="DEPUTY_LOCAL_MODEL")
    local_gguf: Path | None = Field(default=None, alias="DEPUTY_LOCAL_GGUF")
    local_threads: int = Field(default_factory=lambda: _default_threads(os.cpu_count()), ge=1,
                               alias="DEPUTY_LOCAL_THREADS")
    cache_dir: Path | None = Field(default=None, alias="DEPUTY_CACHE_DIR")
    xdg_cache_home: Path | None = Field(default=None, alias="XDG_CACHE_HOME")
    chat_port: int = Field(default=8080, alias="DEPUTY_CHAT_PORT")
    connect_port: int = Field(default=8081, alias="DEPUTY_CONNECT_PORT")
    public_url: str | None = Field(default=None, alias="DEPUTY_PUBLIC_URL")
    web_port: int = Field(default=8083, alias="DEPUTY_WEB_PORT")
    web_url: str | None = Field(default=None, alias="DEPUTY_WEB_URL")
    data_dir: Path = Field(default=Path("data"), alias="DEPUTY_DATA_DIR")
    secret: SecretStr | None = Field(default=None, alias="DEPUTY_SECRET")
    audit_key: SecretStr | None = Field(default=None, alias="DEPUTY_AUDIT_KEY")
    # Audit entries kept per user before the oldest are folded into a sealed checkpoint
    # (deputy.sentinel.stores.audit.DEFAULT_KEEP, docs/running/configuration.md).
    audit_keep: int = Field(default=200, ge=1, alias="DEPUTY_AUDIT_KEEP")
    unlock_key: SecretStr | None = Field(default=None, alias="DEPUTY_UNLOCK_KEY")
    allowed_users: str | None = Field(default=None, alias="DEPUTY_ALLOWED_USERS")
    approval_ttl_seconds: int = Field(default=24 * 3600, alias="DEPUTY_APPROVAL_TTL")
    # Seconds a message sent without a card waits for Undo, for users who chose nothing in /settings.
    send_window_seconds: int = Field(default=DEFAULT_SEND_WINDOW, ge=0, le=3600, alias="DEPUTY_SEND_WINDOW")
    smtp_host: str | None = Field(default=None, alias="DEPUTY_SMTP_HOST")
    smtp_port: int = Field(default=587, alias="DEPUTY_SMTP_PORT")
    smtp_username: str | None = Field(default=None, alias="DEPUTY_SMTP_USERNAME")
    smtp_password: SecretStr | None = Field(default=None, alias="DEPUTY_SMTP_PASSWORD")
    smtp_from: str | None = Field(default=None, alias="DEPUTY_SMTP_FROM")
    smtp_starttls: bool = Field(default=True, alias="DEPUTY_SMTP_STARTTLS")
    caldav_url: str | None = Field(default=None, alias="DEPUTY_CALDAV_URL")
    caldav_username: str | None = Field(default=None, alias="DEPUTY_CALDAV_USERNAME")
    caldav_password: SecretStr | None = Field(default=None, alias="DEPUTY_CALDAV_PASSWORD")
    imap_host: str | None = Field(default=None, alias="DEPUTY_IMAP_HOST")
    imap_port: int = Field(default=993, alias="DEPUTY_IMAP_PORT")
    imap_username: str | None = Field(default=None, alias="DEPUTY_IMAP_USERNAME")
    imap_password: SecretStr | None = Field(default=None, alias="DEPUTY_IMAP_PASSWORD")
    imap_ssl: bool = Field(default=True, alias="DEPUTY_IMAP_SSL")
    imap_starttls: bool = Field(default=True, alias="DEPUTY_IMAP_STARTTLS")
    vault_key: SecretStr | None = Field(default=None, alias="DEPUTY_VAULT_KEY")
    # Providers users may sign in with for mail and calendar (JSON list; README "Google and Microsoft accounts").
    oauth_providers_spec: str | None = Field(default=None, alias="DEPUTY_OAUTH_PROVIDERS")
    openapi_services_spec: str | None = Field(default=None, alias="DEPUTY_OPENAPI_SERVICES")
    egress_allow_spec: str | None = Field(default=None, alias="DEPUTY_EGRESS_ALLOW")
    checks_per_day: int = Field(default=1000, ge=1, alias="DEPUTY_CHECKS_PER_DAY")
    # Suggestions from users' interests: the listing services (name=URL, comma-separated) and how often.
    suggestion_sources_spec: str | None = Field(default=None, alias="DEPUTY_SUGGESTION_SOURCES")
    suggestion_minutes: float = Field(default=60, ge=0, alias="DEPUTY_SUGGESTION_MINUTES")
    # Each user's workspace of files, and the limits on code the agent runs over them (deputy.workspace).
    workspace_quota_mb: int = Field(default=20, ge=1, alias="DEPUTY_WORKSPACE_QUOTA_MB")
    code_cpu_seconds: int = Field(default=20, ge=1, alias="DEPUTY_CODE_CPU_SECONDS")
    code_memory_mb: int = Field(default=512, ge=64, alias="DEPUTY_CODE_MEMORY_MB")
    # Chromium in bubblewrap with its own sandbox on (deputy.connectors.web.launcher); off only
    # where user namespaces are unavailable, and then it runs as the executor's own user.
    browser_confined: bool = Field(default=True, alias="DEPUTY_BROWSER_CONFINED")
    # Who drives a confined Chromium: a keyless worker process per user (deputy.connectors.web.worker),
    # or the executor itself.
    browser_worker: Literal["separate", "inline"] = Field(default="separate", alias="DEPUTY_BROWSER_WORKER")
    # The browser host's Unix socket (`deputy browser-host`, deputy.connectors.web.host): where it listens, and,
    # for the executor, that workers are asked of it instead of started as the executor's children.
    browser_host_socket: Path | None = Field(default=None, alias="DEPUTY_BROWSER_HOST_SOCKET")
    # The one uid the browser host serves (the executors'); unset: the host's own.
    browser_host_executor_uid: int | None = Field(default=None, ge=0, alias="DEPUTY_BROWSER_HOST_EXECUTOR_UID")
    # Browsers open at once on the whole deployment (slots leased in Redis, deputy.connectors.web.slots);
    # a step finding none free waits its turn. An unused browser closes after the idle seconds.
    max_browsers: int = Field(default=4, ge=1, alias="DEPUTY_MAX_BROWSERS")
    browser_idle_seconds: float = Field(default=300, gt=0, alias="DEPUTY_BROWSER_IDLE_SECONDS")
    plans_file: Path | None = Field(default=None, alias="DEPUTY_PLANS_FILE")
    default_plan: str | None = Field(default=None, alias="DEPUTY_DEFAULT_PLAN")
    messages_per_minute: int | None = Field(default=None, ge=1, alias="DEPUTY_MESSAGES_PER_MINUTE")
    log_level: str = Field(default="INFO", alias="DEPUTY_LOG_LEVEL")
    # /healthz, /readyz and /metrics (deputy.runtime.health); unset: not served.
    health_port: int | None = Field(default=None, ge=1, le=65535, alias="DEPUTY_HEALTH_PORT")
    health_host: str = Field(default="127.0.0.1", alias="DEPUTY_HEALTH_HOST")
    search_url: str | None = Field(default=None, alias="DEPUTY_SEARCH_URL")
    webhook_url: str | None = Field(default=None, alias="DEPUTY_WEBHOOK_URL")
    webhook_listen: str = Field(default="127.0.0.1:8443", alias="DEPUTY_WEBHOOK_LISTEN")
    webhook_secret: SecretStr | None = Field(default=None, alias="DEPUTY_WEBHOOK_SECRET")
    webhook_max_connections: int = Field(default=40, ge=1, le=100, alias="DEPUTY_WEBHOOK_MAX_CONNECTIONS")
    # Telegram posts only to HTTPS on ports 443, 80, 88 or 8443; a webhook served to the local
    # emulator (tests, `deputy run`) may be plain http on any port when this is on.
    webhook_allow_http: bool = Field(default=False, alias="DEPUTY_WEBHOOK_ALLOW_HTTP")
    # WhatsApp Cloud API (`deputy whatsapp`); with no token, `deputy run` uses the local WhatsApp emulator.
    whatsapp_token: SecretStr | None = Field(default=None, alias="DEPUTY_WHATSAPP_TOKEN")
    whatsapp_phone_number_id: str | None = Field(default=None, alias="DEPUTY_WHATSAPP_PHONE_NUMBER_ID")
    whatsapp_app_secret: SecretStr | None = Field(default=None, alias="DEPUTY_WHATSAPP_APP_SECRET")
    whatsapp_verify_token: SecretStr | None = Field(default=None, alias="DEPUTY_WHATSAPP_VERIFY_TOKEN")
    whatsapp_api_base: str = Field(default="https://graph.facebook.com/v21.0", alias="DEPUTY_WHATSAPP_API_BASE")
    whatsapp_listen: str = Field(default="127.0.0.1:8444", alias="DEPUTY_WHATSAPP_LISTEN")
    whatsapp_template: str = Field(default="deputy_checkin", alias="DEPUTY_WHATSAPP_TEMPLATE")
    whatsapp_template_language: str = Field(default="en", alias="DEPUTY_WHATSAPP_TEMPLATE_LANGUAGE")
    whatsapp_chat_port: int = Field(default=8082, alias="DEPUTY_WHATSAPP_CHAT_PORT")
    # Voice notes, audio and videos' sound (deputy.speech): "local" (Whisper base on this machine's CPU),
    # "hosted" (an OpenAI-compatible /audio/transcriptions endpoint) or "off".
    speech: str = Field(default="local", pattern="^(local|hosted|off)$", alias="DEPUTY_SPEECH")
    speech_model_dir: Path | None = Field(default=None, alias="DEPUTY_SPEECH_MODEL_DIR")
    speech_base_url: str | None = Field(default=None, alias="DEPUTY_SPEECH_BASE_URL")
    speech_api_key: SecretStr | None = Field(default=None, alias="DEPUTY_SPEECH_API_KEY")
    speech_model: str = Field(default="whisper-1", alias="DEPUTY_SPEECH_MODEL")
    speech_max_seconds: int = Field(default=300, ge=1, alias="DEPUTY_SPEECH_MAX_SECONDS")
    speech_languages: str = Field(default="", alias="DEPUTY_SPEECH_LANGUAGES")
    speech_threads: int = Field(default=2, ge=1, alias="DEPUTY_SPEECH_THREADS")
    # "voice": the answer to a voice note also goes back as a voice note (espeak-ng, on this machine).
    spoken_replies: str = Field(default="off", pattern="^(off|voice)$", alias="DEPUTY_SPOKEN_REPLIES")
    # The card issuer that mints single-use payment tokens (the executor alone needs these).
    issuer_url: str | None = Field(default=None, alias="DEPUTY_ISSUER_URL")
    issuer_key: SecretStr | None = Field(default=None, alias="DEPUTY_ISSUER_KEY")
    mandate_key: SecretStr | None = Field(default=None, alias="DEPUTY_MANDATE_KEY")

    @model_validator(mode="after")
    def _redis_through_sentinel(self) -> "Settings":
        if self.redis_sentinels:
            password = self.redis_password.get_secret_value() if self.redis_password else None
            self.redis_url = sentinel_url(self.redis_sentinels, self.redis_master_name, password)
        return self

    def retry_delays(self) -> tuple[float, ...]:
        """Seconds to wait before each retry of a failed model call (also sets how many)."""
        return tuple(float(part) for part in self.model_retry_delays.split(",") if part.strip())

    def helper_model_name(self) -> str:
        """The model for helper tasks (rule sentence -> structure): DEPUTY_HELPER_MODEL, else the planner's."""
        return self.helper_model or self.model

    def cache_path(self) -> Path:
        """Where slow-to-make things are kept across runs (the local model's build and weights):
        DEPUTY_CACHE_DIR, else $XDG_CACHE_HOME/deputy, else ~/.cache/deputy."""
        if self.cache_dir is not None:
            return self.cache_dir.expanduser()
        return (self.xdg_cache_home.expanduser() if self.xdg_cache_home else Path.home() / ".cache") / "deputy"

    def speech_model_path(self) -> Path:
        """The local speech model's folder: DEPUTY_SPEECH_MODEL_DIR, else the one fetched into the cache."""
        from deputy.speech import WHISPER_BASE

        return (self.speech_model_dir.expanduser() if self.speech_model_dir is not None
                else self.cache_path() / "models" / WHISPER_BASE.folder)

    def transcriber(self) -> "Transcriber | None":
        """What turns recordings into text (DEPUTY_SPEECH*), or None when speech is off."""
        from deputy.speech import HostedTranscriber, LocalTranscriber, SpeechLimits

        limits = SpeechLimits(max_seconds=self.speech_max_seconds, languages=frozenset(
            c.strip().lower() for c in self.speech_languages.split(",") if c.strip()))
        if self.speech == "off":
            return None
        if self.speech == "hosted":
            base = self.speech_base_url or self.openai_base_url or "https://api.openai.com/v1"
            key = self.speech_api_key or self.openai_api_key
            return HostedTranscriber(base, key.get_secret_value() if key else "", self.speech_model, limits)
        return LocalTranscriber(self.speech_model_path(), limits, threads=self.speech_threads,
                                fetch=self.speech_model_dir is None)

    @property
    def uses_real_telegram(self) -> bool:
        return self.telegram_bot_token is not None

    def allowed_user_ids(self) -> frozenset[int] | None:
        """The allow-list, or None when everyone may use the bot.

        With a real Telegram token and no allow-list nobody may: `frozenset()`.
        """
        if self.allowed_users:
            return frozenset(int(part) for part in self.allowed_users.replace(" ", "").split(",") if part)
        return frozenset() if self.uses_real_telegram else None

    def plan_book(self) -> "PlanBook":
        """DEPUTY_PLANS_FILE (else the shipped Free/Plus/Pro), with DEPUTY_DEFAULT_PLAN for users nobody placed.

        `deputy run` and the test stacks set DEPUTY_DEFAULT_PLAN=pro: the person trying Deputy on
        their own machine is its operator.
        """
        from deputy.core.accounts.plans import PlansFileError, load_plans

        try:
            book = load_plans(self.plans_file)
        except PlansFileError as exc:
            raise SystemExit(str(exc)) from None
        if self.default_plan:
            if self.default_plan not in book.plans:
                raise SystemExit(f"DEPUTY_DEFAULT_PLAN {self.default_plan!r} is not one of the plans: "
                                 f"{', '.join(book.plans)}")
            book = book.model_copy(update={"default": self.default_plan})
        return book

    def workspace_limits(self) -> WorkspaceLimits:
        return WorkspaceLimits(quota_bytes=self.workspace_quota_mb * 1024 * 1024)

    def flood_limit(self) -> int | None:
        """Messages one user may send a minute: DEPUTY_MESSAGES_PER_MINUTE, else 30 with a real Telegram bot
        (none on the local chat page, where the only users are the operator's own)."""
        return self.messages_per_minute or (30 if self.uses_real_telegram else None)

    def secret_value(self) -> str:
        """DEPUTY_SECRET, or one generated on first run and kept in the data directory."""
        if self.secret is not None:
            return self.secret.get_secret_value()
        return _stored_random(self.data_dir / "secret")

    def audit_key_material(self) -> str:
        """DEPUTY_AUDIT_KEY, or key material derived from DEPUTY_SECRET with its own label.

        Processes that hold no DEPUTY_SECRET (agent workers) but write the audit trail are
        given this value as DEPUTY_AUDIT_KEY, so every writer seals with the same key.
        """
        if self.audit_key is not None:
            return self.audit_key.get_secret_value()
        return hmac.new(self.secret_value().encode(), b"deputy-audit-key", hashlib.sha256).hexdigest()

    def audit_key_value(self) -> bytes:
        """The key the audit trail is sealed with; Redis never sees it."""
        from deputy.sentinel.stores.audit import audit_key

        return audit_key(self.audit_key_material())

    def unlock_key_material(self) -> str:
        """DEPUTY_UNLOCK_KEY, or key material derived from DEPUTY_SECRET with its own label: what wraps the
        private key of a confidential user while they are unlocked (agent workers are given it, as the
        audit key)."""
        if self.unlock_key is not None:
            return self.unlock_key.get_secret_value()
        return hmac.new(self.secret_value().encode(), b"deputy-unlock-key", hashlib.sha256).hexdigest()

    def unlock_key_value(self) -> bytes:
        """The operator's unlock key; Redis never sees it."""
        return hmac.new(self.unlock_key_material().encode(), b"deputy confidential unlock", hashlib.sha256).digest()

    def webhook_secret_value(self) -> str:
        """DEPUTY_WEBHOOK_SECRET, else one derived from the signing secret (HMAC with its own label, so
        the header Telegram sends reveals nothing about the key that signs the buttons)."""
        if self.webhook_secret is not None:
            return self.webhook_secret.get_secret_value()
        label = b"deputy telegram webhook secret token"
        return hmac.new(self.secret_value().encode(), label, hashlib.sha256).hexdigest()

    def vault_key_value(self) -> SecretStr:
        """DEPUTY_VAULT_KEY, or one generated on first run and kept in the data directory."""
        if self.vault_key is not None:
            return self.vault_key
        return SecretStr(_stored_random(self.data_dir / "vault-key"))

    def suggestion_sources(self) -> dict[str, str]:
        """Listing services watched for users' interests: {"tickets": "http://..."} (empty: no suggestions)."""
        pairs = (part.split("=", 1) for part in (self.suggestion_sources_spec or "").split(",") if "=" in part)
        return {name.strip(): url.strip() for name, url in pairs if name.strip() and url.strip()}

    def openapi_services(self) -> dict[str, str]:
        """DEPUTY_OPENAPI_SERVICES: `name=https://host/openapi.json` pairs, comma-separated."""
        pairs = (part.split("=", 1) for part in (self.openapi_services_spec or "").split(",") if "=" in part)
        return {name.strip(): url.strip() for name, url in pairs}

    def egress_allow(self) -> list[str]:
        """DEPUTY_EGRESS_ALLOW: private addresses connectors may reach (`127.0.0.1:8443`, CIDRs)."""
        return [part.strip() for part in (self.egress_allow_spec or "").split(",") if part.strip()]

    def oauth_providers(self) -> dict:
        """DEPUTY_OAUTH_PROVIDERS, parsed: provider name -> `deputy.core.accounts.oauth.ProviderConfig`."""
        from deputy.core.accounts.oauth import parse_providers

        return parse_providers(self.oauth_providers_spec)

    def connect_base_url(self) -> str:
        """Where users open /connect links: DEPUTY_PUBLIC_URL, or the local connect page."""
        return (self.public_url or f"http://127.0.0.1:{self.connect_port}").rstrip("/")

    def web_base_url(self) -> str:
        """Where users open /web links: DEPUTY_WEB_URL, or the local web view (empty when DEPUTY_WEB_URL=off)."""
        if (self.web_url or "").strip().lower() == "off":
            return ""
        return (self.web_url or f"http://127.0.0.1:{self.web_port}").rstrip("/")

    @property
    def vault_path(self) -> Path:
        return self.data_dir / "vault.cfg"


def _default_threads(cores: int | None) -> int:
    """One core left for Deputy's own processes. Measured on 2 busy cores: llama.cpp with 1 thread
    generated 12-15 tokens/s where 2 threads managed 1-13 (its threads wait for each other when
    the system hands one of them a core late)."""
    return max(1, min(8, (cores or 2) - 1))


def _stored_random(path: Path) -> str:
    """A random value kept in `path` (mode 0600); the first process to start creates it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        # Written aside, then linked into place: readers never see a half-written file,
        # and when two processes race, the first link wins and both use its value.
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(32))
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
        finally:
            temporary.unlink()
    return path.read_text().strip()
