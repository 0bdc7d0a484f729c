"""The two things a reader of confidential data can be told instead of the data."""

from __future__ import annotations

UNLOCK_HINT = "Send /unlock for a private link to unlock it."


class Locked(Exception):
    """The user's data is sealed and they have not unlocked it: nothing can be read now.

    A control signal, not a failure: the work that needed the data waits for the unlock.
    """

    def __init__(self, user_id: int, chat_id: int | None = None) -> None:
        super().__init__(f"user {user_id} is locked")
        self.user_id = user_id
        self.chat_id = chat_id if chat_id is not None else user_id

    @property
    def user_message(self) -> str:
        return f"🔒 Your data is locked (confidential mode). {UNLOCK_HINT}"


class WrongPassphrase(Exception):
    """The passphrase does not open the user's key."""

    user_message = "That passphrase does not unlock your data. Please check it and try again."
