"""The scrubber removes secrets in every common spelling and leaves ordinary text alone."""

from __future__ import annotations

import base64
import json
import random
import secrets
from urllib.parse import quote, quote_plus, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import SecretStr

from deputy.vault import REDACTED, Scrubber, luhn_valid, redact_patterns

SECRET = "s3cr3t/pa$$ word+&="
ORDINARY = (
    "Hi Sam, your order #4417 for 2 tickets (EUR 84.50) is confirmed for 2026-03-14 at 19:30. "
    "Call +1 415 555 0132 or reply to this email. The bearer of this ticket must show ID, valid for the bearer "
    "2026-03-14 only; password reset links expire. "
    "Basic fare rules apply; see https://tickets.example/faq?lang=en&page=2. Thanks, the team"
)


@pytest.fixture
def scrubber() -> Scrubber:
    return Scrubber([SecretStr(SECRET)])


@pytest.mark.parametrize(
    "spelling",
    [
        SECRET,
        quote(SECRET, safe=""),
        quote(SECRET, safe="").lower(),
        quote_plus(SECRET),
        base64.b64encode(SECRET.encode()).decode(),
        base64.b64encode(SECRET.encode()).decode().rstrip("="),
        base64.urlsafe_b64encode(SECRET.encode()).decode(),
        json.dumps(SECRET)[1:-1],
    ],
)
def test_known_secret_spellings_are_redacted(scrubber: Scrubber, spelling: str) -> None:
    out = scrubber.scrub(f"before {spelling} after")

    assert spelling not in out
    assert out.startswith("before ") and out.endswith(" after")
    assert REDACTED in out


def test_url_query_and_form_bodies(scrubber: Scrubber) -> None:
    query = urlencode({"user": "sam", "pw": SECRET})

    assert scrubber.scrub(f"GET /login?{query}") == f"GET /login?user=sam&pw={REDACTED}"


@pytest.mark.parametrize("user", ["a", "sam", "sam@example.test", "ab"])
def test_basic_auth_header_containing_the_secret(scrubber: Scrubber, user: str) -> None:
    header = base64.b64encode(f"{user}:{SECRET}".encode()).decode()

    # With or without the header name in front, the encoded secret does not survive.
    for text in (f"Authorization: Basic {header}", f"creds={header};", f"sent {header}"):
        out = scrubber.scrub(text)
        assert header not in out
        assert REDACTED in out


def test_base64_inside_a_larger_encoded_payload(scrubber: Scrubber) -> None:
    for prefix in ("", "x", "xy", '{"password": "'):
        blob = base64.b64encode((prefix + SECRET + '"}').encode()).decode()
        out = Scrubber([SECRET]).scrub(blob)
        leftover = out.split(REDACTED)
        assert len(leftover) == 2, (prefix, out)
        # What remains on either side is a few boundary characters, not the secret.
        assert sum(len(part) for part in leftover) < len(blob) - len(SECRET)


def test_basic_auth_header_of_an_unknown_secret() -> None:
    header = base64.b64encode(b"admin:letmein123").decode()

    assert Scrubber().scrub(f"Authorization: Basic {header}") == f"Authorization: Basic {REDACTED}"
    assert Scrubber().scrub(f"curl -H 'X: Basic {header}'") == f"curl -H 'X: Basic {REDACTED}'"


@pytest.mark.parametrize(
    "card",
    ["4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111", "378282246310005", "3782 822463 10005",
     "5555555555554444", "6011000990139424", "4222222222222"],
)
def test_luhn_valid_card_numbers_are_redacted(card: str) -> None:
    assert luhn_valid(card.replace(" ", "").replace("-", ""))

    assert Scrubber().scrub(f"Paid with {card}, thanks.") == f"Paid with {REDACTED}, thanks."


def test_digit_runs_that_fail_luhn_are_left_alone() -> None:
    rng = random.Random(7)
    invalid = []
    while len(invalid) < 50:
        digits = "".join(rng.choice("0123456789") for _ in range(16))
        if not luhn_valid(digits):
            invalid.append(digits)

    for digits in invalid:
        text = f"Tracking number {digits} and grouped {digits[:4]} {digits[4:8]} {digits[8:12]} {digits[12:]}."
        assert Scrubber().scrub(text) == text


def test_a_card_next_to_other_digits_is_still_found() -> None:
    assert Scrubber().scrub("4111 1111 1111 1111 exp 12/29") == f"{REDACTED} exp 12/29"
    assert Scrubber().scrub("card: 4111111111111111") == f"card: {REDACTED}"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Authorization: Bearer eyJhbGciOi.eyJzdWIi.SflKxw", f"Authorization: Bearer {REDACTED}"),
        ('{"authorization": "Bearer abc123def456"}', f'{{"authorization": "Bearer {REDACTED}"}}'),
        ("authorization=token ghp_16C7e42F292c6912E7710c838347Ae178B4a", f"authorization=token {REDACTED}"),
        ("curl -H 'Bearer sk-live-0123456789'", f"curl -H 'Bearer {REDACTED}'"),
    ],
)
def test_bearer_and_authorization_values(text: str, expected: str) -> None:
    assert Scrubber().scrub(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("password=hunter2&user=sam", f"password={REDACTED}&user=sam"),
        ('{"password": "hunter 2", "user": "sam"}', f'{{"password": "{REDACTED}", "user": "sam"}}'),
        ("db_password: 'pa ss'", f"db_password: '{REDACTED}'"),
        ("API_KEY=sk-123 next", f"API_KEY={REDACTED} next"),
        ("x-api-key: abcdef", f"x-api-key: {REDACTED}"),
        ("client_secret=xyz;", f"client_secret={REDACTED};"),
        ("access_token=ya29.a0Af", f"access_token={REDACTED}"),
        # The casual abbreviations people write in notes and emails.
        ("wifi pw: hunter2 (guest)", f"wifi pw: {REDACTED} (guest)"),
        ("pword=Summer2024", f"pword={REDACTED}"),
    ],
)
def test_key_value_secrets(text: str, expected: str) -> None:
    assert Scrubber().scrub(text) == expected


