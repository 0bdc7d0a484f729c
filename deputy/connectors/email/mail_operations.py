"""The mailbox operations (over IMAP) the agent may request, as the model and the guard see them.

Reading is `read`; drafting, moving and flagging change only the user's own mailbox
(`write`, acting within the service "your mailbox"); replying talks to other people
(`communicate`) and its targets are exactly the recipients, which the guard traces to
the user's words. Messages are named `<folder>/<UID>`, as search results show them.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from deputy.core.records.effects import EffectClass, OperationSpec, RiskTag
from deputy.connectors.catalog import Operation
from deputy.connectors.addresses import normalize_address
from deputy.connectors.email.imap_protocol import MessageRef, check_folder_name
from deputy.connectors.email.outgoing import MAX_BODY_BYTES, MAX_RECIPIENTS, OutgoingEmail

MAILBOX = "your mailbox"
"""The service these operations act within (the user's own account)."""


def _message_id(value: str) -> str:
    return str(MessageRef.parse(value))


def _search_text(value: str) -> str:
    text = " ".join(value.split())
    if not text or any(ord(c) < 32 for c in text):
        raise ValueError("must be non-empty text on one line")
    return text


def _one_or_many(value: object) -> object:
    return [value] if isinstance(value, str) else value


MessageId = Annotated[str, Field(max_length=220), AfterValidator(_message_id)]
FolderName = Annotated[str, AfterValidator(lambda v: check_folder_name(v.strip()))]
SearchText = Annotated[str, Field(max_length=200), AfterValidator(_search_text)]
Address = Annotated[str, AfterValidator(normalize_address)]
Addresses = Annotated[list[Address], BeforeValidator(_one_or_many), Field(max_length=MAX_RECIPIENTS)]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class SearchEmailArgs(_Args):
    folder: FolderName = "INBOX"
    sender: SearchText | None = Field(default=None, alias="from")
    subject: SearchText | None = None
    text: SearchText | None = None
    since: date | None = None
    unseen: bool = False
    limit: int = Field(default=10, ge=1, le=50)

    @model_validator(mode="after")
    def _one_non_ascii_term(self) -> SearchEmailArgs:
        # IMAP can carry only one non-ASCII search term per command (as a literal).
        if sum(1 for t in (self.sender, self.subject, self.text) if t and not t.isascii()) > 1:
            raise ValueError("only one of from, subject and text may contain non-ASCII characters")
        return self


class MessageArgs(_Args):
    message_id: MessageId


class ReplyEmailArgs(_Args):
    message_id: MessageId
    to: Annotated[Addresses, Field(min_length=1)]
    cc: Addresses = []
    body: str = Field(min_length=1)

    @model_validator(mode="after")
    def _within_limits(self) -> ReplyEmailArgs:
        if len(self.body.encode("utf-8")) > MAX_BODY_BYTES - 10_000:  # room for the quote
            raise ValueError("the body is too large")
        if len(self.to) + len(self.cc) > MAX_RECIPIENTS:
            raise ValueError(f"a reply may go to at most {MAX_RECIPIENTS} addresses")
        return self

    def recipients(self) -> list[str]:
        return list(dict.fromkeys(self.to + self.cc))


class ForwardEmailArgs(_Args):
    message_id: MessageId
    to: Annotated[Addresses, Field(min_length=1)]
    cc: Addresses = []
    note: str = Field(default="", max_length=20_000)

    @model_validator(mode="after")
    def _within_limits(self) -> ForwardEmailArgs:
        if len(self.to) + len(self.cc) > MAX_RECIPIENTS:
            raise ValueError(f"a forward may go to at most {MAX_RECIPIENTS} addresses")
        return self

    def recipients(self) -> list[str]:
        return list(dict.fromkeys(self.to + self.cc))


class MoveEmailArgs(_Args):
    message_id: MessageId
    folder: FolderName


class MarkEmailArgs(_Args):
    message_id: MessageId
    seen: bool | None = None
    flagged: bool | None = None

    @model_validator(mode="after")
    def _something_to_change(self) -> MarkEmailArgs:
        if self.seen is None and self.flagged is None:
            raise ValueError("give seen and/or flagged")
        return self


def _spec(operation: str, effect: EffectClass, description: str, target: str | None = None) -> OperationSpec:
    return OperationSpec(connector="email", operation=operation, effect=effect, description=description,
                         target_argument=target)


_ID = {"type": "string", "description": "Message id as search_email shows it, e.g. INBOX/42."}
_ADDRESSES = {"type": "array", "items": {"type": "string"}}

SEARCH_EMAIL = Operation(
    _spec("search_email", EffectClass.read, "Search the user's mailbox; newest first, with ids to read."),
    SearchEmailArgs,
    targets=lambda a: [MAILBOX],
    result_origin=lambda a: f"emails in {MAILBOX}",
    service=MAILBOX,
    schema={"type": "object", "properties": {
        "from": {"type": "string", "description": "Part of the sender's name or address."},
        "subject": {"type": "string"},
        "text": {"type": "string", "description": "Words anywhere in the email."},
        "since": {"type": "string", "description": "Only mail on or after this date, YYYY-MM-DD."},
        "unseen": {"type": "boolean", "description": "Only unread mail."},
        "folder": {"type": "string", "description": "Default INBOX."},
        "limit": {"type": "integer", "description": "At most 50, default 10."},
    }},
)
READ_EMAIL = Operation(
    _spec("read_email", EffectClass.read, "Read one email in full: text, sender, recipients, attachments (listed).",
          "message_id"),
    MessageArgs,
    targets=lambda a: [a.message_id],  # type: ignore[attr-defined]
    result_origin=lambda a: f"the email {a.message_id}",  # type: ignore[attr-defined]
    service=MAILBOX,
    schema={"type": "object", "properties": {"message_id": _ID}, "required": ["message_id"]},
)
READ_THREAD = Operation(
    _spec("read_thread", EffectClass.read, "Read the whole conversation an email belongs to, oldest first.",
          "message_id"),
    MessageArgs,
    targets=lambda a: [a.message_id],  # type: ignore[attr-defined]
    result_origin=lambda a: f"the conversation of {a.message_id}",  # type: ignore[attr-defined]
    service=MAILBOX,
    schema={"type": "object", "properties": {"message_id": _ID}, "required": ["message_id"]},
)
DRAFT_EMAIL = Operation(
    _spec("draft_email", EffectClass.write, "Save an email in the user's Drafts folder without sending it."),
    OutgoingEmail,
    targets=lambda a: [MAILBOX],
    service=MAILBOX,
    schema={"type": "object", "properties": {
        "to": {**_ADDRESSES, "description": "Recipient addresses."},
        "subject": {"type": "string"},
        "body": {"type": "string", "description": "Plain-text body."},
        "cc": _ADDRESSES,
    }, "required": ["to", "subject", "body"]},
)
REPLY_EMAIL = Operation(
    _spec("reply_email", EffectClass.communicate,
          "Reply to an email (sends it): quotes the original and keeps the thread. Recipients must be on the email.",
          "to"),
    ReplyEmailArgs,
    targets=lambda a: a.recipients(),  # type: ignore[attr-defined]
    schema={"type": "object", "properties": {
        "message_id": _ID,
        "to": {**_ADDRESSES, "description": "Who gets the reply: usually the sender's address."},
        "cc": _ADDRESSES,
        "body": {"type": "string", "description": "Your reply, plain text; the original is quoted below it."},
    }, "required": ["message_id", "to", "body"]},
)
FORWARD_EMAIL = Operation(
    _spec("forward_email", EffectClass.communicate,
          "Forward an email the user has (sends it): the original's sender, date, subject and text go below "
          "an optional note.", "to"),
    ForwardEmailArgs,
    targets=lambda a: a.recipients(),  # type: ignore[attr-defined]
    schema={"type": "object", "properties": {
        "message_id": _ID,
        "to": {**_ADDRESSES, "description": "Who gets the forwarded email."},
        "cc": _ADDRESSES,
        "note": {"type": "string", "description": "A short note above the forwarded email (may be empty)."},
    }, "required": ["message_id", "to"]},
)
_BIN = re.compile(r"trash|bin|deleted|junk|spam|papierkorb|gel[öo]scht|papelera|eliminad|corbeille|supprim|cestino|"
                  r"eliminat|lixeira|exclu[ií]d|prullenbak|verwijderd", re.IGNORECASE)


def _moved_into_bin(args: BaseModel) -> frozenset[RiskTag]:
    """A move into the Trash (Bin, Deleted Items, Spam…, in the languages mail programs name them) is a delete."""
    return frozenset({RiskTag.delete}) if _BIN.search(str(getattr(args, "folder", ""))) else frozenset()


MOVE_EMAIL = Operation(
    _spec("move_email", EffectClass.write,
          "Move an email to another folder: Trash to delete it, Archive to archive it; creates the folder."),
    MoveEmailArgs,
    tags_for=_moved_into_bin,
    targets=lambda a: [MAILBOX],
    service=MAILBOX,
    schema={"type": "object", "properties": {"message_id": _ID, "folder": {"type": "string"}},
            "required": ["message_id", "folder"]},
)
MARK_EMAIL = Operation(
    _spec("mark_email", EffectClass.write, "Mark an email read or unread, flagged or not."),
    MarkEmailArgs,
    targets=lambda a: [MAILBOX],
    service=MAILBOX,
    schema={"type": "object", "properties": {
        "message_id": _ID, "seen": {"type": "boolean", "description": "true = read, false = unread"},
        "flagged": {"type": "boolean"},
    }, "required": ["message_id"]},
)

MAIL_OPERATIONS = [SEARCH_EMAIL, READ_EMAIL, READ_THREAD, DRAFT_EMAIL, REPLY_EMAIL, FORWARD_EMAIL, MOVE_EMAIL,
                   MARK_EMAIL]
"""Every mailbox operation, in the order the model sees them."""
