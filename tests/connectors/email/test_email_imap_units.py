"""The pure parts of the IMAP connector: wire parsing, decoding, operations and replies."""

from __future__ import annotations

from datetime import date
from email.message import EmailMessage

import pytest

from deputy.core.records.effects import ConnectorRejected, EffectClass
from deputy.connectors.catalog import Catalog, InvalidArguments
from deputy.connectors.email.imap_decode import decode_bytes, parse_email
from deputy.connectors.email.imap_format import Fetched, base_subject, imap_date, search_criteria, thread_members
from deputy.connectors.email.imap_protocol import (
    ImapProtocolError,
    MessageRef,
    decode_folder,
    encode_folder,
    fetched_body,
    parse_fetch,
    parse_list,
    parse_search,
)
from deputy.connectors.email.imap_reply import build_reply, reply_subject
from deputy.connectors.email.mail_operations import MAIL_OPERATIONS, MAILBOX

CATALOG = Catalog(MAIL_OPERATIONS)


# --- the wire format ---------------------------------------------------------------


def test_fetch_responses_with_literals_and_section_names_parse() -> None:
    data = [
        (b'1 (UID 7 FLAGS (\\Seen) RFC822.SIZE 902 BODY[HEADER.FIELDS (FROM SUBJECT)] {9}', b"From: x\r\n"),
        b")",
        (b"2 (UID 9 BODY[HEADER] {3}", b"a\r\n"),
        (b" BODY[TEXT]<0> {2}", b"zz"),
        b")",
        b"3 (UID 10 FLAGS () BODY[] NIL)",
    ]
    parsed = parse_fetch(data)
    assert parsed[7]["FLAGS"] == ["\\Seen"] and parsed[7]["RFC822.SIZE"] == "902"
    assert fetched_body(parsed[7], "HEADER.FIELDS (FROM SUBJECT)") == b"From: x\r\n"
    assert fetched_body(parsed[9], "HEADER") == b"a\r\n" and fetched_body(parsed[9], "TEXT") == b"zz"
    assert fetched_body(parsed[10]) is None


@pytest.mark.parametrize(
    "data",
    [
        [b"1 (UID 1 FLAGS (x)"],  # never closed
        [b"1 UID 1)"],  # closes what never opened
        [b'1 (UID 1 "unterminated)'],
        [b"1 (UID)"],  # odd item list
        [b"1 (FLAGS ())"],  # no UID
        [b"1 (UID abc)"],
        [12],
        [b"1 (UID 1 BODY[] (((((((((((((((((((((((((((((((((((((x)))))))))))))))))))))))))))))))))))))"],
    ],
)
def test_malformed_fetch_responses_raise_protocol_errors(data: list[object]) -> None:
    with pytest.raises(ImapProtocolError):
        parse_fetch(data)  # type: ignore[arg-type]


def test_list_and_search_responses_parse() -> None:
    folders = parse_list([
        b'(\\HasNoChildren) "/" INBOX',
        b'(\\HasNoChildren \\Drafts) "/" "Sent Items"',
        (b'() "/" {17}', b"Entw&APw-rfe/Alt"),
        b"",
    ])
    assert [f.name for f in folders] == ["INBOX", "Sent Items", "Entwürfe/Alt"]
    assert "\\drafts" in folders[1].attributes
    assert parse_search([b"1 2 30"]) == [1, 2, 30] and parse_search([None]) == []
    with pytest.raises(ImapProtocolError):
        parse_search([b"1 two"])


@pytest.mark.parametrize("name", ["Entwürfe", "日本語", "A&B", "Sent Items", "Ünïcödé & more"])
def test_folder_names_round_trip_through_modified_utf7(name: str) -> None:
    wire = encode_folder(name)
    assert wire.isascii() and wire.startswith('"')
    assert decode_folder(wire.strip('"')) == name


def test_message_ids_are_folder_slash_uid() -> None:
    assert MessageRef.parse(" Work/Clients/7 ") == MessageRef("Work/Clients", 7)
    assert str(MessageRef("INBOX", 42)) == "INBOX/42"
    for bad in ["42", "INBOX/", "INBOX/x", "INBOX/0", "/5", "INBOX/99999999999", "IN\nBOX/4"]:
        with pytest.raises(ValueError):
            MessageRef.parse(bad)


