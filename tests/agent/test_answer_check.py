"""An answer about the user's data reaches them only when what was read backs it.

The runner and executor run in one process on real Redis (InlineDeputy); the mail service
returns a real-looking receipt; the model is a function that answers as a small model might.
"""

from __future__ import annotations

from typing import Any

import pytest

from redis import Redis

from deputy.agent.goals import GoalStatus
from deputy.agent.model.testing import FunctionModel, message_text, text, tool_call
from deputy.connectors.default import default_catalog
from deputy.core.records.actions import Action
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.records.effects import OperationResult
from deputy.testing.inline import InlineDeputy

USER = 7
RECEIPT = ("1 email(s) in INBOX match, newest first:\n- INBOX/4 | Sat 28 Nov | orders@kettleshop.example | "
           "Your order A-10442 | read | Thanks for your order A-10442. Kettle 2L. Total: €57,80 incl. VAT.")
QUESTION = "how much was my order from the kettle shop?"


def mail(action: Action, key: str) -> OperationResult:
    return OperationResult(summary=RECEIPT, untrusted_origin="emails from orders@kettleshop.example")


def deputy(redis: Redis, answers: list[Any]) -> tuple[InlineDeputy, list[list[dict[str, Any]]]]:
    seen: list[list[dict[str, Any]]] = []

    def model(messages: list[dict[str, Any]], tools: list[Any]):
        seen.append(messages)
        if not any(m.get("role") == "tool" for m in messages):
            return tool_call("search_email", text="kettle")
        return answers.pop(0)

    return InlineDeputy(redis, FunctionModel(model), default_catalog(), {"email.search_email": mail},
                        clock=ManualClock(1_765_000_000.0)), seen


def test_a_backed_answer_is_delivered_as_the_model_wrote_it(redis: Redis) -> None:
    rig, _ = deputy(redis, [text("Your order A-10442 came to €57,80.")])
    goal = rig.start(USER, QUESTION)
    assert rig.goal(goal.id).status is GoalStatus.done
    assert rig.sent()[-1] == "Your order A-10442 came to €57,80."


def test_an_invented_order_goes_back_to_the_model_once_and_its_corrected_answer_is_delivered(redis: Redis) -> None:
    rig, seen = deputy(redis, [text("Your order #88213 cost $64.20."), text("It was €57,80, order A-10442.")])
    rig.start(USER, QUESTION)
    assert rig.sent()[-1] == "It was €57,80, order A-10442."
    assert not any("88213" in sent for sent in rig.sent()), "the invented answer never reached the user"
    assert "appear in nothing you read" in message_text(seen[-1][-1])


def test_an_answer_that_stays_unbacked_is_replaced_by_where_deputy_looked(redis: Redis) -> None:
    rig, _ = deputy(redis, [text("Your order #88213 cost $64.20."), text("Order 88213, $64.20, paid on Monday.")])
    goal = rig.start(USER, QUESTION)
    assert rig.sent()[-1] == "I couldn't find that in your mail, so I won't guess."
    assert not any("64.20" in sent for sent in rig.sent())
    assert rig.goal(goal.id).status is GoalStatus.done


def test_the_reply_tool_is_checked_as_well(redis: Redis) -> None:
    rig, _ = deputy(redis, [tool_call("reply", text="Sam from Accounting says €99,00."),
                            tool_call("reply", text="The receipt says €57,80.")])
    rig.start(USER, QUESTION)
    assert rig.sent()[-1] == "The receipt says €57,80."
    assert not any("99" in sent for sent in rig.sent())


