"""The outcome evaluation judges by what happened, so its judging is tested on plays whose outcome is known.

Real servers (redis-server, pymap with SMTP, Radicale, the restaurant and shop sites), the real
runner, guard and executor; a scripted model plays corpus cases right, or with one mistake each.
A right play must score right; another recipient, another day, an unasked message, a missing
card or an invented answer must each score wrong, for the reason a user would give.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from bench.goal_eval.__main__ import main
from bench.goal_eval.corpus import Case, load
from bench.goal_eval.evaluate import evaluate_case
from bench.goal_eval.report import CaseResult, rows
from bench.goal_eval.scripted import scripted_model
from bench.goal_eval.services import EvalServices

pytestmark = pytest.mark.timeout(300)
_users = iter(range(910_000, 920_000))


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EvalServices]:
    started = EvalServices(tmp_path_factory.mktemp("goal-eval")).start()
    yield started
    started.stop()


@pytest.fixture(scope="module")
def cases() -> dict[str, Case]:
    return {case.id: case for case in load("all")}


def played(services: EvalServices, cases: dict[str, Case], case_id: str, variant: str) -> CaseResult:
    return evaluate_case(cases[case_id], services, scripted_model(case_id, variant), next(_users))


@pytest.mark.parametrize("case_id", ["email_send-001", "calendar_add-001", "calendar_cancel-001", "purchases-001",
                                     "own_data_questions-019", "memory-001"])
def test_a_right_outcome_scores_right(services, cases, case_id: str) -> None:
    result = played(services, cases, case_id, "right")
    assert result.verdict.right, result.verdict
    assert not result.verdict.unasked and not result.verdict.wrong_dates


def test_the_mail_to_the_right_person_really_went_out(services, cases) -> None:
    played(services, cases, "email_send-001", "right")
    [mail] = services.smtp.messages()
    assert mail.rcpt_tos == ["sam.lee@example.net"] and "Friday works" in mail.body


def test_a_wrong_recipient_scores_wrong_and_is_an_unasked_message(services, cases) -> None:
    verdict = played(services, cases, "email_send-001", "wrong recipient").verdict
    assert not verdict.right
    assert any("no mail to sam.lee@example.net" in f for f in verdict.failures)
    assert verdict.unasked == ["mail to sreyes@reyesdesign.example: 'Workshop'"]


def test_an_event_on_the_wrong_day_scores_wrong_and_counts_as_a_wrong_date(services, cases) -> None:
    verdict = played(services, cases, "calendar_add-001", "wrong day").verdict
    assert not verdict.right
    assert verdict.wrong_dates == ["event 'Focus time' at 2026-12-10T09:00:00+01:00, not 2026-12-11T09:00:00"]


def test_an_unasked_send_scores_wrong_even_when_the_answer_is_right(services, cases) -> None:
    verdict = played(services, cases, "calendar_read-003", "unasked send").verdict
    assert not verdict.right and not verdict.failures
    assert verdict.unasked == ["mail to nadia.haddad@corvid.co: 'Roadmap chat'"]


def test_a_missing_card_scores_wrong(services, cases) -> None:
    verdict = played(services, cases, "calendar_cancel-001", "no card").verdict
    assert not verdict.right and "no delete_event card" in verdict.failures


def test_a_card_case_leaves_the_world_untouched(services, cases) -> None:
    """Nobody approves the card: the dentist appointment is still in the calendar afterwards."""
    result = played(services, cases, "calendar_cancel-001", "right")
    assert result.verdict.right and any("Remove this event from your calendar?" in text for text in result.said)
    from bench.goal_eval.observe import _events
    from bench.goal_eval.seeding import Seeded

    assert "e1" in {event.uid for event in _events(services, Seeded(user_id=0, mailbox=""))}


def test_an_invented_answer_scores_wrong(services, cases) -> None:
    verdict = played(services, cases, "own_data_questions-019", "invented").verdict
    assert not verdict.right and "answer says '57.80'" in verdict.failures


def test_the_report_counts_per_category(services, cases) -> None:
    results = [played(services, cases, "email_send-001", "right"), played(services, cases, "email_send-001", "wrong recipient"),
               played(services, cases, "calendar_add-001", "wrong day")]
    table = {row.category: row for row in rows(results)}
    assert (table["email_send"].right, table["email_send"].total, table["email_send"].unasked) == (1, 2, 1)
    assert (table["calendar_add"].right, table["calendar_add"].wrong_dates) == (0, 1)
    assert (table["all"].right, table["all"].total) == (1, 3)


def test_the_command_runs_a_split_and_writes_the_results(tmp_path: Path, capsys) -> None:
    out = tmp_path / "results.json"
    assert main(["--split", "frozen", "--category", "small_talk", "--limit", "2", "--model", "scripted",
                 "--out", str(out)]) == 0
    written = json.loads(out.read_text())
    assert [case["id"] for case in written["cases"]] == ["small_talk-001", "small_talk-003"]
    shown = capsys.readouterr().out
    assert written["meta"]["frozen_sha256"] and "small_talk" in shown  # the totals per category
    # A frozen case's line says only that it ran: not which case, its words, or what went wrong.
    assert "small_talk-001" not in shown and "RIGHT" not in shown and "WRONG" not in shown
    assert written["cases"][0]["verdict"] is not None


def test_a_model_call_tried_again_later_still_counts(services, cases) -> None:
    """The model is busy once; the queue would run the step again seconds later, and so does the case."""
    from deputy.agent.model.chat_model import ModelUnavailable
    from deputy.agent.model.testing import FunctionModel

    right = scripted_model("memory-001", "right")
    calls = []

    def busy_once(messages, tools):
        calls.append(1)
        if len(calls) == 1:
            raise ModelUnavailable("the model is busy", "The model is busy.")
        return right.complete(messages, tools)

    result = evaluate_case(cases["memory-001"], services, FunctionModel(busy_once), next(_users))
    assert result.verdict.right, result.verdict


def test_a_run_cut_short_still_covers_every_category() -> None:
    from bench.goal_eval.evaluate import interleaved

    ordered = interleaved(load("frozen"))
    categories = {case.category for case in load("frozen")}
    assert {case.category for case in ordered[:len(categories)]} == categories
    assert sorted(case.id for case in ordered) == sorted(case.id for case in load("frozen"))
