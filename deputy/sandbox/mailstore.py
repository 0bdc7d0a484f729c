"""A real IMAP server (pymap, maildir backend) holding one mailbox per email address.

The sandbox SMTP server (`deputy.sandbox.mail.LocalMailServer`) delivers what it receives here,
so anyone can log in with an IMAP client and see what Deputy really sent, and Deputy can
read a seeded inbox through its own IMAP connector.

pymap runs in its own process: its asyncio loop, logging and thread pools stay out of
ours, and `stop()` is a plain terminate. Users live in pymap's passwd/shadow-style files
under `root`, which pymap reads on every login, so users added while it runs can log in
at once. Messages arrive by IMAP APPEND as the recipient, never by writing into the
Maildir behind pymap's back: pymap only assigns UIDs (and wakes IDLE clients) for
messages it stores itself.
"""

from __future__ import annotations

import contextlib
import imaplib
import importlib.util
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import SMTP
from email.utils import format_datetime, parsedate_to_datetime
from pathlib import Path

from pysasl.hashing import BuiltinHash

from deputy.sandbox.mail import mailbox_name

DEMO_PASSWORD = "demo-password"
"""The password of every mailbox unless `add_user` is given another one."""
STANDARD_FOLDERS = ("Drafts", "Sent", "Archive", "Trash")
"""Folders every new mailbox gets, besides INBOX."""

_USERS_FILE = "pymap-etc-passwd"
_PASSWORDS_FILE = "pymap-etc-shadow"
# pymap's own default is 500,000 rounds (~0.3 s per login). These are demo passwords on
# loopback; a cheap hash keeps each delivery (one login) fast.
_HASH_ROUNDS = 2_000
_START_TIMEOUT = 15.0
_APPENDUID = re.compile(rb"\[APPENDUID \d+ (\d+)\]")
# pymap's entry point, plus a watchdog: if whoever started it dies without stop()
# (a killed test run, say), pymap exits too instead of holding its port forever.
_PYMAP_MAIN = """
import os, threading, time
parent = os.getppid()
def watch():
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(0)
threading.Thread(target=watch, daemon=True).start()
from pymap.main import main
main()
"""


class MailStoreError(RuntimeError):
    """The store could not start, or could not take a message."""