def test_giving_up_after_an_error_that_names_the_fix_is_sent_back_once_and_the_fixed_call_runs(redis: Redis) -> None:
    from deputy.core.records.effects import ConnectorError

    read: list[str] = []

    def read_email(action: Action, key: str) -> OperationResult:
        if action.arguments["message_id"] != "INBOX/4":
            raise ConnectorError("There is no email INBOX/99; the ids search_email shows look like INBOX/4.")
        read.append(action.arguments["message_id"])
        return OperationResult(summary=RECEIPT, untrusted_origin="an email from orders@kettleshop.example")

    def model(messages: list[dict[str, Any]], tools: list[Any]):
        results = [message_text(m) for m in messages if m.get("role") == "tool"]
        if not results:
            return tool_call("read_email", message_id="INBOX/99")
        if len(results) == 1 and "call failed" not in message_text(messages[-1]):
            return text("Sorry, please try again with the correct arguments.")
        if len(results) == 1:
            return tool_call("read_email", message_id="INBOX/4")
        return text("Your order A-10442 came to €57,80.")

    rig = InlineDeputy(redis, FunctionModel(model), default_catalog(),
                       {"email.read_email": read_email}, clock=ManualClock(1_765_000_000.0))
    rig.start(USER, QUESTION)
    assert read == ["INBOX/4"], "the call was made again with the id the error pointed to"
    assert rig.sent() == ["Your order A-10442 came to €57,80."], "the user never saw the give-up"


def test_a_question_back_after_an_error_reaches_the_user_at_once(redis: Redis) -> None:
    from deputy.core.records.effects import ConnectorError

    def read_email(action: Action, key: str) -> OperationResult:
        raise ConnectorError("There is no email INBOX/99.")

    def model(messages: list[dict[str, Any]], tools: list[Any]):
        if not any(m.get("role") == "tool" for m in messages):
            return tool_call("read_email", message_id="INBOX/99")
        return text("I couldn't open that email. Which shop was the order from?")

    rig = InlineDeputy(redis, FunctionModel(model), default_catalog(),
                       {"email.read_email": read_email}, clock=ManualClock(1_765_000_000.0))
    rig.start(USER, QUESTION)
    assert rig.sent() == ["I couldn't open that email. Which shop was the order from?"]


def test_the_models_own_query_echoed_back_by_an_empty_search_is_not_something_read(redis: Redis) -> None:
    # "No emails match your search (from 'John Doe')" quotes what the model asked for; an answer
    # naming John Doe rests on nothing the mailbox said.
    def empty(action: Action, key: str) -> OperationResult:
        return OperationResult(summary="No emails in INBOX match your search (from 'John Doe').")

    def model(messages: list[dict[str, Any]], tools: list[Any]):
        if not any(m.get("role") == "tool" for m in messages):
            return tool_call("search_email", **{"from": "John Doe"})
        return text("John Doe wrote to say the meeting moved.")

    rig = InlineDeputy(redis, FunctionModel(model), default_catalog(), {"email.search_email": empty},
                       clock=ManualClock(1_765_000_000.0))
    rig.start(USER, "any news in my mail?")
    assert not any("John Doe" in sent for sent in rig.sent())
    assert "couldn't find" in rig.sent()[-1]


def test_giving_up_after_the_models_own_code_failed_is_sent_back_once_and_the_fixed_code_runs(redis: Redis) -> None:
    from deputy.workspace.confined_run import RunLimits
    from deputy.workspace.files import Workspace

    workspace = Workspace(redis)
    workspace.write(USER, "amounts.csv", b"amount\n5\n7\n4\n", made_by="you")
    runs: list[str] = []

    def model(messages: list[dict[str, Any]], tools: list[Any]):
        results = [message_text(m) for m in messages if m.get("role") == "tool"]
        if not results:
            runs.append("broken")
            return tool_call("run_python", code="import csv\nprint(sum(int(r['amount']) for r in csv.reader(open("
                                                 "'amounts.csv'))))")  # the header row is not a number: ValueError
        if len(results) == 1 and "Your code failed" not in message_text(messages[-1]):
            return text("Sorry, the code to add them up failed.")
        if len(results) == 1:
            runs.append("fixed")
            return tool_call("run_python",
                             code="import csv\nprint(sum(int(r['amount']) for r in csv.DictReader(open('amounts.csv'))))")
        return text(f"The total is {results[-1].split('Output:')[1].split()[0]}.")

    rig = InlineDeputy(redis, FunctionModel(model), default_catalog(), {}, clock=ManualClock(1_765_000_000.0),
                       workspace=workspace, code_limits=RunLimits(cpu_seconds=5, wall_seconds=15))
    rig.start(USER, "add up the amounts in amounts.csv")
    assert runs == ["broken", "fixed"], "the code was run again after Deputy's note"
    assert rig.sent() == ["The total is 16."], "the user never saw the give-up, only the right total"


