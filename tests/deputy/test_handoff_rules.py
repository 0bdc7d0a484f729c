"""Which replies count as the code a page asked for, and what the user is told."""

from __future__ import annotations

from deputy.core.records.handoff import CodeField, HandOff, handoff_text, looks_like_code, normalised_code


def _handoff(reason: str = "two_factor", entry: bool = True, retry: bool = False) -> HandOff:
    return HandOff(id="h_1", user_id=1, chat_id=1, goal_id="g", reason=reason, url="https://shop.example/verify",
                   site="shop.example", entry=CodeField(form=1, field="otp", label="Code") if entry else None,
                   retry=retry, created_at=0, expires_at=10)


def test_only_a_short_token_is_taken_as_the_code() -> None:
    code = _handoff()
    assert looks_like_code("482913", code) and looks_like_code(" 482 913 ", code) and looks_like_code("G-48291", code)
    assert not looks_like_code("skip it", code) and not looks_like_code("done", code)
    assert not looks_like_code("abcdef", code)  # a one-time code has digits; words go to the goal
    assert not looks_like_code("482913", _handoff(entry=False))  # nowhere to type it: it is a normal answer
    assert not looks_like_code("/cancel", code) and not looks_like_code("1" * 17, code)
    captcha = _handoff("captcha")
    assert looks_like_code("XK7PQ", captcha) and not looks_like_code("ok", captcha)
    assert normalised_code(" 482 913 ") == "482913" and normalised_code("xk7pq") == "xk7pq"


def test_the_question_names_the_page_and_how_to_answer() -> None:
    text = handoff_text(_handoff())
    assert "shop.example is asking for a verification code" in text and "https://shop.example/verify" in text
    assert "Reply with just the code" in text and "never reaches the AI model" in text
    assert handoff_text(_handoff(retry=True)).startswith("The page didn't accept that.")
    widget = handoff_text(_handoff("captcha", entry=False))
    assert "please do it yourself at https://shop.example/verify" in widget
    assert "/connect web" in handoff_text(_handoff("login", entry=False))