class MailStore:
    """pymap on `host`, serving the Maildirs under `root` (kept across restarts).

    Logins are lower-cased email addresses; each mailbox lives in
    `root / mailbox_name(address)`, the same naming as `LocalMailServer`'s Maildirs.
    """

    def __init__(self, root: Path, *, host: str = "127.0.0.1", port: int = 0, password: str = DEMO_PASSWORD) -> None:
        self.root = Path(root)
        self.host = host
        self._requested_port = port
        self._port = port
        self.password = password
        self._passwords: dict[str, str] = {}
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    @property
    def port(self) -> int:
        """The port pymap listens on once started (the requested one before)."""
        return self._port

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> tuple[str, int]:
        """Start pymap and wait until it greets; return (host, port)."""
        if self._process is not None:
            raise MailStoreError("the mail store is already running")
        self.root.mkdir(parents=True, exist_ok=True)
        attempts = 1 if self._requested_port else 3
        for _ in range(attempts):
            # pymap cannot report the port it bound, so pick a free one; another process
            # may grab it in between, hence the retry.
            port = self._requested_port or _free_port(self.host)
            if self._launch(port):
                try:
                    for login in list(self._passwords):  # users added before start()
                        self._prepare(login)
                except BaseException:
                    self.stop()  # never leave pymap running behind a failed start()
                    raise
                return self.host, self._port
        raise MailStoreError(f"pymap did not start; see {self.root / 'pymap.log'}")

    def stop(self) -> None:
        """Stop pymap; does nothing if it is not running. Mail stays on disk."""
        process, self._process = self._process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> MailStore:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def add_user(self, address: str, password: str | None = None) -> str:
        """Create (or re-password) the mailbox of `address`; return its login name.

        Only this object remembers a password other than `self.password`; `deliver` to a
        mailbox created by an earlier run logs in with `self.password`.
        """
        login = _login_name(address)
        secret = password if password is not None else self.password
        with self._lock:
            users = _read_records(self.root / _USERS_FILE)
            shadow = _read_records(self.root / _PASSWORDS_FILE)
            users[login] = [login, "x", "", "", "", mailbox_name(login), ""]
            shadow[login] = [login, _hash_password(secret), "", "", "", "", "", "", ""]
            _write_records(self.root / _USERS_FILE, users)
            _write_records(self.root / _PASSWORDS_FILE, shadow)
            self._passwords[login] = secret
        if self.running:
            self._prepare(login)
        return login

    def password_for(self, address: str) -> str:
        """The password the mailbox of `address` logs in with (for the sandbox's OAuth front door)."""
        return self._passwords.get(_login_name(address), self.password)

    def has_user(self, address: str) -> bool:
        return _login_name(address) in self._known_logins()

    def deliver(
        self,
        address: str,
        raw: bytes,
        *,
        folder: str = "INBOX",
        flags: Iterable[str] = (),
        when: datetime | None = None,
    ) -> int | None:
        """APPEND `raw` to `address`'s `folder` (creating user and folder if needed).

        Returns the new message's UID when the server reports it.
        """
        login = self._ensure_user(address)
        with self._session(login) as client:
            return _append(client, folder, raw, flags, when)

    def seed(self, address: str, messages: Iterable[tuple[str, bytes]]) -> list[int | None]:
        """Deliver (folder, raw message) pairs in order over one connection, each dated
        by its Date header; return their UIDs."""
        login = self._ensure_user(address)
        with self._session(login) as client:
            return [_append(client, folder, raw, (), _date_of(raw)) for folder, raw in messages]

    def _ensure_user(self, address: str) -> str:
        login = _login_name(address)
        if login not in self._known_logins():
            self.add_user(login)
        return login

    def _launch(self, port: int) -> bool:
        command = [
            sys.executable, "-c", _PYMAP_MAIN,
            "--host", self.host, "--port", str(port), "--no-tls",
            # Optional services would listen on fixed ports of their own.
            "--no-service", "admin", "--no-service", "managesieve", "--no-service", "swim",
            "maildir", str(self.root),
        ]
        with open(self.root / "pymap.log", "ab") as log:
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + _START_TIMEOUT
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False  # most likely the port was taken
            if _greets(self.host, port):
                self._process, self._port = process, port
                return True
            time.sleep(0.02)
        process.kill()
        process.wait()
        return False

    def _session(self, login: str) -> AbstractContextManager[imaplib.IMAP4]:
        if not self.running:
            raise MailStoreError("the mail store is not running")
        return _logged_in(self.host, self._port, login, self._passwords.get(login, self.password))

    def _prepare(self, login: str) -> None:
        with self._session(login) as client:
            for folder in STANDARD_FOLDERS:
                _create(client, folder)

    def _known_logins(self) -> list[str]:
        return list(_read_records(self.root / _USERS_FILE))


@contextmanager
def _logged_in(host: str, port: int, login: str, password: str) -> Iterator[imaplib.IMAP4]:
    """A logged-in imaplib client, always logged out; IMAP failures become MailStoreError."""
    try:
        client = imaplib.IMAP4(host, port, timeout=10)
    except OSError as exc:
        raise MailStoreError(f"could not reach the mail store: {exc}") from None
    try:
        # imaplib sends a literal's closing CRLF as a write of its own, which Nagle's
        # algorithm holds for a delayed ACK: ~40 ms per APPEND without this.
        client.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if login.isascii() and password.isascii():
            client.login(_quote(login), password)
        else:  # LOGIN only carries ASCII
            client.authenticate("PLAIN", lambda _: f"\0{login}\0{password}".encode())
        yield client
    except (imaplib.IMAP4.error, OSError) as exc:
        raise MailStoreError(f"the mail store failed for {login}: {exc}") from None
    finally:
        with contextlib.suppress(imaplib.IMAP4.error, OSError):
            client.logout()


