"""Taking back a mailbox change that ran without a card: move an email back to the folder it came
from, or put its read and flagged marks back as they were.

The executor calls `revert` with what the runner returned in `OperationResult.undo`. A moved
email has a new UID in its new folder, so it is found there again by its Message-ID; when it is
no longer there (moved again, or deleted) nothing is changed and the answer says so.
"""

from __future__ import annotations

from typing import Any

from deputy.core.records.actions import Action
from deputy.core.records.effects import ConnectorRejected
from deputy.connectors.email.imap import ImapSession
from deputy.connectors.email.imap_decode import parse_email
from deputy.connectors.email.imap_protocol import fetched_body, quote
from deputy.connectors.email.mail_runners import MailRunners


class MailReverts:
    def __init__(self, runners: MailRunners) -> None:
        self._runners = runners

    def revert(self, action: Action, undo: dict[str, Any]) -> str:
        with self._runners.session_for(action.user_id) as session:
            if undo["kind"] == "move":
                return _move_back(session, undo)
            return _restore_flags(session, undo)


def _move_back(session: ImapSession, undo: dict[str, Any]) -> str:
    origin, now_in = str(undo["from"]), str(undo["to"])
    session.select(now_in, readonly=False)
    uid = _find(session, str(undo["message_id"]))
    if uid is None:
        raise ConnectorRejected(f"The email is no longer in {now_in} (it was moved or deleted since), "
                                f"so I left your mailbox as it is.")
    subject = _subject(session, uid)
    session.move(uid, origin)
    return f"Moved the email {subject} back from {now_in} to {origin}."


def _restore_flags(session: ImapSession, undo: dict[str, Any]) -> str:
    folder = str(undo["folder"])
    session.select(folder, readonly=False)
    uid: int | None = int(undo["uid"])
    if undo.get("message_id"):  # the UID holds only while the email stays in that folder
        uid = _find(session, str(undo["message_id"]))
    if uid is None or not session.fetch([uid], "(UID FLAGS)"):
        raise ConnectorRejected(f"The email is no longer in {folder} (it was moved or deleted since), "
                                "so its marks were left as they are.")
    before: dict[str, bool] = {str(flag): bool(on) for flag, on in undo["before"].items()}
    for flag, on in before.items():
        session.store(uid, "+FLAGS.SILENT" if on else "-FLAGS.SILENT", f"({flag})")
    words = [("read" if on else "unread") if flag == "\\Seen" else ("flagged" if on else "not flagged")
             for flag, on in before.items()]
    return f"The email {_subject(session, uid)} is {' and '.join(words)} again."


def _find(session: ImapSession, message_id: str) -> int | None:
    try:
        criteria = ["UNDELETED", "HEADER", "Message-ID", quote(message_id)]
    except ValueError:
        return None
    return max(session.search(criteria), default=None)


def _subject(session: ImapSession, uid: int) -> str:
    items = session.fetch([uid], "(UID BODY.PEEK[HEADER])").get(uid, {})
    subject = parse_email(fetched_body(items, "HEADER") or b"").subject.strip()
    return f"“{subject}”" if subject else "without a subject"
