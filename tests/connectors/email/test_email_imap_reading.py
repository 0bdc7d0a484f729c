"""Reading mail over real IMAP: the sandbox's pymap server with the seeded demo inbox."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from pathlib import Path

import pytest
from pydantic import SecretStr
from redis import Redis

from deputy.core.records.effects import ConnectorRejected, OperationResult
from deputy.connectors.catalog import Catalog
from deputy.connectors.email.imap import ImapAccount
from deputy.connectors.email.imap_accounts import IMAP_HANDLE, ImapAccounts
from deputy.connectors.email.mail_operations import MAIL_OPERATIONS
from deputy.connectors.email.mail_runners import MailRunners
from deputy.sandbox.mailstore import DEMO_PASSWORD, MailStore, seed_demo_inbox
from deputy.core.records.actions import Action
from deputy.vault import KdfCost, Vault

CATALOG = Catalog(MAIL_OPERATIONS)
DEMO = "demo@sandbox.local"
ODD = "odd@sandbox.local"
NOW = datetime(2026, 12, 4, 12, 0, tzinfo=timezone.utc)


def action(operation: str, **arguments: object) -> Action:
    op = CATALOG.get(operation)
    assert op is not None
    args = op.validate(arguments)
    return Action(id="a", goal_id="g", user_id=7, chat_id=7, connector="email", operation=operation,
                  effect=op.spec.effect, arguments=arguments, targets=op.targets(args), tool_call_id="t", created_at=0)


def account(store: MailStore, address: str = DEMO) -> ImapAccount:
    return ImapAccount(host=store.host, port=store.port, username=address, password=SecretStr(DEMO_PASSWORD),
                       use_ssl=False, starttls=False, timeout=5)


def odd_messages() -> list[tuple[str, bytes]]:
    def dated(raw: bytes, days: int) -> bytes:
        stamp = (NOW - timedelta(days=days)).strftime("%a, %d %b %Y %H:%M:%S +0000")
        return f"Date: {stamp}\r\n".encode() + raw

    shift_jis = (b"From: =?shift_jis?b?k2OShg==?= <tanaka@example.jp>\r\nSubject: =?Shift_JIS?B?g2WDWINn?=\r\n"
                 b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=shift_jis\r\n\r\n"
                 + "会議は明日です。".encode("shift_jis"))
    cp1252 = (b"From: Shop <shop@example.com>\r\nSubject: Smart quotes\r\nMIME-Version: 1.0\r\n"
              b"Content-Type: text/plain; charset=windows-1252\r\n\r\nIt\x92s \x93great\x94 \x96 \x80 5")
    unknown = (b"From: Odd <odd@example.com>\r\nSubject: Mystery charset\r\nMIME-Version: 1.0\r\n"
               b"Content-Type: text/plain; charset=x-martian\r\n\r\nR\xc3\xa9sum\xc3\xa9 attached\r\n")
    rfc2231 = EmailMessage()
    rfc2231["From"], rfc2231["Subject"] = "HR <hr@example.com>", "Your contract"
    rfc2231.set_content("See attached.")
    rfc2231.add_attachment(b"%PDF-1.4 data", "application", "pdf", filename="Vertrag für Jörg.pdf")
    forwarded = EmailMessage()
    forwarded["From"], forwarded["Subject"] = "Fwd <fwd@example.com>", "Fwd: a forwarded note"
    forwarded.set_content("Forwarding this.")
    inner = EmailMessage()
    inner["Subject"] = "The original"
    inner.set_content("inner text")
    forwarded.add_attachment(inner)
    return [("INBOX", dated(m if isinstance(m, bytes) else m.as_bytes(), i + 1))
            for i, m in enumerate([shift_jis, cp1252, unknown, rfc2231, forwarded])]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MailStore]:
    with MailStore(tmp_path_factory.mktemp("imap")) as running:
        seed_demo_inbox(running, DEMO, now=NOW)
        running.seed(ODD, odd_messages())
        yield running


@pytest.fixture(scope="module")
def runners(store: MailStore) -> dict[str, object]:
    accounts = {DEMO: account(store), ODD: account(store, ODD)}
    current = {"address": DEMO}
    runners = MailRunners(lambda user_id: accounts[current["address"]], send=lambda *a: None).runners()  # type: ignore[arg-type,return-value]
    return {"runners": runners, "current": current}


def run(runners: dict[str, object], operation: str, address: str = DEMO, **arguments: object) -> OperationResult:
    runners["current"]["address"] = address  # type: ignore[index]
    result = runners["runners"][f"email.{operation}"](action(operation, **arguments), "key-1")  # type: ignore[index]
    assert isinstance(result, OperationResult)
    return result


def ids_in(summary: str) -> list[str]:
    return [line.split(" | ")[0][2:] for line in summary.splitlines() if line.startswith("- ")]


def test_search_lists_the_inbox_newest_first_with_ids(runners: dict[str, object]) -> None:
    result = run(runners, "search_email")
    lines = result.summary.splitlines()
    assert lines[0].startswith("9 email(s) in INBOX")
    assert ids_in(result.summary) == [f"INBOX/{uid}" for uid in range(9, 0, -1)]
    assert "Sam Rivera <sam@friends.example> | Dinner on Friday? | unread" in lines[1]
    assert "I was thinking 7pm at Luigi's" in lines[1]
    assert result.untrusted_origin is not None and result.untrusted_origin.startswith("INBOX in your mailbox (emails from sam@")


@pytest.mark.parametrize(
    "arguments, expected",
    [
        ({"from": "sam"}, ["INBOX/9"]),
        ({"subject": "hike"}, ["INBOX/8", "INBOX/7"]),
        ({"text": "Luigi"}, ["INBOX/9"]),
        ({"from": "José"}, ["INBOX/4"]),  # non-ASCII: sent as a UTF-8 literal
        ({"since": "2026-12-01"}, ["INBOX/9", "INBOX/8", "INBOX/7", "INBOX/6", "INBOX/5", "INBOX/4"]),
        ({"subject": "hike", "limit": 1}, ["INBOX/8"]),
        ({"from": "nobody-at-all"}, []),
    ],
)
def test_search_filters(runners: dict[str, object], arguments: dict[str, object], expected: list[str]) -> None:
    result = run(runners, "search_email", **arguments)
    assert ids_in(result.summary) == expected
    if not expected:
        assert result.summary.startswith("No emails in INBOX match") and result.untrusted_origin is None


def test_reading_an_email_gives_headers_text_and_origin(runners: dict[str, object]) -> None:
    result = run(runners, "read_email", message_id="INBOX/9")
    assert "From: Sam Rivera <sam@friends.example>" in result.summary
    assert "Subject: Dinner on Friday?" in result.summary and "(unread," in result.summary
    assert "whether Alex is coming too" in result.summary
    assert result.untrusted_origin == "an email from sam@friends.example"
    # Reading is a peek: the user's unread mail stays unread.
    assert "unread" in run(runners, "search_email", **{"from": "sam"}).summary


def test_latin1_html_only_and_attachments(runners: dict[str, object]) -> None:
    latin = run(runners, "read_email", message_id="INBOX/4").summary
    assert "From: José Müller <jose@correo.example>" in latin and "Subject: Café à 15h ?" in latin
    assert "Ça me va très bien. À bientôt, José" in latin
    html = run(runners, "read_email", message_id="INBOX/5").summary
    assert "Your November statement is ready. Balance: $1,204.17." in html
    assert "<" not in html.split("\n\n", 1)[1] and "color:red" not in html
    lease = run(runners, "read_email", message_id="INBOX/6").summary
    assert "Attachments (listed, not opened): lease-2027.pdf (application/pdf, 2 KB)" in lease
    assert "%PDF" not in lease
    invite = run(runners, "read_email", message_id="INBOX/3").summary
    assert "invite.ics (text/calendar" in invite and "BEGIN:VCALENDAR" not in invite


def test_odd_encodings_decode(runners: dict[str, object]) -> None:
    summaries = {i: run(runners, "read_email", ODD, message_id=f"INBOX/{i}").summary for i in range(1, 6)}
    assert "From: 田中 <tanaka@example.jp>" in summaries[1] and "会議は明日です。" in summaries[1]
    assert "It’s “great” – € 5" in summaries[2]
    assert "Résumé attached" in summaries[3] and "guessed" in summaries[3]
    assert "Vertrag für Jörg.pdf (application/pdf" in summaries[4]
    assert "attached email: The original (message/rfc822" in summaries[5] and "inner text" not in summaries[5]


def test_a_thread_spans_inbox_and_sent_oldest_first(runners: dict[str, object]) -> None:
    result = run(runners, "read_thread", message_id="INBOX/8")
    summary = result.summary
    assert summary.startswith('Conversation "Hike on Saturday?": 3 email(s), oldest first.')
    assert summary.index("INBOX/7") < summary.index("Sent/1") < summary.index("INBOX/8")
    assert "Should I bring lunch?" in summary and "bring the map and snacks" in summary
    assert "> Want to do" not in summary  # quoted copies are dropped
    assert result.untrusted_origin == "a thread of emails from jordan@trailmail.example, demo@sandbox.local"
    single = run(runners, "read_thread", message_id="INBOX/9").summary
    assert "1 email(s)" in single and "Luigi's" in single


def test_missing_messages_and_folders_are_plain_rejections(runners: dict[str, object]) -> None:
    with pytest.raises(ConnectorRejected, match="There is no email INBOX/99"):
        run(runners, "read_email", message_id="INBOX/99")
    with pytest.raises(ConnectorRejected, match="There is no folder called 'Nowhere'"):
        run(runners, "read_email", message_id="Nowhere/1")
    with pytest.raises(ConnectorRejected, match="There is no email INBOX/4242"):
        run(runners, "read_thread", message_id="INBOX/4242")


def test_a_huge_message_is_cut_with_a_note(store: MailStore) -> None:
    message = EmailMessage()
    message["From"], message["Subject"] = "Big <big@example.com>", "Five megabytes"
    message.set_content("Start of a long story.\n" + "All work and no play. " * 240_000)
    store.deliver("huge@sandbox.local", message.as_bytes())
    runner = MailRunners(lambda _: account(store, "huge@sandbox.local"), send=lambda *a: None).read_email  # type: ignore[arg-type,return-value]
    result = runner(action("read_email", message_id="INBOX/1"), "k")
    assert re.search(r"Note: this email is 5\.\d MB; I read only its beginning", result.summary)
    assert "Start of a long story." in result.summary
    assert len(result.summary) < 14_000 and "[... cut:" in result.summary


def test_the_account_comes_from_the_vault(store: MailStore, redis: Redis, tmp_path: Path) -> None:
    vault = Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024,
                                                                             parallelism=1))
    vault.put(7, IMAP_HANDLE, SecretStr(DEMO_PASSWORD), "password", "Sandbox mail", public={
        "host": store.host, "port": str(store.port), "username": DEMO, "ssl": "false", "starttls": "false"})
    runners = MailRunners(ImapAccounts(vault).for_user, send=lambda *a: None).runners()  # type: ignore[arg-type,return-value]
    result = runners["email.search_email"](action("search_email", **{"from": "sam"}), "k")
    assert isinstance(result, OperationResult) and ids_in(result.summary) == ["INBOX/9"]
    with pytest.raises(Exception, match="isn't connected yet") as missing:
        ImapAccounts(vault).for_user(8)
    assert missing.value.__class__.__name__ == "ConnectorError"


def test_a_search_that_matches_nothing_as_written_lists_the_closest_emails(runners: dict[str, object]) -> None:
    # The model's guess at the subject ("dinner invitation from Sam Rivera") matches nothing exactly;
    # the email is there in other words, and comes first among the closest, marked as such.
    result = run(runners, "search_email", subject="dinner invitation from Sam Rivera")
    assert result.summary.startswith("The closest emails in INBOX (sharing some of its words)")
    assert ids_in(result.summary)[0] == "INBOX/9"
    assert "None matched the whole of your search (subject 'dinner invitation from Sam Rivera')" in result.summary
    assert result.untrusted_origin is not None and "sam@friends.example" in result.untrusted_origin
    # The model's guessed date and a word's other form do not hide it: "dinners" finds the dinner email.
    guessed = run(runners, "search_email", subject="dinners", since="2026-12-30")
    assert "INBOX/9" in ids_in(guessed.summary)
    nothing = run(runners, "search_email", subject="zzqx wwvy")
    assert ids_in(nothing.summary) == [] and "closest" not in nothing.summary


def test_no_email_from_an_exact_address_lists_no_near_matches(runners: dict[str, object]) -> None:
    # "friends.example" is in Sam's address; nobody wrote from alex@friends.example, so none came from Alex:
    # near matches on the address's words would hand the model Sam's email as if it were Alex's.
    result = run(runners, "search_email", sender="alex@friends.example")
    assert ids_in(result.summary) == [] and "closest" not in result.summary
    # A name is a guess, and its words still find the closest emails.
    named = run(runners, "search_email", sender="Rivera Sam")
    assert "INBOX/9" in ids_in(named.summary)


def test_a_watchs_probe_gets_only_exact_matches(runners: dict[str, object]) -> None:
    # A probe compares each reading with the last: near matches would wake the watch with news that is not.
    runners["current"]["address"] = DEMO  # type: ignore[index]
    probe = action("search_email", subject="dinner invitation from Sam Rivera").model_copy(update={"unattended": True})
    result = runners["runners"]["email.search_email"](probe, "key-1")  # type: ignore[index]
    assert ids_in(result.summary) == [] and "closest" not in result.summary


def test_each_email_a_read_returns_is_an_item_named_by_its_sender_subject_and_id(runners: dict[str, object]) -> None:
    from deputy.core.records.read_items import locate

    search = run(runners, "search_email")
    placed = locate(search.summary, search.items)
    assert len(placed) == 9 and [search.summary[p.start:p.end] for p in placed] == search.summary.splitlines()[1:]
    assert search.items[0].origin == "the email from sam@friends.example, 'Dinner on Friday?', INBOX/9"
    assert search.items[0].author == "sam@friends.example"
    one = run(runners, "read_email", message_id="INBOX/9")
    assert [(i.origin, i.text) for i in one.items] == [
        ("the email from sam@friends.example, 'Dinner on Friday?', INBOX/9", one.summary)]
    thread = run(runners, "read_thread", message_id="INBOX/8")
    assert [i.origin.rsplit(", ", 1)[1] for i in thread.items] == ["INBOX/7", "Sent/1", "INBOX/8"]
    assert all(i.text in thread.summary for i in thread.items)