def test_code_stopped_by_its_limits_is_not_sent_back_to_run_again(redis: Redis) -> None:
    from deputy.workspace.confined_run import RunLimits
    from deputy.workspace.files import Workspace

    runs: list[int] = []

    def model(messages: list[dict[str, Any]], tools: list[Any]):
        if not any(m.get("role") == "tool" for m in messages):
            runs.append(1)
            return tool_call("run_python", code="while True:\n    pass\n")
        return text("That calculation took too long, so I stopped it.")

    rig = InlineDeputy(redis, FunctionModel(model), default_catalog(), {}, clock=ManualClock(1_765_000_000.0),
                       workspace=Workspace(redis), code_limits=RunLimits(cpu_seconds=1, wall_seconds=5))
    rig.start(USER, "count forever")
    assert runs == [1]
    assert rig.sent() == ["That calculation took too long, so I stopped it."]


def _calendar_rig(redis: Redis, model: Any, created: list[dict[str, Any]]) -> InlineDeputy:
    def create_event(action: Action, key: str) -> OperationResult:
        created.append(dict(action.arguments))
        return OperationResult(summary="Created the event ev-9.")

    return InlineDeputy(redis, FunctionModel(model), default_catalog(), {"calendar.create_event": create_event},
                        clock=ManualClock(1_765_000_000.0))


def test_asking_leave_in_words_is_sent_back_once_and_the_model_acts_instead(redis: Redis) -> None:
    created: list[dict[str, Any]] = []

    def model(messages: list[dict[str, Any]], tools: list[Any]):
        last = message_text(messages[-1])
        if "permission in text" in last:
            return tool_call("create_event", title="Dentist", start="monday 3pm")
        if any(m.get("role") == "tool" for m in messages):
            return text("Done: the dentist is on your calendar for Monday at 3pm.")
        return text("I can add 'Dentist' on Monday at 3pm. Shall I go ahead?")

    rig = _calendar_rig(redis, model, created)
    rig.start(USER, "dentist monday 3pm")
    assert [event["title"] for event in created] == ["Dentist"]
    assert not any("Shall I" in sent for sent in rig.sent()), "the user was not asked for leave in words"


@pytest.mark.parametrize("question", [
    "Which restaurant would you like me to book, and for what time?",
    "Wann soll der Termin sein?",
])
def test_a_question_for_a_missing_detail_reaches_the_user_at_once(redis: Redis, question: str) -> None:
    rig = _calendar_rig(redis, lambda messages, tools: text(question), [])
    goal = rig.start(USER, "book a table for tonight")
    assert rig.sent() == [question]
    assert rig.goal(goal.id).status is GoalStatus.waiting_user


# -- an answer about the user's own data from a goal that read none of it ------------------------------------


def unread_deputy(redis: Redis, answers: list[Any]) -> tuple[InlineDeputy, list[list[dict[str, Any]]]]:
    """The model answers at once, reading nothing, unless the note sends it to read first."""
    seen: list[list[dict[str, Any]]] = []

    def model(messages: list[dict[str, Any]], tools: list[Any]):
        seen.append(messages)
        told_to_read = "you have read none of them" in message_text(messages[-1])
        if told_to_read and answers and answers[0] == "search":
            answers.pop(0)
            return tool_call("search_email", text="sam")
        return answers.pop(0)

    sam = ("1 email(s) in INBOX match, newest first:\n- INBOX/9 | Sun 6 Dec | sam@example.org | Dinner? | unread | "
           "Are you free for dinner on Friday?")
    return InlineDeputy(redis, FunctionModel(model), default_catalog(),
                        {"email.search_email": lambda action, key: OperationResult(summary=sam)},
                        clock=ManualClock(1_765_000_000.0)), seen


def test_no_news_said_without_reading_the_mail_sends_the_model_to_read_it(redis: Redis) -> None:
    rig, seen = unread_deputy(redis, [text("No new emails from Sam."), "search",
                                      text("Sam wrote: “Are you free for dinner on Friday?”")])
    rig.start(USER, "anything new from sam?")
    assert rig.sent()[-1] == "Sam wrote: “Are you free for dinner on Friday?”"
    assert not any("No new emails" in sent for sent in rig.sent()), "the unread answer never reached the user"


