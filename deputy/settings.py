"""Deputy's configuration, read from environment variables (documented in README.md).

Only entry points build a `Settings`; everything else receives the values it needs.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", populate_by_name=True)

    redis_url: str | None = Field(default=None, alias="REDIS_URL")
    telegram_bot_token: SecretStr | None = Field(default=None, alias="TELEGRAM_BOT_TOKEN")
    telegram_api_base: str | None = Field(default=None, alias="TELEGRAM_API_BASE")
    openai_api_key: SecretStr | None = Field(default=None, alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(default=None, alias="OPENAI_BASE_URL")
    model: str = Field(default="gpt-4.1-mini", alias="DEPUTY_MODEL")
    model_timeout: float = Field(default=60.0, alias="DEPUTY_MODEL_TIMEOUT")
    model_retry_delays: str = Field(default="2,8,30", alias="DEPUTY_MODEL_RETRY_DELAYS")
    chat_port: int = Field(default=8080, alias="DEPUTY_CHAT_PORT")
    data_dir: Path = Field(default=Path("data"), alias="DEPUTY_DATA_DIR")
    secret: SecretStr | None = Field(default=None, alias="DEPUTY_SECRET")
    allowed_users: str | None = Field(default=None, alias="DEPUTY_ALLOWED_USERS")
    approval_ttl_seconds: int = Field(default=24 * 3600, alias="DEPUTY_APPROVAL_TTL")
    smtp_host: str | None = Field(default=None, alias="DEPUTY_SMTP_HOST")
    smtp_port: int = Field(default=587, alias="DEPUTY_SMTP_PORT")
    smtp_username: str | None = Field(default=None, alias="DEPUTY_SMTP_USERNAME")
    smtp_password: SecretStr | None = Field(default=None, alias="DEPUTY_SMTP_PASSWORD")
    smtp_from: str | None = Field(default=None, alias="DEPUTY_SMTP_FROM")
    smtp_starttls: bool = Field(default=True, alias="DEPUTY_SMTP_STARTTLS")
    log_level: str = Field(default="INFO", alias="DEPUTY_LOG_LEVEL")

    def retry_delays(self) -> tuple[float, ...]:
        """Seconds to wait before each retry of a failed model call (also sets how many)."""
        return tuple(float(part) for part in self.model_retry_delays.split(",") if part.strip())

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

    def secret_value(self) -> str:
        """DEPUTY_SECRET, or one generated on first run and kept in the data directory."""
        if self.secret is not None:
            return self.secret.get_secret_value()
        path = self.data_dir / "secret"
        if path.exists():
            return path.read_text().strip()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        value = secrets.token_urlsafe(32)
        path.touch(mode=0o600)
        path.write_text(value)
        return value