@pytest.mark.parametrize("kind", ["RSA ", "EC ", "", "OPENSSH ", "ENCRYPTED "])
def test_pem_private_keys(kind: str) -> None:
    body = base64.b64encode(secrets.token_bytes(300)).decode()
    pem = f"-----BEGIN {kind}PRIVATE KEY-----\n{body[:64]}\n{body[64:]}\n-----END {kind}PRIVATE KEY-----"

    assert Scrubber().scrub(f"key:\n{pem}\nthat was it") == f"key:\n{REDACTED}\nthat was it"
    # A truncated key (the END line cut off by a size limit) is still removed.
    assert Scrubber().scrub(f"key:\n{pem[:120]}") == f"key:\n{REDACTED}"
    # The same key inside JSON, newlines escaped.
    assert body[70:90] not in Scrubber().scrub(json.dumps({"k": pem}))


def test_ordinary_text_is_left_intact() -> None:
    assert Scrubber([SECRET, "hunter2"]).scrub(ORDINARY) == ORDINARY
    assert redact_patterns(ORDINARY) == ORDINARY


def test_short_secrets_only_in_exact_structured_fields() -> None:
    scrubber = Scrubber(["abc", "7"])

    assert scrubber.scrub("abc is in abcdef and 7 in 1970") == "abc is in abcdef and 7 in 1970"
    assert scrubber.scrub_obj({"pin": "7", "code": "abc", "note": "abcdef", "n": 7}) == {
        "pin": REDACTED, "code": REDACTED, "note": "abcdef", "n": REDACTED,
    }


def test_scrub_obj_walks_structures() -> None:
    scrubber = Scrubber([SECRET])
    obj = {
        "status": 200,
        "ok": True,
        "headers": [("Set-Cookie", "sid=1"), ("X-Echo", f"you sent {SECRET}")],
        "body": {"user": "sam", "password": "anything", "token": None, "items": [SECRET, 4111111111111111, 42]},
        "raw": f"p={quote(SECRET, safe='')}".encode(),
    }

    out = scrubber.scrub_obj(obj)

    assert out == {
        "status": 200,
        "ok": True,
        "headers": [("Set-Cookie", "sid=1"), ("X-Echo", f"you sent {REDACTED}")],
        "body": {"user": "sam", "password": REDACTED, "token": None, "items": [REDACTED, REDACTED, 42]},
        "raw": f"p={REDACTED}".encode(),
    }
    assert obj["body"]["password"] == "anything"  # the input is not modified


def test_with_secrets_adds_to_an_existing_scrubber() -> None:
    scrubber = Scrubber(["first-secret"]).with_secrets([SecretStr("second-secret")])

    assert scrubber.scrub("first-secret second-secret") == f"{REDACTED} {REDACTED}"
    assert "first-secret" not in repr(scrubber) and "second-secret" not in repr(scrubber)


def test_a_megabyte_with_fifty_secrets_loses_every_secret_and_nothing_else() -> None:
    """Its speed is measured by `python -m bench.scrub`."""
    rng = random.Random(1)
    known = [secrets.token_urlsafe(rng.randint(6, 40)) for _ in range(50)]
    words = ORDINARY.split()
    chunks = []
    while sum(map(len, chunks)) < 1_000_000:
        chunks.append(" ".join(rng.choice(words) for _ in range(50)) + " " + rng.choice(known) + "\n")
    text = "".join(chunks)
    scrubber = Scrubber(known)

    out = scrubber.scrub(text)

    assert not any(secret in out for secret in known)
    assert out.count(REDACTED) == len(chunks)
    assert out.replace(REDACTED, "") == "".join(chunk.rsplit(" ", 1)[0] + " \n" for chunk in chunks)


_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=60)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(secret=st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                      min_size=4, max_size=40),
       before=_TEXT, after=_TEXT, repeat=st.integers(1, 3))
def test_property_an_embedded_secret_never_survives(secret: str, before: str, after: str, repeat: int) -> None:
    text = before + (secret + after) * repeat

    out = Scrubber([secret]).scrub(text)

    # The marker itself may contain the secret's characters ("acted"); what must never
    # appear is the secret outside a marker.
    assert secret not in out.replace(REDACTED, "\x00")


@settings(max_examples=200, deadline=None)
@given(secret=st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=4, max_size=30),
       user=st.text(alphabet=st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=12))
def test_property_encoded_forms_never_survive(secret: str, user: str) -> None:
    scrubber = Scrubber([secret])
    encoded = [
        quote(secret, safe=""),
        base64.b64encode(secret.encode()).decode(),
        base64.b64encode(f"{user}:{secret}".encode()).decode(),
    ]

    for form in encoded:
        out = scrubber.scrub(f"value {form} end")
        assert form not in out
