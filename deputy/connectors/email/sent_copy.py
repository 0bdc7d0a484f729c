"""A copy of every email Deputy sends, in the user's Sent folder, as mail clients keep one.

Plain SMTP leaves no trace in the sender's mailbox: a person who wonders whether an email
went out looks in Sent, and finds nothing. So after the mail server accepts an email it is
appended to the account's Sent folder over IMAP, found by its special-use flag (RFC 6154,
``\\Sent``) or by a usual name, and created as "Sent" when there is none.

Many providers (Gmail, Outlook) file sent mail themselves: the folder is searched by the
email's Message-ID first, so such an account never gets a second copy. The same search
tells the card of an email whose outcome is unknown whether a copy is there.

A copy is a courtesy: without an IMAP account, or when the IMAP server fails, the email is
sent all the same and the copy is skipped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timezone
from email.message import EmailMessage

from deputy.connectors.email.imap import ImapAccount, ImapSession
from deputy.connectors.email.imap_protocol import quote
from deputy.connectors.email.mail_runners import SENT_NAMES, find_folder
from deputy.core.records.effects import ConnectorError

log = logging.getLogger(__name__)

DEFAULT_SENT = "Sent"


class SentFolder:
    """The Sent folder of each user's IMAP account (`accounts` raises ConnectorError when there is none)."""

    def __init__(self, accounts: Callable[[int], ImapAccount],
                 session: Callable[[ImapAccount], ImapSession] = ImapSession) -> None:
        self._accounts = accounts
        self._session = session

    def keep(self, user_id: int, message: EmailMessage) -> str | None:
        """File `message` in Sent unless a copy with its Message-ID is there; the folder, or None if not kept."""
        message_id = str(message["Message-ID"])
        try:
            with self._session(self._accounts(user_id)) as session:
                folder = self._folder(session, create=True)
                session.select(folder)
                if not session.search(["HEADER", "Message-ID", quote(message_id)]):
                    session.append(folder, "(\\Seen)", datetime.now(timezone.utc), message.as_bytes())
                return folder
        except ConnectorError as exc:
            log.info("no copy of a sent email kept for user %s: %s", user_id, exc.detail or exc.user_message)
            return None

    def find(self, user_id: int, message_ids: list[str]) -> tuple[str, bool] | None:
        """(the Sent folder, whether it holds any of `message_ids`); None when Deputy cannot look."""
        try:
            with self._session(self._accounts(user_id)) as session:
                folder = self._folder(session, create=False)
                if folder is None:
                    return None
                session.select(folder)
                return folder, any(session.search(["HEADER", "Message-ID", quote(mid)]) for mid in message_ids)
        except ConnectorError as exc:
            log.info("could not look in the Sent folder of user %s: %s", user_id, exc.detail or exc.user_message)
            return None

    @staticmethod
    def _folder(session: ImapSession, create: bool) -> str | None:
        folder = find_folder(session.folders(), "\\sent", SENT_NAMES)
        if folder is None and create:
            session.create(DEFAULT_SENT)
            folder = DEFAULT_SENT
        return folder


def sent_note(found: tuple[str, bool] | None) -> str | None:
    """What the outcome-unknown card of an email says about the Sent folder."""
    if found is None:
        return None
    folder, there = found
    if there:
        return f"A copy is in your Sent folder ({folder}), so it went out."
    return (f"There is no copy in your Sent folder ({folder}): I file one only once the mail server confirms "
            "an email, and it never confirmed this one. If your provider files sent mail itself (Gmail, Outlook "
            "do), it did not go out.")
