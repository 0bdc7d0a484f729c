"""Running the mailbox operations against the user's IMAP account (and SMTP, for replies).

Each call opens one short IMAP session: connect, log in, do the work, log out. Reads
use EXAMINE and BODY.PEEK, so the agent looking at mail never marks it read; fetches
are capped (`max_fetch_bytes`) so a huge email costs a bounded amount of memory and time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from datetime import datetime, timezone

from deputy.core.records.effects import ConnectorAuthError, ConnectorError, ConnectorRejected, OperationResult
from deputy.connectors.email.closest import (
    CLOSEST, format_closest, guessed_sender, rank_by_words, search_words, word_criteria,
)
from deputy.connectors.email.imap import ImapAccount, ImapSession
from deputy.connectors.email.imap_decode import MailContent, parse_email
from deputy.connectors.email.imap_format import (
    Fetched,
    base_subject,
    format_email,
    format_search,
    format_thread,
    read_item,
    search_criteria,
    search_row,
    senders,
    thread_members,
    thread_parts,
)
from deputy.connectors.email.imap_protocol import (
    Folder,
    MessageRef,
    Value,
    fetched_body,
    fetched_flags,
    fetched_int,
    quote,
)
from deputy.connectors.email.imap_reply import ReplySender, build_forward, build_reply, draft_message
from deputy.connectors.email.mail_operations import (
    ForwardEmailArgs, MarkEmailArgs, MessageArgs, MoveEmailArgs, ReplyEmailArgs, SearchEmailArgs,
)
from deputy.connectors.email.outgoing import OutgoingEmail
from deputy.core.records.actions import Action

Runner = Callable[[Action, str], "OperationResult | str"]

MAX_FETCH_BYTES = 200_000
"""How much of one email is fetched for reading."""
_PREVIEW_BYTES = 8_192
_THREAD_CANDIDATES = 50
_THREAD_MESSAGES = 12
_DRAFTS = ("drafts", "draft", "[gmail]/drafts", "inbox/drafts", "inbox.drafts")
SENT_NAMES = ("sent", "sent items", "sent messages", "[gmail]/sent mail", "inbox/sent", "inbox.sent")


class MailRunners:
    """The runners of `MAIL_OPERATIONS`, keyed "email.<operation>".

    `accounts` finds a user's IMAP account (e.g. `ImapAccounts(vault).for_user`);
    `send` sends a reply (e.g. `smtp_reply_sender(EmailAccounts(vault, default).for_user)`).
    """

    def __init__(
        self,
        accounts: Callable[[int], ImapAccount],
        send: ReplySender,
        *,
        session: Callable[[ImapAccount], ImapSession] = ImapSession,
        max_fetch_bytes: int = MAX_FETCH_BYTES,
    ) -> None:
        self._accounts = accounts
        self._send = send
        self._session = session
        self._cap = max_fetch_bytes

    def runners(self) -> dict[str, Runner]:
        return {
            "email.search_email": self.search_email,
            "email.read_email": self.read_email,
            "email.read_thread": self.read_thread,
            "email.draft_email": self.draft_email,
            "email.reply_email": self.reply_email,
            "email.forward_email": self.forward_email,
            "email.move_email": self.move_email,
            "email.mark_email": self.mark_email,
        }

    def search_email(self, action: Action, idempotency_key: str) -> OperationResult:
        args = SearchEmailArgs.model_validate(action.arguments)
        criteria, literal = search_criteria(args.sender, args.subject, args.text, args.since, args.unseen)
        with self._open(action) as session:
            session.select(args.folder)
            uids = session.search(criteria, literal)
            newest = sorted(set(uids))[-args.limit:][::-1]
            rows = self._fetch(session, args.folder, newest, preview=True)
            closest: list[Fetched] = []
            # A watch's probe compares readings, so near matches would be news that is not: only exact ones.
            if not rows and not action.unattended \
                    and (words := search_words(guessed_sender(args.sender), args.subject, args.text)):
                # Nothing matched as written ("John Doe", a subject in other words): the emails sharing
                # the most of its words, so the next step starts from real messages, not a guess.
                ranked = rank_by_words({word: session.search(*word_criteria(word))
                                        for word in words})
                closest = self._fetch(session, args.folder, ranked[:min(args.limit, CLOSEST)], preview=True)
        summary = format_search(args.folder, len(set(uids)), rows, _describe(args))
        if closest:
            summary = format_closest(args.folder, closest, _describe(args))
            rows = closest
        origin = f"{args.folder} in your mailbox (emails from {senders(rows)})" if rows else None
        # Each row is one email, named on its own: a card names the one a value came from.
        items = [read_item(row, search_row(row)) for row in rows]
        return OperationResult(summary=summary, untrusted_origin=origin, items=items)

    def read_email(self, action: Action, idempotency_key: str) -> OperationResult:
        ref = MessageRef.parse(MessageArgs.model_validate(action.arguments).message_id)
        with self._open(action) as session:
            session.select(ref.folder)
            item = self._one(session, ref)
        summary = format_email(item)
        return OperationResult(summary=summary, untrusted_origin=_origin(item), items=[read_item(item, summary)])

    def read_thread(self, action: Action, idempotency_key: str) -> OperationResult:
        ref = MessageRef.parse(MessageArgs.model_validate(action.arguments).message_id)
        with self._open(action) as session:
            session.select(ref.folder)
            root = self._one(session, ref)
            candidates: list[Fetched] = []
            for folder in self._thread_folders(session, ref.folder):
                candidates += self._thread_candidates(session, folder, root)
            members = thread_members(root, candidates)[-_THREAD_MESSAGES:]
        addresses = senders(members)
        items = [read_item(member, part) for member, part in zip(members, thread_parts(members))]
        return OperationResult(summary=format_thread(members), untrusted_origin=f"a thread of emails from {addresses}",
                               items=items)

    def draft_email(self, action: Action, idempotency_key: str) -> str:
        email = OutgoingEmail.model_validate(action.arguments)
        account = self._accounts(action.user_id)
        message = draft_message(account.own_address, email, idempotency_key)
        message_id = str(message["Message-ID"])
        with self._session(account) as session:
            drafts = find_folder(session.folders(), "\\drafts", _DRAFTS)
            if drafts is None:
                drafts = "Drafts"
                session.create(drafts)
            session.select(drafts)
            # The Message-ID comes from the idempotency key: a retry finds the first copy.
            if not session.search(["HEADER", "Message-ID", quote(message_id)]):
                session.append(drafts, "(\\Draft \\Seen)", datetime.now(timezone.utc), message.as_bytes())
            uids = session.search(["HEADER", "Message-ID", quote(message_id)])
        where = f"{drafts}/{max(uids)}" if uids else drafts
        return f"Saved a draft to {', '.join(email.recipients())} ({where}); it has not been sent."

    def reply_email(self, action: Action, idempotency_key: str) -> str:
        args = ReplyEmailArgs.model_validate(action.arguments)
        ref = MessageRef.parse(args.message_id)
        original = self._content(action, ref)
        reply = build_reply(original, args.to, args.cc, args.body)
        sent = self._send(action.user_id, reply, idempotency_key)
        try:
            with self._open(action) as session:
                session.select(ref.folder, readonly=False)
                session.store(ref.uid, "+FLAGS.SILENT", "(\\Answered)")
        except ConnectorError:
            pass  # the reply is sent; the Answered flag is a courtesy
        refused = f" The server refused {', '.join(sent.refused)}." if sent.refused else ""
        return f"Replied to {', '.join(sent.accepted)} with the subject {reply.subject!r}.{refused}"

    def forward_email(self, action: Action, idempotency_key: str) -> str:
        args = ForwardEmailArgs.model_validate(action.arguments)
        ref = MessageRef.parse(args.message_id)
        original = self._content(action, ref)
        forward = build_forward(original, args.to, args.cc, args.note)
        sent = self._send(action.user_id, forward, idempotency_key)
        refused = f" The server refused {', '.join(sent.refused)}." if sent.refused else ""
        return f"Forwarded {ref} to {', '.join(sent.accepted)} with the subject {forward.subject!r}.{refused}"

    def move_email(self, action: Action, idempotency_key: str) -> OperationResult:
        args = MoveEmailArgs.model_validate(action.arguments)
        ref = MessageRef.parse(args.message_id)
        with self._open(action) as session:
            session.select(ref.folder, readonly=False)
            message_id = self._one(session, ref, preview=True).content.message_id
            folders = session.folders()
            target = next((f.name for f in folders if f.name == args.folder), None) or next(
                (f.name for f in folders if f.name.lower() == args.folder.lower()), None
            )
            if target is None:
                target = args.folder
                session.create(target)
            if target == ref.folder:
                return OperationResult(summary=f"{ref} is already in {target}.")
            new_uid = session.move(ref.uid, target)
            if new_uid is None and message_id:
                session.select(target)
                new_uid = max(session.search(["HEADER", "Message-ID", quote(message_id)]), default=None)
        now = f" (now {target}/{new_uid})" if new_uid else ""
        # UIDs change on a move, so Undo finds the message again by its Message-ID (none: no Undo).
        undo = {"kind": "move", "from": ref.folder, "to": target, "message_id": message_id} if message_id else None
        return OperationResult(summary=f"Moved {ref} to {target}{now}.", undo=undo)

    def mark_email(self, action: Action, idempotency_key: str) -> OperationResult:
        args = MarkEmailArgs.model_validate(action.arguments)
        ref = MessageRef.parse(args.message_id)
        changes = [(flag, on) for flag, on in (("\\Seen", args.seen), ("\\Flagged", args.flagged)) if on is not None]
        with self._open(action) as session:
            session.select(ref.folder, readonly=False)
            found = self._one(session, ref, preview=True)
            for flag, on in changes:
                session.store(ref.uid, "+FLAGS.SILENT" if on else "-FLAGS.SILENT", f"({flag})")
        words = [w for w, on in (("read" if args.seen else "unread", args.seen), (
            "flagged" if args.flagged else "not flagged", args.flagged)) if on is not None]
        before = {flag: flag.lower() in found.flags for flag, _ in changes}
        undo = {"kind": "flags", "folder": ref.folder, "uid": ref.uid, "message_id": found.content.message_id,
                "before": before}
        return OperationResult(summary=f"Marked {ref} as {' and '.join(words)}.", undo=undo)

    def session_for(self, user_id: int) -> ImapSession:
        """An IMAP session on the user's account (not yet open), as the runners use."""
        return self._session(self._accounts(user_id))

    @contextlib.contextmanager
    def _open(self, action: Action) -> Iterator[ImapSession]:
        account = self._accounts(action.user_id)
        try:
            session = self._session(account).__enter__()
        except ConnectorAuthError:
            if not account.oauth:
                raise
            # An access token the server refused before its time (expired early, clock skew): renew it once.
            session = self._session(self._accounts(action.user_id, True)).__enter__()  # type: ignore[call-arg]
        try:
            yield session
        finally:
            session.__exit__(None, None, None)

    def _content(self, action: Action, ref: MessageRef) -> MailContent:
        """The whole email `ref` (to reply to or forward)."""
        with self._open(action) as session:
            session.select(ref.folder)
            return self._one(session, ref).content

    def _one(self, session: ImapSession, ref: MessageRef, *, preview: bool = False) -> Fetched:
        """The message `ref` from the folder the session has selected."""
        found = self._fetch(session, ref.folder, [ref.uid], preview=preview)
        if not found:
            raise ConnectorRejected(
                f"There is no email {ref} (it may have been moved or deleted); search again for its current id."
            )
        return found[0]

    def _fetch(self, session: ImapSession, folder: str, uids: list[int], *, preview: bool) -> list[Fetched]:
        if preview:
            items = f"(UID FLAGS RFC822.SIZE BODY.PEEK[HEADER] BODY.PEEK[TEXT]<0.{_PREVIEW_BYTES}>)"
        else:
            items = f"(UID FLAGS RFC822.SIZE BODY.PEEK[]<0.{self._cap}>)"
        fetched = session.fetch(uids, items)
        rows: list[Fetched] = []
        for uid in uids:
            if uid in fetched:
                rows.append(self._row(folder, uid, fetched[uid], preview))
        return rows

    def _row(self, folder: str, uid: int, items: dict[str, Value], preview: bool) -> Fetched:
        size = fetched_int(items, "RFC822.SIZE")
        if preview:
            text = fetched_body(items, "TEXT") or b""
            raw, cut = (fetched_body(items, "HEADER") or b"") + text, len(text) >= _PREVIEW_BYTES
        else:
            raw = fetched_body(items) or b""
            cut = len(raw) >= self._cap and (size is None or size > len(raw))
        return Fetched(MessageRef(folder, uid), parse_email(raw), fetched_flags(items), size, cut)

    def _thread_folders(self, session: ImapSession, folder: str) -> list[str]:
        sent = find_folder(session.folders(), "\\sent", SENT_NAMES)
        return [folder] + ([sent] if sent and sent != folder else [])

    def _thread_candidates(self, session: ImapSession, folder: str, root: Fetched) -> list[Fetched]:
        session.select(folder)
        subject = base_subject(root.content.subject)[:200]  # a search term, not the whole line
        root_id = (root.content.references or [root.content.message_id])[0]
        found: set[int] = set()
        if root_id:
            found |= set(session.search(["UNDELETED", "HEADER", "References", quote(root_id)]))
            found |= set(session.search(["UNDELETED", "HEADER", "Message-ID", quote(root_id)]))
        if subject:
            literal = None if subject.isascii() else subject.encode("utf-8")
            found |= set(session.search(["UNDELETED", "SUBJECT"] + ([quote(subject)] if literal is None else []), literal))
        newest = sorted(found)[-_THREAD_CANDIDATES:]
        return self._fetch(session, folder, newest, preview=True)


def find_folder(folders: list[Folder], special_use: str, names: tuple[str, ...]) -> str | None:
    """A folder by its special-use attribute (RFC 6154), else by a common name."""
    for folder in folders:
        if special_use in folder.attributes:
            return folder.name
    by_name = {f.name.lower(): f.name for f in folders}
    return next((by_name[n] for n in names if n in by_name), None)


def _origin(item: Fetched) -> str:
    return f"an email from {item.content.sender_address or 'an unknown sender'}"


def _describe(args: SearchEmailArgs) -> str:
    parts = [f"{name} {value!r}" for name, value in (("from", args.sender), ("subject", args.subject),
                                                       ("text", args.text)) if value]
    if args.since:
        parts.append(f"since {args.since.isoformat()}")
    if args.unseen:
        parts.append("unread")
    return "your search (" + ", ".join(parts) + ")" if parts else "your search (everything)"
