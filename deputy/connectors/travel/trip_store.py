"""The trip options Deputy offered a user, kept for a day so one can be booked as it was shown.

Keyed by user and option: an option id from another user's plan is simply not found. A trip says
where and when the user will be, so a confidential user's options are sealed to their key, like
the rest of their goals (`deputy.core.confidential`).
"""

from __future__ import annotations

from deputy.connectors.travel.planner import TripOption
from deputy.core.confidential import ConfidentialKeys, confidential_keys
from deputy.core.confidential.sealing import is_sealed

_KEY = "deputy:trip:{}:{}"
TTL_SECONDS = 24 * 3600


class TripStore:
    def __init__(self, redis, keys: ConfidentialKeys | None = None) -> None:
        self._redis = redis
        self._keys = keys if keys is not None else confidential_keys(redis)

    def keep(self, user_id: int, options: list[TripOption]) -> None:
        pipe = self._redis.pipeline()
        for option in options:
            pipe.set(_KEY.format(user_id, option.id), self._keys.seal_text(user_id, option.model_dump_json()),
                     ex=TTL_SECONDS)
        pipe.execute()

    def get(self, user_id: int, option_id: str) -> TripOption | None:
        """The option as it was offered; `Locked` while a confidential user is locked."""
        raw = self._redis.get(_KEY.format(user_id, option_id))
        return TripOption.model_validate_json(self._keys.opener(user_id)(raw)) if raw else None

    def reseal(self, user_id: int) -> int:
        """Seal the options still in clear (confidential mode just turned on); how many were."""
        sealed = 0
        for key in self._redis.scan_iter(_KEY.format(user_id, "*")):
            raw, ttl = self._redis.get(key), self._redis.ttl(key)
            if raw is None or is_sealed(raw) or ttl == -2:
                continue
            self._redis.set(key, self._keys.seal_bytes(user_id, raw), ex=ttl if ttl > 0 else TTL_SECONDS)
            sealed += 1
        return sealed

    def erase(self, user_id: int) -> int:
        keys = list(self._redis.scan_iter(_KEY.format(user_id, "*")))
        return int(self._redis.delete(*keys)) if keys else 0


PERSONAL = ("\nYour traveller details from the vault (name, date of birth, passport number) go to the airline; "
            "Deputy's model never sees them.")


def travel_card_note(redis, operation: str, user_id: int, arguments: dict) -> str:
    """What a travel booking's approval card adds, written by code: the whole planned trip for
    `book_trip`, and for any booking, that the traveller's personal details leave the user."""
    if operation == "book_flight":
        return "\n" + PERSONAL
    option_id = arguments.get("option")
    option = TripStore(redis).get(user_id, option_id) if operation == "book_trip" and isinstance(option_id, str) \
        else None
    if option is None:
        return ""
    personal = PERSONAL if option.travellers == 1 else PERSONAL.replace(
        "Your traveller details", f"The details of all {option.travellers} travellers")
    return ("\n\nThe trip (booked together; if the hotel fails, the flights are cancelled under their refund rule):\n"
            + "\n".join(option.lines()) + "\n" + personal)
