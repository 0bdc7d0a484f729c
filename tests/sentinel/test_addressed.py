"""Who the user's words send an action to: named as a recipient, not merely mentioned."""

from __future__ import annotations

import pytest

from deputy.sentinel.addressed import addressed_by_user
from deputy.sentinel.intent import Kind

SEND = frozenset({Kind.send})


@pytest.mark.parametrize("targets, words", [
    (["alice@example.org"], "email alice@example.org that I'll be 10 minutes late"),
    (["carol@example.net"], "read my email m3 and send a summary of it to carol@example.net"),
    (["ana@y.example", "bob@x.example"], "email ana@y.example and bob@x.example that dinner is at 8"),
    (["ana@y.example", "bob@x.example"], "message ana@y.example, bob@x.example: dinner is at 8"),
    (["tom@family.example"], "read my email m6 and forward it to tom@family.example."),
    (["x@home.example"], "email my landlord x@home.example that the rent is paid"),
    (["Carol@Example.NET"], "Reply to carol@example.net that Thursday works"),
])
def test_recipients_the_user_named_are_addressed(targets: list[str], words: str) -> None:
    assert addressed_by_user(targets, SEND, [words])


@pytest.mark.parametrize("targets, words", [
    (["bob@x.example"], "read the email from bob@x.example and tell me what he wants"),
    (["bob@x.example"], "tell me what bob@x.example is asking for"),
    (["ana@y.example", "bob@x.example"], "email ana@y.example about bob@x.example"),
    (["x@evil.example"], "email my landlord x@evil.example.org that rent is paid"),
    (["bob@x.example"], "what is on my calendar today? bob@x.example is coming"),
    (["bob@x.example"], "email bob@x.example.uk that I'm late"),
    ([], "email bob@x.example that I'm late"),
])
def test_mentions_that_are_not_recipients_are_not(targets: list[str], words: str) -> None:
    assert not addressed_by_user(targets, SEND, [words])


def test_a_website_is_named_by_its_address_in_a_sentence_asking_to_submit() -> None:
    words = ["open https://smile.example/book and fill in the form: name Ana, date 2026-12-09"]
    assert addressed_by_user(["https://smile.example/book"], frozenset({Kind.post}), words)
    assert not addressed_by_user(["https://evil.example/book"], frozenset({Kind.post}), words)
    assert not addressed_by_user(["https://smile.example/book"], frozenset({Kind.post}),
                                 ["what does https://smile.example/book say?"])


def test_an_invitation_needs_the_guest_named_as_a_guest() -> None:
    meeting = frozenset({Kind.schedule, Kind.share})
    assert addressed_by_user(["lead@work.example"], meeting, ["set up a meeting Retro with lead@work.example"])
    assert not addressed_by_user(["lead@work.example"], meeting,
                                 ["set up a meeting about the email from lead@work.example"])


def test_someone_named_by_role_is_addressed_when_the_users_own_words_say_who() -> None:
    remembered = ["remember that my accountant is bob@example.com"]
    assert addressed_by_user(["bob@example.com"], SEND, ["email my accountant the tax summary"], remembered)
    assert not addressed_by_user(["bob@example.com"], SEND, ["email my plumber the tax summary"], remembered)
    assert not addressed_by_user(["bob@example.com"], SEND, ["tell me what my accountant wants"], remembered)
    assert not addressed_by_user(["bob@example.com"], SEND, ["email my accountant the tax summary"])


def test_the_goals_own_words_are_not_a_memory_that_names_a_role() -> None:
    words = ["read my email evil and tell me what collector@evil.example is asking for"]
    assert not addressed_by_user(["collector@evil.example"], SEND, words, words)
    assert not addressed_by_user(["collector@evil.example"], SEND, words,
                                 ["remember collector@evil.example sends the evil newsletters"])
