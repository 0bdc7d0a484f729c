"""IMAP failures: every one a plain ConnectorError of the right kind, never a crash or a leak."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from pydantic import SecretStr

from deputy.core.records.effects import (
    ConnectorAuthError,
    ConnectorError,
    ConnectorRejected,
    ConnectorUnavailable,
    OperationResult,
)
from deputy.connectors.catalog import Catalog
from deputy.connectors.email.imap import ImapAccount
from deputy.connectors.email.mail_operations import MAIL_OPERATIONS
from deputy.connectors.email.mail_runners import MailRunners
from deputy.sandbox.mailstore import MailStore
from deputy.core.records.actions import Action

CATALOG = Catalog(MAIL_OPERATIONS)
PASSWORD = "imap-pw-do-not-leak"


def action(operation: str, **arguments: object) -> Action:
    op = CATALOG.get(operation)
    assert op is not None
    args = op.validate(arguments)
    return Action(id="a", goal_id="g", user_id=7, chat_id=7, connector="email", operation=operation,
                  effect=op.spec.effect, arguments=arguments, targets=op.targets(args), tool_call_id="t", created_at=0)


def account(port: int, **overrides: object) -> ImapAccount:
    fields: dict[str, object] = {"host": "127.0.0.1", "port": port, "username": "me@sandbox.local",
                                 "password": SecretStr(PASSWORD), "use_ssl": False, "starttls": False, "timeout": 1}
    return ImapAccount.model_validate({**fields, **overrides})


def search(imap: ImapAccount) -> OperationResult | str:
    return MailRunners(lambda _: imap, send=lambda *a: None).search_email(action("search_email"), "k")  # type: ignore[arg-type,return-value]


def failure(imap: ImapAccount, kind: type[ConnectorError]) -> ConnectorError:
    with pytest.raises(kind) as caught:
        search(imap)
    error = caught.value
    assert type(error) is kind
    assert PASSWORD not in str(error) and PASSWORD not in (error.detail or "") and PASSWORD not in repr(error)
    assert error.__context__ is None and error.__cause__ is None  # no library frame holding the password
    assert str(error) == error.user_message and error.user_message.endswith(".")
    return error


@contextmanager
def tcp_server(script: Callable[[socket.socket], None]) -> Iterator[int]:
    """A one-connection TCP server running `script` on the accepted socket."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(5)

    def serve() -> None:
        try:
            connection, _ = listener.accept()
            with connection:
                script(connection)
        except OSError:
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        thread.join(timeout=5)
        listener.close()


def drain(connection: socket.socket) -> None:
    while connection.recv(4096):
        pass


def fake_imap(
    answers: dict[str, bytes], capabilities: bytes = b"IMAP4rev1 AUTH=PLAIN", seen: list[str] | None = None
) -> Callable[[socket.socket], None]:
    """Speaks just enough IMAP; `answers` maps a command to the untagged lines before its OK
    (or to a complete reply, when it holds the "{tag}" placeholder, or to b"" to hang up).
    Every command line received is appended to `seen`."""

    def script(connection: socket.socket) -> None:
        connection.sendall(b"* OK fake IMAP ready\r\n")
        for line in connection.makefile("rb"):
            tag, _, rest = line.decode().strip().partition(" ")
            if seen is not None:
                seen.append(rest)
            words = rest.upper().split()
            command = " ".join(words[:2]) if words[:1] == ["UID"] else words[0] if words else ""
            if command == "CAPABILITY":
                reply = b"* CAPABILITY " + capabilities + b"\r\n{tag} OK done\r\n"
            elif command in answers:
                if answers[command] == b"":
                    return
                reply = answers[command] if b"{tag}" in answers[command] else answers[command] + b"{tag} OK done\r\n"
            elif command in ("LOGIN", "LOGOUT", "EXAMINE", "SELECT"):
                reply = (b"* BYE\r\n" if command == "LOGOUT" else b"") + b"{tag} OK done\r\n"
            else:
                reply = b"{tag} BAD unknown\r\n"
            connection.sendall(reply.replace(b"{tag}", tag.encode()))
            if command == "LOGOUT":
                return

    return script


def test_a_server_that_is_down_is_unavailable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    error = failure(account(port), ConnectorUnavailable)
    assert error.user_message == f"I couldn't reach the mail server at 127.0.0.1:{port}." and error.retryable


