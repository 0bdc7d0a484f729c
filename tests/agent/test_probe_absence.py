"""The pure core of watching for something that does not happen: when a reminder is due,
what the user reads, and what a reminder may say (it is the model's sentence, sent as-is)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from pydantic import ValidationError

from deputy.agent.probes import Probe, ProbeArgs, ProbeState, after_check, compare, reminder_message

FRIDAY = datetime(2026, 12, 4, 17, 0, tzinfo=timezone.utc).timestamp()
BEFORE = FRIDAY - 3 * 3600
ONE = "1 email(s) in INBOX match from sam, newest first:\n- INBOX/3 | Fri | Sam <sam@example.org> | Old | read | hi"
TWO = ("2 email(s) in INBOX match from sam, newest first:\n- INBOX/7 | Mon | Sam <sam@example.org> | Re: Lunch | "
       "unread | yes\n- INBOX/3 | Fri | Sam <sam@example.org> | Old | read | hi")


def by_friday(**extra: object) -> Probe:
    return Probe(connector="email", operation="search_email", arguments={"sender": "sam"}, remind_by=FRIDAY,
                 reminder="Sam hasn't replied yet.", **extra)


def each_check(**extra: object) -> Probe:
    return Probe(connector="email", operation="search_email", arguments={"sender": "sam"}, remind_each_check=True,
                 reminder="Sam hasn't replied yet.", **extra)


def test_a_deadline_reminder_comes_only_at_the_deadline_and_only_if_nothing_came() -> None:
    assert after_check(by_friday(), found_before=False, changed=False, now=BEFORE) == "quiet"
    assert after_check(by_friday(), found_before=False, changed=False, now=FRIDAY) == "remind_and_end"
    assert after_check(by_friday(), found_before=False, changed=False, now=FRIDAY + 600) == "remind_and_end"
    assert after_check(by_friday(), found_before=True, changed=False, now=FRIDAY) == "quiet", \
        "Sam already replied (and the watch kept going): no “hasn't replied” reminder"
    assert after_check(by_friday(), found_before=False, changed=True, now=BEFORE) == "news"
    assert after_check(by_friday(if_found="end_quietly"), found_before=False, changed=True, now=BEFORE) \
        == "end_quietly"


def test_an_each_check_reminder_repeats_until_something_comes() -> None:
    assert after_check(each_check(), found_before=False, changed=False, now=BEFORE) == "remind"
    assert after_check(each_check(), found_before=False, changed=True, now=BEFORE) == "news"
    assert after_check(each_check(), found_before=True, changed=False, now=BEFORE) == "quiet"


def test_a_plain_probe_never_reminds() -> None:
    plain = Probe(connector="email", operation="search_email", arguments={})
    assert after_check(plain, found_before=False, changed=False, now=FRIDAY + 10) == "quiet"
    assert after_check(plain, found_before=False, changed=True, now=FRIDAY + 10) == "news"


def test_a_new_item_marks_the_state_as_found_for_the_next_checks() -> None:
    probe = by_friday()
    base = compare(probe, ProbeState(), ONE)
    assert not base.changed and not base.state.found
    same = compare(probe, base.state, ONE)
    assert not same.state.found
    news = compare(probe, base.state, TWO)
    assert news.changed and news.state.found
    assert compare(probe, news.state, TWO).state.found, "found stays set"


def test_the_reminder_is_the_models_sentence_framed_with_the_time_it_was_checked() -> None:
    morning = datetime(2026, 12, 1, 8, 0, tzinfo=timezone.utc).timestamp()
    assert reminder_message(each_check(), morning, last=False) == "⏰ Sam hasn't replied yet. (checked 08:00 UTC)"
    assert reminder_message(by_friday(), FRIDAY, last=True) == \
        "⏰ Sam hasn't replied yet. (Nothing new by Fri 4 Dec 17:00 UTC, so I've stopped watching.)"


def probe_args(**fields: object) -> ProbeArgs:
    return ProbeArgs.model_validate({"tool": "search_email", "arguments": {"from": "sam@example.org"}, **fields})


def test_reminder_arguments_are_checked_with_reasons_a_model_can_act_on() -> None:
    ok = probe_args(remind_if_none_by="2026-12-04T17:00", reminder="  Sam hasn't\nreplied\u200b yet. ")
    assert ok.reminder == "Sam hasn't replied yet.", "line breaks and invisible characters are dropped"
    assert probe_args(remind_each_check=True, reminder="No reply from sam@example.org yet.").reminder \
        == "No reply from sam@example.org yet.", "an email address is not a link"
    cases = {
        "not both": {"remind_if_none_by": "2026-12-04T17:00", "remind_each_check": True, "reminder": "x"},
        "a reminder needs reminder": {"remind_each_check": True},
        "only sent with remind_if_none_by": {"reminder": "Sam hasn't replied."},
        "would never hear anything": {"if_found": "end_quietly"},
        "ISO date-time": {"remind_if_none_by": "Friday", "reminder": "x"},
        "must not contain a link": {"remind_each_check": True, "reminder": "Reply now at https://evil.example/x"},
        "at most 200": {"remind_each_check": True, "reminder": "a" * 201},
        "empty": {"remind_each_check": True, "reminder": " \n "},
    }
    for reason, fields in cases.items():
        with pytest.raises(ValidationError, match=reason):
            ProbeArgs.model_validate({"tool": "search_email", "arguments": {}, **fields})
    with pytest.raises(ValidationError, match="must not contain a link"):
        probe_args(remind_each_check=True, reminder="Pay at evil.com today")
