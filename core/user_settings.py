"""A user's settings that shape when and how Deputy speaks (time zone, quiet hours)."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, Field, field_validator
from redis import Redis

from core.erasure import Owned, delete_keys

_KEY = "deputy:settings:{}"


Tone = Literal["friendly", "brief", "formal"]


class UserSettings(BaseModel):
    schema_version: int = 1
    timezone: str = "UTC"
    quiet_start: time | None = None
    quiet_end: time | None = None
    agent_name: str = Field(default="Deputy", min_length=1, max_length=40)
    tone: Tone = "friendly"
    language: str = Field(default="English", min_length=2, max_length=40)
    training_opt_in: bool = Field(default=False, description="May conversations be used to improve models?")

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {value!r}") from None
        return value

    def quiet_until(self, now: float) -> float | None:
        """When the current quiet hours end, or None when it is not quiet now."""
        if self.quiet_start is None or self.quiet_end is None or self.quiet_start == self.quiet_end:
            return None
        zone = ZoneInfo(self.timezone)
        local = datetime.fromtimestamp(now, tz=zone)
        start, end, clock = self.quiet_start, self.quiet_end, local.time().replace(tzinfo=None)
        inside = start <= clock < end if start < end else (clock >= start or clock < end)
        if not inside:
            return None
        ends = datetime.combine(local.date(), end, tzinfo=zone)
        if ends <= local:
            ends += timedelta(days=1)
        return ends.timestamp()


class UserSettingsStore:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    @staticmethod
    def key(user_id: int) -> str:
        return _KEY.format(user_id)

    def get(self, user_id: int) -> UserSettings:
        raw = self._redis.get(_KEY.format(user_id))
        return UserSettings.model_validate_json(raw) if raw else UserSettings()

    def save(self, user_id: int, settings: UserSettings) -> None:
        self._redis.set(_KEY.format(user_id), settings.model_dump_json())


def erase_user_settings(redis: Redis, owned: Owned) -> int:
    return delete_keys(redis, (_KEY.format(owned.user_id),))