def test_search_criteria_put_the_non_ascii_term_last_as_a_literal() -> None:
    criteria, literal = search_criteria("José", "lunch", None, date(2026, 3, 1), True)
    assert criteria == ["UNDELETED", "SUBJECT", '"lunch"', "SINCE", "01-Mar-2026", "UNSEEN", "FROM"]
    assert literal == "José".encode()
    assert search_criteria(None, 'say "hi"', None, None, False) == (["UNDELETED", "SUBJECT", '"say \\"hi\\""'], None)
    assert imap_date(date(2026, 12, 9)) == "09-Dec-2026"


# --- decoding ----------------------------------------------------------------------


def test_charsets_decode_with_a_guess_when_missing_or_wrong() -> None:
    assert decode_bytes("こんにちは".encode("shift_jis"), "shift_jis") == ("こんにちは", False)
    assert decode_bytes(b"\x93quoted\x94", "iso-8859-1") == ("“quoted”", False)  # really cp1252
    assert decode_bytes("naïve".encode(), "x-no-such-charset") == ("naïve", True)
    assert decode_bytes(b"caf\xe9", "utf-8") == ("café", True)  # mislabelled: best guess
    assert decode_bytes(b"plain", None)[0] == "plain"
    assert decode_bytes(b"x", "base64")[0] == "x"  # a bytes codec is not a text charset


def raw(*lines: str, body: bytes = b"") -> bytes:
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def test_odd_mail_decodes_without_crashing() -> None:
    cases = [
        raw("From: =?utf-8?q?broken=ZZ?= <a@b.example>", "Subject: =?nonsense?q?hi?=",
            "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64", body=b"!!!not base64"),
        raw("From: J\xf6rg <j@x.example>", "Subject: Gr\xfc\xdfe", body=b"Gr\xfc\xdfe aus K\xf6ln"),
        raw("Content-Type: multipart/mixed; boundary=X", body=b"--X\r\nContent-Type: text/plain\r\n\r\nunterminated"),
        b"\x00\xff\xfe garbage without headers",
        b"",
        raw("Content-Type: multipart/mixed; boundary=0",
            body=b"".join(b"--%d\r\nContent-Type: multipart/mixed; boundary=%d\r\n\r\n" % (i, i + 1) for i in range(300))),
    ]
    for case in cases:
        content = parse_email(case)
        assert isinstance(content.text, str)
    assert parse_email(cases[1]).subject == "Grüße" and parse_email(cases[1]).sender.name == "Jörg"
    assert "too many parts" in " ".join(parse_email(cases[5]).notes)


def test_html_only_mail_becomes_text_and_attachments_are_only_listed() -> None:
    message = EmailMessage()
    message["From"] = "Shop <shop@example.com>"
    message["Subject"] = "Deal"
    message.set_content("<html><head><style>p{}</style><script>alert(1)</script></head>"
                        "<body><p>Only <b>today</b></p></body></html>", subtype="html")
    message.add_attachment(b"MZ\x90\x00" * 500, "application", "x-msdownload", filename="setup.exe")
    message.add_attachment(b"%PDF", "application", "pdf", filename="r\u00e9sum\u00e9.pdf")
    content = parse_email(message.as_bytes())
    assert content.text == "Only today"
    assert [(a.name, a.content_type, a.size) for a in content.attachments] == [
        ("setup.exe", "application/x-msdownload", 2000), ("résumé.pdf", "application/pdf", 4)]
    assert "MZ" not in content.text


# --- operations --------------------------------------------------------------------


def test_operations_declare_their_effects_and_targets() -> None:
    effects = {op.name: op.spec.effect for op in MAIL_OPERATIONS}
    assert effects == {
        "search_email": EffectClass.read, "read_email": EffectClass.read, "read_thread": EffectClass.read,
        "draft_email": EffectClass.write, "reply_email": EffectClass.communicate,
        "forward_email": EffectClass.communicate, "move_email": EffectClass.write, "mark_email": EffectClass.write,
    }
    forward = CATALOG.get("forward_email")
    assert forward.targets(forward.validate({"message_id": "INBOX/3", "to": ["ruth@tax.example"]})) == ["ruth@tax.example"]
    reply = CATALOG.get("reply_email")
    args = reply.validate({"message_id": "INBOX/3", "to": "Sam@Friends.example", "cc": ["a@b.example"], "body": "Yes"})
    assert reply.targets(args) == ["Sam@friends.example", "a@b.example"]
    assert CATALOG.get("move_email").targets(CATALOG.get("move_email").validate(
        {"message_id": "INBOX/3", "folder": "Archive"})) == [MAILBOX]
    assert MAILBOX in CATALOG.services()
    for op in MAIL_OPERATIONS:
        assert op.tool_schema()["function"]["name"] == op.name