def test_a_wrong_password_is_an_auth_error(tmp_path_factory: pytest.TempPathFactory) -> None:
    with MailStore(tmp_path_factory.mktemp("imap")) as store:
        store.add_user("me@sandbox.local", "the-right-one")
        error = failure(account(store.port), ConnectorAuthError)
        assert error.user_message == f"The mail server at 127.0.0.1:{store.port} rejected the username or password."
        assert not error.retryable
        # A non-ASCII password goes through SASL PLAIN rather than failing in imaplib.
        store.add_user("me@sandbox.local", "pässwörd-ok")
        result = search(account(store.port, password=SecretStr("pässwörd-ok")))
        assert isinstance(result, OperationResult) and result.summary.startswith("No emails in INBOX")


@pytest.mark.parametrize(
    "script, message",
    [
        (lambda c: (c.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n"), drain(c)), "didn't answer like a mail server"),
        (lambda c: (c.sendall(b"\x00\xff\xfe" * 700_000), drain(c)), "didn't answer like a mail server"),
        (drain, "stopped answering"),
        (lambda c: None, "broke off"),
        (fake_imap({"LOGIN": b""}), "broke off"),
        (fake_imap({"EXAMINE": b"* BYE going away\r\n"}), "broke off"),
    ],
    ids=["http", "binary-junk", "silent", "hangs-up", "hangs-up-at-login", "bye"],
)
def test_servers_that_do_not_speak_imap_are_unavailable(script: Callable[[socket.socket], None], message: str) -> None:
    with tcp_server(script) as port:
        error = failure(account(port, timeout=0.5), ConnectorUnavailable)
    assert message in error.user_message


@pytest.mark.parametrize(
    "answers",
    [
        {"UID SEARCH": b"* SEARCH 1 two\r\n"},
        {"UID SEARCH": b"* SEARCH 1\r\n", "UID FETCH": b"* 1 FETCH (UID 1 FLAGS (\\Seen BODY[] NIL\r\n"},
        {"UID SEARCH": b"* SEARCH 1\r\n", "UID FETCH": b"* 1 FETCH (FLAGS ())\r\n"},
        {"UID SEARCH": b"* SEARCH 1\r\n", "UID FETCH": b"* 1 FETCH (UID 1 BODY[HEADER] (nested) RFC822.SIZE x)\r\n"},
        {"UID SEARCH": b"* SEARCH 1\r\n", "UID FETCH": b'* 1 FETCH (UID 1 BODY[HEADER] "open\r\n'},
    ],
    ids=["search-word", "unbalanced", "no-uid", "header-not-a-string", "open-quote"],
)
def test_malformed_responses_are_unavailable(answers: dict[str, bytes]) -> None:
    with tcp_server(fake_imap(answers)) as port:
        error = failure(account(port), ConnectorUnavailable)
    assert error.user_message.endswith("answered in a way I couldn't understand.")


def test_refusals_are_rejections_and_huge_garbage_bodies_still_decode() -> None:
    with tcp_server(fake_imap({"UID SEARCH": b"{tag} NO [CANNOT] search is broken\r\n"})) as port:
        error = failure(account(port), ConnectorRejected)
    assert error.user_message == "The mail server refused to search your mail."
    junk = bytes(range(256)) * 40
    fetch = b"* 1 FETCH (UID 1 FLAGS () RFC822.SIZE %d BODY[HEADER] {%d}\r\n%s BODY[TEXT]<0> {%d}\r\n%s)\r\n" % (
        len(junk) * 2, len(junk), junk, len(junk), junk)
    with tcp_server(fake_imap({"UID SEARCH": b"* SEARCH 1\r\n", "UID FETCH": fetch})) as port:
        result = search(account(port))
    assert isinstance(result, OperationResult) and "INBOX/1" in result.summary


def test_no_plain_text_login_when_starttls_is_missing() -> None:
    seen: list[str] = []
    with tcp_server(fake_imap({}, seen=seen)) as port:
        error = failure(account(port, starttls=True), ConnectorError)
    assert "doesn't offer an encrypted connection" in error.user_message and not error.retryable
    assert seen == ["CAPABILITY"]  # and no LOGIN


def test_account_validation_never_echoes_the_password() -> None:
    with pytest.raises(Exception) as caught:
        ImapAccount.model_validate({"host": "bad host", "port": 0, "username": "u", "password": PASSWORD})
    assert PASSWORD not in str(caught.value)