def _append(
    client: imaplib.IMAP4, folder: str, raw: bytes, flags: Iterable[str], when: datetime | None
) -> int | None:
    if folder != "INBOX":
        _create(client, folder)
    flag_list = "(" + " ".join(flags) + ")" if flags else None
    stamp = imaplib.Time2Internaldate(when or datetime.now(timezone.utc))
    typ, data = client.append(_quote(folder), flag_list, stamp, raw)
    if typ != "OK":
        raise MailStoreError(f"pymap refused a message for {folder}: {data!r}")
    match = _APPENDUID.search(data[0] or b"") if data else None
    return int(match.group(1)) if match else None


def _date_of(raw: bytes) -> datetime | None:
    date = BytesParser(policy=SMTP).parsebytes(raw, headersonly=True)["Date"]
    try:
        return parsedate_to_datetime(str(date)) if date is not None else None
    except (TypeError, ValueError):
        return None


def _create(client: imaplib.IMAP4, folder: str) -> None:
    """CREATE `folder` unless LIST shows it (pymap answers CREATE of an existing folder
    with a server error rather than a plain NO). Names here never hold LIST wildcards."""
    _, listed = client.list('""', _quote(folder))
    if not any(listed):
        client.create(_quote(folder))


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _hash_password(secret: str) -> str:
    """The shadow-file form pymap verifies: it uses passlib when installed (whose pbkdf2
    encoding differs from pysasl's), else pysasl's built-in pbkdf2."""
    if importlib.util.find_spec("passlib") is not None:
        from passlib.hash import pbkdf2_sha256

        return str(pbkdf2_sha256.using(rounds=_HASH_ROUNDS).hash(secret))
    return BuiltinHash(rounds=_HASH_ROUNDS).hash(secret)


def _login_name(address: str) -> str:
    login = address.strip().lower()
    if not login or len(login) > 254 or any(c.isspace() or ord(c) < 32 for c in login):
        raise ValueError(f"{address!r} cannot be a mailbox name")
    return login


def _read_records(path: Path) -> dict[str, list[str]]:
    """The colon-separated records of a pymap users/shadow file, by name."""
    try:
        lines = path.read_text("utf-8").splitlines()
    except FileNotFoundError:
        return {}
    records: dict[str, list[str]] = {}
    for line in lines:
        fields = [field.replace("\\:", ":") for field in re.split(r"(?<!\\):", line)]
        if fields and fields[0]:
            records[fields[0]] = fields
    return records


def _write_records(path: Path, records: dict[str, list[str]]) -> None:
    # pymap re-reads these files on every login: replace them atomically so it never
    # sees half a file (pymap's own writer would rename from /tmp, across filesystems).
    text = "".join(":".join(f.replace(":", "\\:") for f in fields) + "\r\n" for fields in records.values())
    partial = path.with_name(path.name + ".new")
    partial.write_text(text, "utf-8")
    os.replace(partial, path)


def _free_port(host: str) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _greets(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1) as sock:
            return sock.recv(64).startswith(b"* OK")
    except OSError:
        return False


def seed_demo_inbox(store: MailStore, address: str = "demo@sandbox.local", *, now: datetime | None = None) -> None:
    """Give `address` a realistic week of mail: a friend, a newsletter, a receipt, an
    invite, non-UTF-8 and HTML-only mail, an attachment and a three-message thread
    (whose middle message, the user's own reply, is in Sent). `now` must be aware."""
    store.seed(address, _demo_messages(address, now or datetime.now(timezone.utc)))