@pytest.mark.parametrize(
    "name, arguments",
    [
        ("search_email", {"limit": 500}),
        ("search_email", {"from": "José", "subject": "Café"}),
        ("search_email", {"text": "a\x00b"}),
        ("search_email", {"surprise": 1}),
        ("read_email", {"message_id": "42"}),
        ("reply_email", {"message_id": "INBOX/1", "to": [], "body": "x"}),
        ("reply_email", {"message_id": "INBOX/1", "to": ["bob@example.com\r\nBcc: eve@evil.example"], "body": "x"}),
        ("mark_email", {"message_id": "INBOX/1"}),
        ("move_email", {"message_id": "INBOX/1", "folder": "a\x00b"}),
        ("draft_email", {"to": ["x@y.example"], "subject": "two\nlines", "body": ""}),
    ],
)
def test_bad_arguments_are_refused_with_a_message_for_the_model(name: str, arguments: dict[str, object]) -> None:
    with pytest.raises(InvalidArguments):
        CATALOG.get(name).validate(arguments)


# --- replies and threads -----------------------------------------------------------


def original() -> bytes:
    message = EmailMessage()
    message["From"] = "Sam <sam@friends.example>"
    message["To"] = "me@example.com"
    message["Cc"] = "alex@friends.example"
    message["Subject"] = "Re: Re: Dinner"
    message["Message-ID"] = "<m2@friends.example>"
    message["References"] = "<m0@friends.example> <m1@example.com>"
    message["In-Reply-To"] = "<m1@example.com>"
    message.set_content("Friday?\nAt 7.\n")
    return message.as_bytes()


def test_a_reply_threads_quotes_and_keeps_to_the_conversation() -> None:
    reply = build_reply(parse_email(original()), ["sam@friends.example"], ["alex@friends.example"], "Yes!")
    assert reply.subject == "Re: Re: Dinner"  # already a reply: no third "Re:"
    assert reply.in_reply_to == "<m2@friends.example>"
    assert reply.references == ["<m0@friends.example>", "<m1@example.com>", "<m2@friends.example>"]
    assert reply.body.startswith("Yes!\n\n") and "> Friday?\n> At 7." in reply.body
    with pytest.raises(ConnectorRejected, match="eve@evil.example"):
        build_reply(parse_email(original()), ["eve@evil.example"], [], "hi")
    assert reply_subject("Lunch") == "Re: Lunch" and reply_subject("RE: Lunch") == "RE: Lunch"
    assert reply_subject("") == "Re: (no subject)"


def test_thread_members_follow_references_and_fall_back_to_subject() -> None:
    def item(uid: int, mid: str, subject: str, refs: str = "") -> Fetched:
        message = EmailMessage()
        message["Subject"], message["Message-ID"] = subject, mid
        message["Date"] = f"Mon, {uid} Mar 2026 10:00:00 +0000"
        if refs:
            message["References"] = refs
        message.set_content("x")
        return Fetched(MessageRef("INBOX", uid), parse_email(message.as_bytes()), frozenset(), 10, False)

    a, b = item(1, "<a@x>", "Plan"), item(2, "<b@x>", "Re: Plan", "<a@x>")
    c, other = item(3, "<c@x>", "Re: Plan", "<a@x> <b@x>"), item(4, "<d@x>", "Plan")
    assert [m.ref.uid for m in thread_members(c, [a, b, other])] == [1, 2, 3]
    loose1, loose2 = item(5, "<e@x>", "Hello"), item(6, "<f@x>", "RE: hello")
    assert [m.ref.uid for m in thread_members(loose2, [loose1, other])] == [5, 6]
    assert base_subject("Fwd: RE: Aw: x") == "x" and base_subject("Re[2]: x") == "x"