def test_a_model_that_insists_without_reading_is_replaced_by_where_deputy_did_not_look(redis: Redis) -> None:
    rig, _ = unread_deputy(redis, [text("Sam replied to your email. I'll let you know when we meet."),
                                   text("Sam replied, yes.")])
    rig.start(USER, "did sam reply?")
    assert rig.sent()[-1] == "I didn't get to check your mail for this, so I won't guess. Ask me again and I'll look."


@pytest.mark.parametrize("answer", [
    "Paris is the capital of France.", "February 2028 has 29 days.", "There is no way to unsend an email in Gmail.",
    "There were events that led to the war.", "If you have any questions, just ask!", "Hay 7 días en una semana.",
    "Guten Morgen! Wie kann ich helfen?",
])
def test_general_knowledge_from_a_goal_that_read_nothing_is_delivered(redis: Redis, answer: str) -> None:
    rig, _ = unread_deputy(redis, [text(answer)])
    rig.start(USER, "a question")
    assert rig.sent()[-1] == answer


@pytest.mark.parametrize("answer", ["You have no new emails.", "No tienes citas mañana.", "Du hast keine neuen E-Mails.",
                                    "Tu n'as pas de nouveaux messages.", "Your calendar is free tomorrow.",
                                    "Non hai appuntamenti oggi.", "Je hebt geen nieuwe berichten."])
def test_own_data_said_without_a_read_is_a_claim_in_every_language(answer: str) -> None:
    from deputy.agent.grounding import OWN_DATA, Evidence, unbacked_claims

    assert [c.kind for c in unbacked_claims(answer, Evidence(user_words=["?"]))] == [OWN_DATA]
    assert OWN_DATA not in [c.kind for c in unbacked_claims(answer, Evidence(user_words=["?"], looked_up=True))]
    remembered = Evidence(user_words=["?"], known=["The user's appointment with the dentist is on Friday."])
    assert unbacked_claims("You have an appointment with the dentist on Friday.", remembered) == []


def _searching_twice(answers: list[Any]):
    """A model that makes the same search twice (Deputy answers the second with its note), then answers."""
    seen: list[list[dict[str, Any]]] = []

    def model(messages: list[dict[str, Any]], tools: list[Any]):
        seen.append(messages)
        if sum(m.get("role") == "tool" for m in messages) < 2:
            return tool_call("search_email", text="kettle")
        return answers.pop(0)

    return FunctionModel(model), seen


def test_deputys_own_note_handed_on_as_the_answer_goes_back_and_the_real_answer_reaches_the_user(redis: Redis) -> None:
    note = ("You made this same call already and its result is above; nothing has changed since, so it was not run "
            "again. Use that result now: answer the user, or take the next step.")
    model, seen = _searching_twice([text(note), text("Your order A-10442 came to €57,80.")])
    rig = InlineDeputy(redis, model, default_catalog(), {"email.search_email": mail}, clock=ManualClock(1_765_000_000.0))
    rig.start(USER, QUESTION)
    assert rig.sent()[-1] == "Your order A-10442 came to €57,80."
    assert not any("same call already" in sent for sent in rig.sent()), "Deputy's note never reached the user"
    assert "repeats one of Deputy's notes" in message_text(seen[-1][-1])


def test_a_model_that_keeps_handing_on_deputys_note_is_replaced_by_where_deputy_looked(redis: Redis) -> None:
    # Two searches of the mail are one place looked in: the mail, not "the pages I read" as well.
    note = "You made this same call already and its result is above; nothing has changed since."
    # The second time it hands on Deputy's answer to the first ("Not delivered. That answer repeats…").
    sent_back = "Not delivered. That answer repeats one of Deputy's notes to you; the user never sees those notes."
    model, _ = _searching_twice([text(note), text(sent_back)])
    rig = InlineDeputy(redis, model, default_catalog(), {"email.search_email": mail}, clock=ManualClock(1_765_000_000.0))
    rig.start(USER, QUESTION)
    assert rig.sent()[-1] == "I couldn't find that in your mail, so I won't guess."
    assert not any("same call already" in sent or "Not delivered" in sent for sent in rig.sent())
