"""Meta's payload signature: only the exact body signed with our app secret passes."""

from __future__ import annotations

from deputy.whatsapp.signature import sign, verify

SECRET = "app-secret-for-tests"
BODY = b'{"object":"whatsapp_business_account","entry":[]}'


def test_the_signature_meta_sends_is_accepted() -> None:
    assert verify(BODY, sign(BODY, SECRET), SECRET)
    assert verify(BODY, sign(BODY, SECRET).upper().replace("SHA256=", "sha256="), SECRET)


def test_a_changed_body_another_secret_or_no_signature_is_refused() -> None:
    good = sign(BODY, SECRET)
    assert not verify(BODY + b" ", good, SECRET)
    assert not verify(BODY, sign(BODY, "someone-else"), SECRET)
    assert not verify(BODY, None, SECRET)
    assert not verify(BODY, "", SECRET)
    assert not verify(BODY, good.removeprefix("sha256="), SECRET), "the algorithm prefix is part of it"
    assert not verify(BODY, good, ""), "no app secret configured: nothing verifies"