def _demo_messages(me: str, now: datetime) -> list[tuple[str, bytes]]:
    def mail(days_ago: float, sender: str, subject: str, body: str, mid: str, **headers: str) -> EmailMessage:
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = sender, me, subject
        message["Date"] = format_datetime(now - timedelta(days=days_ago))
        message["Message-ID"] = f"<{mid}@seed.sandbox.local>"
        for name, value in headers.items():
            message[name.replace("_", "-")] = value
        message.set_content(body)
        return message

    hike, hike_reply = "<hike-1@seed.sandbox.local>", "<hike-2@seed.sandbox.local>"
    news = mail(6, "The Weekly Byte <news@weeklybyte.example>", "This week: tiny models, big ideas",
                "Top story: small language models now run on a phone.\nRead more at https://weeklybyte.example/42\n",
                "news-42", List_Unsubscribe="<https://weeklybyte.example/unsubscribe>")
    news.add_alternative("<h1>This week</h1><p>Top story: <b>small language models</b> now run on a phone.</p>"
                         '<p><a href="https://weeklybyte.example/42">Read more</a></p>', subtype="html")
    receipt = mail(5, "Corner Shop <orders@cornershop.example>", "Your receipt for order #4821",
                   "Thanks for your order!\n\n1 x Espresso beans 1kg   $18.50\n1 x Milk frother       $24.00\n"
                   "Total: $42.50, paid with card ending 4242.\n", "receipt-4821")
    invite = mail(4, "Priya Shah <priya@work.example>", "Invitation: Q3 planning, Tuesday 10:00",
                  "Hi! I've put Q3 planning in the calendar for Tuesday 10:00-11:00 in room Ada. Invite attached.\n"
                  "Priya\n", "invite-q3")
    invite.add_attachment(b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nSUMMARY:Q3 planning\r\n"
                          b"END:VEVENT\r\nEND:VCALENDAR\r\n", "text", "calendar", filename="invite.ics")
    statement = mail(2.5, "Northbank <alerts@northbank.example>", "Your November statement is ready", "", "bank-11")
    statement.set_content("<html><body><p>Dear customer,</p><p>Your <b>November statement</b> is ready. "
                          "Balance: <b>$1,204.17</b>.</p><style>p{color:red}</style></body></html>", subtype="html")
    lease = mail(2, "Dana Brooks <dana@brooksrentals.example>", "Lease renewal",
                 "Hi, the renewal for next year is attached. Please sign by the 15th.\nDana\n", "lease")
    lease.add_attachment(b"%PDF-1.4\n% demo lease\n" + b"0" * 2048, "application", "pdf", filename="lease-2027.pdf")
    hike1 = mail(1.5, "Jordan Lee <jordan@trailmail.example>", "Hike on Saturday?",
                 "Want to do the Ridge Loop on Saturday? Start 8am at the north lot?\nJordan\n", "hike-1")
    hike2 = mail(1.2, me, "Re: Hike on Saturday?", "Yes! 8am works. Should I bring lunch?\n\n> Want to do the "
                 "Ridge Loop on Saturday?\n", "hike-2", In_Reply_To=hike, References=hike)
    hike2.replace_header("To", "Jordan Lee <jordan@trailmail.example>")
    hike3 = mail(1, "Jordan Lee <jordan@trailmail.example>", "Re: Hike on Saturday?",
                 "Great, bring lunch. I'll bring the map and snacks.\n", "hike-3",
                 In_Reply_To=hike_reply, References=f"{hike} {hike_reply}")
    sam = mail(0.2, "Sam Rivera <sam@friends.example>", "Dinner on Friday?",
               "Hey! Are we still on for dinner on Friday? I was thinking 7pm at Luigi's on Main St.\n"
               "Let me know, and whether Alex is coming too.\nSam\n", "sam-dinner")
    # Written by hand: an email library would re-encode it as UTF-8.
    latin = (
        "From: =?iso-8859-1?q?Jos=E9_M=FCller?= <jose@correo.example>\r\n"
        f"To: {me}\r\nSubject: =?iso-8859-1?q?Caf=E9_=E0_15h_=3F?=\r\n"
        f"Date: {format_datetime(now - timedelta(days=3))}\r\nMessage-ID: <latin-1@seed.sandbox.local>\r\n"
        "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
        "Salut ! Un caf\xe9 \xe0 15h ? \xc7a me va tr\xe8s bien. \xc0 bient\xf4t, Jos\xe9\r\n"
    ).encode("latin-1")
    # Oldest first, as they would have arrived.
    ordered = [news, receipt, invite, latin, statement, lease, hike1, hike2, hike3, sam]
    return [("Sent" if m is hike2 else "INBOX", m if isinstance(m, bytes) else m.as_bytes(policy=SMTP)) for m in ordered]
