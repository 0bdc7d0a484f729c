"""A user's settings that shape when and how Deputy speaks (time zone, quiet hours)."""

from __future__ import annotations

import json
import re
from datetime import datetime, time, timedelta
from decimal import Decimal
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, Field, field_validator
from redis import Redis

from deputy.core.infrastructure import step_reads
from deputy.core.accounts.approval_mode import DEFAULT_APPROVAL_MODE, ApprovalMode
from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.confidential.keys import Opener
from deputy.core.confidential.sealing import seal
from deputy.core.records.erasure import Owned, delete_keys

_KEY = "deputy:settings:{}"


Tone = Literal["friendly", "brief", "formal"]
RATE_MIN, RATE_MAX = Decimal("0.000001"), Decimal(100000)
"""The range a rate in US dollars per unit may take: past it, it is a typo, not a currency."""
MAX_RATES = 20


class UserSettings(BaseModel):
    schema_version: int = 1
    timezone: str = "UTC"
    quiet_start: time | None = None
    quiet_end: time | None = None
    agent_name: str = Field(default="Deputy", min_length=1, max_length=40)
    tone: Tone = "friendly"
    language: str = Field(default="English", min_length=2, max_length=40)
    training_opt_in: bool = Field(default=False, description="May conversations be used to improve models?")
    spoken_replies: bool = Field(default=True, description="Where the operator offers spoken replies: answers to "
                                 "the user's voice notes come back as voice notes too.")
    approval_mode: ApprovalMode = Field(default=DEFAULT_APPROVAL_MODE, description="When a message waits for a card.")
    send_window: int | None = Field(default=None, ge=0, le=3600,
                                    description="Seconds a message waits for Undo; None: the operator's default.")
    usd_per: dict[str, Decimal] = Field(
        default_factory=dict, description="Exchange rates the user set for negotiations: US dollars for one unit of "
        "each currency (ISO code); the others are Deputy's defaults.")

    @field_validator("usd_per")
    @classmethod
    def _sane_rates(cls, value: dict[str, Decimal]) -> dict[str, Decimal]:
        if len(value) > MAX_RATES:
            raise ValueError(f"at most {MAX_RATES} exchange rates")
        for code, rate in value.items():
            if not re.fullmatch(r"[A-Z]{3}", code) or code == "USD":
                raise ValueError(f"{code!r} is not a currency code other than USD")
            if not RATE_MIN <= rate <= RATE_MAX:
                raise ValueError(f"the rate for {code} is out of range")
        return value

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


_CLEAR = {"schema_version", "timezone", "quiet_start", "quiet_end"}
"""What stays readable of a confidential user's settings: when it is night for them (quotas' periods and
quiet hours work while they are locked). The name, tone, language and choices are sealed."""


class UserSettingsStore:
    def __init__(self, redis: Redis, keys: ConfidentialKeys | None = None) -> None:
        self._redis = redis
        self._keys = keys if keys is not None else confidential_keys(redis)

    @staticmethod
    def key(user_id: int) -> str:
        return _KEY.format(user_id)

    def get(self, user_id: int) -> UserSettings:
        """The user's settings; `Locked` while a confidential user is locked (see `clock_settings`)."""
        return self.parse(self._raw(user_id), self._keys.opener(user_id))

    @staticmethod
    def parse(raw: bytes | None, opener: Opener) -> UserSettings:
        """The settings stored at `key`, read by the caller; `Locked` as for `get`."""
        if not raw:
            return UserSettings()
        envelope = json.loads(raw)
        if "sealed" in envelope:
            return UserSettings.model_validate_json(opener(envelope["sealed"]))
        return UserSettings.model_validate(envelope)

    def clock_settings(self, user_id: int) -> UserSettings:
        """The time zone and quiet hours, readable even while the user is locked (the rest at defaults)."""
        raw = self._raw(user_id)
        return UserSettings.model_validate_json(raw) if raw else UserSettings()

    def _raw(self, user_id: int) -> bytes | None:
        key = _KEY.format(user_id)
        return step_reads.read(("GET", key), lambda: self._redis.get(key))

    def save(self, user_id: int, settings: UserSettings) -> None:
        step_reads.forget(_KEY.format(user_id))
        public = self._keys.public_key(user_id)
        if public is None:
            self._redis.set(_KEY.format(user_id), settings.model_dump_json())
            return
        envelope = settings.model_dump(mode="json", include=_CLEAR)
        envelope["sealed"] = seal(public, settings.model_dump_json().encode())
        self._redis.set(_KEY.format(user_id), json.dumps(envelope))


def erase_user_settings(redis: Redis, owned: Owned) -> int:
    return delete_keys(redis, (_KEY.format(owned.user_id),))
