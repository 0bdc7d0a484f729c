"""Replying to an email: the reply is built purely from the original, then sent over SMTP.

A reply only goes to people already in the conversation (the original's sender,
Reply-To, To and Cc): writing to anyone else is `send_email`'s job, where the guard
sees a fresh recipient. The threading headers (In-Reply-To, References) come from the
original, filtered to well-formed message ids, never from the model.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.utils import format_datetime
from typing import Annotated

from pydantic import Field, StringConstraints

from deputy.core.records.effects import ConnectorRejected
from deputy.connectors.email.imap_decode import MailContent, one_line
from deputy.connectors.email.sockets import SocketOpener, direct_connection
from deputy.connectors.email.smtp import (
    OutgoingEmail,
    SentEmail,
    SmtpAccount,
    action_hash,
    build_message,
    deliver,
    message_id_for,
)

MAX_QUOTED_CHARS = 4000
"""How much of the original is quoted below a reply."""

# As smtp.py does: non-ASCII bodies become quoted-printable or base64, never raw 8-bit.
_POLICY = SMTP_POLICY.clone(cte_type="7bit")

MessageId = Annotated[str, StringConstraints(pattern=r"^<[!-;=?-~]{1,250}>$")]


class ReplyEmail(OutgoingEmail):
    """An `OutgoingEmail` that continues a thread."""

    in_reply_to: MessageId | None = None
    references: Annotated[list[MessageId], Field(default_factory=list, max_length=50)]


ReplySender = Callable[[int, ReplyEmail, str], SentEmail]
"""Sends a reply for a user: (user_id, email, idempotency key) -> what the server accepted."""


def participants(original: MailContent) -> set[str]:
    """Every address the original names: sender, Reply-To, To and Cc."""
    people = [*([original.sender] if original.sender else []), *original.reply_to, *original.to, *original.cc]
    return {p.address for p in people if p.address}


def reply_subject(subject: str) -> str:
    subject = one_line(subject, 900) or "(no subject)"
    return subject if subject[:3].lower() == "re:" else f"Re: {subject}"


def quoted(original: MailContent) -> str:
    """The attribution line and the original text, each line prefixed with "> "."""
    text = original.text.strip()
    if len(text) > MAX_QUOTED_CHARS:
        text = text[:MAX_QUOTED_CHARS].rstrip() + "\n[...]"
    who = original.sender.display() if original.sender else "someone"
    when = f"On {original.date}, " if original.date else ""
    lines = "\n".join(f"> {line}" if line else ">" for line in text.splitlines())
    return f"{when}{who} wrote:\n{lines}"


def build_forward(original: MailContent, to: list[str], cc: list[str], note: str) -> ReplyEmail:
    """`original` forwarded: the note, then its sender, date, subject, recipients and text as written
    (attachments are named; they stay in the user's mailbox)."""
    header = ["---------- Forwarded message ----------",
              f"From: {original.sender.display() if original.sender else '(no sender)'}",
              f"Date: {original.date or '(none)'}", f"Subject: {original.subject or '(no subject)'}",
              f"To: {', '.join(p.display() for p in original.to) or '(none)'}"]
    if original.attachments:
        header.append("Attachments (not included): " + ", ".join(a.name for a in original.attachments[:20]))
    text = original.text.strip()
    if len(text) > MAX_QUOTED_CHARS:
        text = text[:MAX_QUOTED_CHARS].rstrip() + "\n[...]"
    body = "\n".join(header) + "\n\n" + (text or "(no text)")
    subject = original.subject or ""
    subject = subject if subject.lower().startswith(("fwd:", "fw:")) else f"Fwd: {subject}".strip()
    return ReplyEmail(to=to, cc=cc, subject=subject[:998], body=(f"{note.strip()}\n\n" if note.strip() else "") + body)


def build_reply(original: MailContent, to: list[str], cc: list[str], body: str) -> ReplyEmail:
    """The reply to `original`; raise ConnectorRejected if a recipient isn't on the thread."""
    allowed = participants(original)
    strangers = [address for address in [*to, *cc] if address.lower() not in allowed]
    if strangers:
        raise ConnectorRejected(
            f"{', '.join(strangers)} isn't part of this email's conversation, so I can't reply to them; "
            "to write to someone new, send a new email instead."
        )
    references = [*original.references[-20:], *([original.message_id] if original.message_id else [])]
    return ReplyEmail(
        to=to,
        cc=cc,
        subject=reply_subject(original.subject),
        body=f"{body.rstrip()}\n\n{quoted(original)}\n",
        in_reply_to=original.message_id,
        references=list(dict.fromkeys(references)),
    )


def draft_message(from_address: str, email: OutgoingEmail, idempotency_key: str) -> EmailMessage:
    """The draft to APPEND: like a sent message, with a Message-ID derived from the key
    so a retried draft_email finds its earlier copy instead of saving a second one."""
    message = EmailMessage(policy=_POLICY)
    message["Message-ID"] = message_id_for(idempotency_key, from_address)
    message["Date"] = format_datetime(datetime.now(timezone.utc))
    if "@" in from_address:
        message["From"] = from_address
    message["To"] = ", ".join(email.to)
    if email.cc:
        message["Cc"] = ", ".join(email.cc)
    message["Subject"] = email.subject
    message["X-Deputy-Action"] = action_hash(idempotency_key)
    message.set_content(email.body)
    return message


def reply_message(account: SmtpAccount, email: ReplyEmail, idempotency_key: str) -> EmailMessage:
    """The MIME message `send_reply` sends: `build_message`'s, with the threading headers."""
    message = build_message(account, email, idempotency_key)
    if email.in_reply_to:
        message["In-Reply-To"] = email.in_reply_to
    if email.references:
        message["References"] = " ".join(email.references)
    return message


def send_reply(
    account: SmtpAccount, email: ReplyEmail, idempotency_key: str, *, opener: SocketOpener = direct_connection
) -> SentEmail:
    """Send `email` with its threading headers; raise a ConnectorError on any failure.

    The same key gives the same Message-ID as `smtp.send_email` would, so a retried reply
    is recognisable as a duplicate.
    """
    if not idempotency_key:
        raise ValueError("idempotency_key must not be empty")
    return deliver(account, reply_message(account, email, idempotency_key), email.recipients(), opener=opener)


def smtp_reply_sender(
    accounts: Callable[[int], SmtpAccount], opener: SocketOpener = direct_connection
) -> ReplySender:
    """A `ReplySender` over SMTP, e.g. `smtp_reply_sender(EmailAccounts(vault, default).for_user, guard.connect)`."""

    def send(user_id: int, email: ReplyEmail, idempotency_key: str) -> SentEmail:
        return send_reply(accounts(user_id), email, idempotency_key, opener=opener)

    return send
