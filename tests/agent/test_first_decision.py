"""The goal's first decision: the model names the kind of help first, and the first step is offered that kind's tools.

Driven with `FunctionModel` playing the model, so what is asked of it and what it is then offered can be read.
"""

from __future__ import annotations

import json

import pytest

from deputy.agent.model.first_decision import DECIDE_TOOL, KIND_NAMES, KINDS, decision_request, read_kind, tools_for_kind
from deputy.agent.goal_shapes import OWN_TOOLS
from deputy.agent.memory_tools import MEMORY_TOOLS
from deputy.agent.model.call_grammar import PREFILL, call_grammar
from deputy.agent.model.chat_model import ModelReply, TokenUsage
from deputy.agent.model.testing import FunctionModel, text
from deputy.agent.model.text_tools import TextToolsOptions
from deputy.agent.model.tool_aliases import own_name
from deputy.agent.model.text_tools_model import TextToolsChatModel
from deputy.agent.tools import INTERNAL_TOOLS
from deputy.agent.workspace_tools import WORKSPACE_TOOLS
from deputy.connectors.default import default_catalog

TOOLS = [*INTERNAL_TOOLS, *MEMORY_TOOLS, *WORKSPACE_TOOLS, *default_catalog().tool_schemas()]
SHOP = {"type": "function", "function": {"name": "shop.search_products", "description": "Search the shop's products",
                                         "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}
DECIDING = TextToolsOptions(max_tools=8, force_tool_call=True, decide_first=True)


def goal(words: str, memories: str = "") -> list[dict]:
    context = "Today is Monday." + (f"\n\nWhat you know about the user (use it; don't ask again):\n{memories}"
                                    if memories else "")
    return [{"role": "system", "content": "You are Deputy."}, {"role": "system", "content": context},
            {"role": "user", "content": words}]


def names(tools: list[dict]) -> list[str]:
    """Deputy's own names of the tools offered (the small model sees `reply` as `tell_user`)."""
    return [own_name(t["function"]["name"]) for t in tools]


def chose(kind: str, usage: int = 0) -> ModelReply:
    """What llama-server returns for a forced, constrained choice: the call's continuation after the opening."""
    return ModelReply(content=f'{DECIDE_TOOL}", "arguments": {{"kind": "{kind}"}}}}\n</tool_call>',
                      usage=TokenUsage(prompt_tokens=usage, completion_tokens=3))


def called(name: str, arguments: dict) -> ModelReply:
    return ModelReply(content=f'{name}", "arguments": {json.dumps(arguments)}}}\n</tool_call>',
                      usage=TokenUsage(prompt_tokens=100, completion_tokens=10))


def recorded(*replies: ModelReply) -> FunctionModel:
    queue = list(replies)
    return FunctionModel(lambda messages, tools: queue.pop(0))


def test_an_unforeseen_question_about_the_calendar_is_offered_only_calendar_reads() -> None:
    # "what have I got on tomorrow" matches no shape; before, keywords offered create_event too, and the
    # model created a "Meeting with John" for a question.
    inner = recorded(chose("calendar_read", usage=50), called("list_events", {"start": "tomorrow"}))
    reply = TextToolsChatModel(inner, DECIDING).complete(goal("anything going on for me tmrw?"), TOOLS)
    (decision_messages, decision_tools), (_, offered) = inner.calls
    assert names(decision_tools) == [DECIDE_TOOL], "the first request is only the choice of a kind"
    assert decision_messages[-1] == {"role": "assistant", "content": PREFILL}
    assert decision_messages[1]["content"].startswith("anything going on for me tmrw?")
    assert set(names(offered)) == {"list_events", "free_busy"}, "nothing that writes to the calendar"
    assert [c.name for c in reply.tool_calls] == ["list_events"]
    assert reply.usage.prompt_tokens == 150, "the choice's tokens count towards the goal"


@pytest.mark.parametrize("kind, expected", [
    ("answer", {"reply"}), ("ask", {"reply"}), ("mail_read", {"search_email", "read_email", "read_thread"}),
    ("mail_write", {"send_email"}), ("mail_act", {"search_email"}),
    ("calendar_add", {"create_event"}), ("calendar_change", {"list_events"}),
    ("memory", {"remember", "forget_memory", "recall"}), ("later", {"remind_me", "schedule_check"}),
])
def test_each_kind_offers_its_own_first_tools(kind: str, expected: set[str]) -> None:
    inner = recorded(chose(kind), ModelReply(content='reply", "arguments": {"text": "ok"}}\n</tool_call>'))
    TextToolsChatModel(inner, DECIDING).complete(goal("hmm, sort this out por favor"), TOOLS)
    assert set(names(inner.calls[1][1])) == expected


@pytest.mark.parametrize("words, offered", [
    ("drop a line to ann@example.org that the boiler is fixed", "send_email"),
    ("schreib Ann, dass der Boiler repariert ist", "send_email"),
    ("could you prepare something for Ann about the boiler? just a draft, I'll send it myself", "draft_email"),
    ("écris un brouillon pour Ann à propos de la chaudière", "draft_email"),
])
def test_writing_to_someone_sends_and_a_draft_only_when_asked_for(words: str, offered: str) -> None:
    inner = recorded(chose("mail_write"), ModelReply(content='reply", "arguments": {"text": "ok"}}\n</tool_call>'))
    TextToolsChatModel(inner, DECIDING).complete(goal(words), TOOLS)
    assert set(names(inner.calls[1][1])) == {offered}


@pytest.mark.parametrize("words, offered", [
    ("dentist next tuesday at 4:30pm", {"create_event"}),
    ("Zahnarzt am Dienstag um 16:30", {"create_event"}),
    ("lunch with Bo on friday at noon", {"create_event", "schedule_meeting"}),
    ("thursday 3pm, priya@example.org and me, 30 minutes on the budget", {"create_event", "schedule_meeting"}),
    ("réunion avec l'équipe lundi à 10h", {"create_event", "schedule_meeting"}),
])
def test_an_invitation_is_offered_only_when_the_user_brings_someone_in(words: str, offered: set[str]) -> None:
    inner = recorded(chose("calendar_add"), ModelReply(content='reply", "arguments": {"text": "ok"}}\n</tool_call>'))
    TextToolsChatModel(inner, DECIDING).complete(goal(words), TOOLS)
    assert set(names(inner.calls[1][1])) == offered


def answered(request: list[dict], tools: list[dict]) -> ModelReply:
    """A model that names a kind when asked for one, and otherwise answers the user."""
    if names(tools) == [DECIDE_TOOL]:
        return chose("mail_write")
    return ModelReply(content='reply", "arguments": {"text": "ok"}}\n</tool_call>')


def after_reading(words: str) -> list[dict]:
    read = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "read_email", "arguments": '{"message_id": "INBOX/2"}'}}]}
    email = ("Email INBOX/2\nFrom: Kowalski Plumbing <jobs@plumbing.example>\nTo: priya@example.co.uk\n"
             "Subject: Boiler service\n\nCan I come Tuesday morning?")
    return [*goal(words), read, {"role": "tool", "tool_call_id": "c1", "content": email}]


@pytest.mark.parametrize("words", [
    "answer the plumber's email and say tuesday morning works",
    "can you respond to the landlord, say yes to the 14th",
    "Antworte dem Klempner: Dienstag passt",
    "réponds à Paul que jeudi me va",
])
def test_an_email_the_user_asked_to_answer_is_replied_to_not_written_anew(words: str) -> None:
    # After reading the plumber's email the model wrote a new email to the address it was sent *to* (the
    # user's own): asked to answer, every step is offered finding the email and replying to its sender instead.
    first = FunctionModel(answered)
    TextToolsChatModel(first, DECIDING).complete(goal(words), TOOLS)
    later = FunctionModel(answered)
    TextToolsChatModel(later, DECIDING).complete(after_reading(words), TOOLS)
    for offered in (set(names(first.calls[-1][1])), set(names(later.calls[-1][1]))):
        assert "send_email" not in offered and {"search_email", "reply_email"} <= offered


@pytest.mark.parametrize("words, writes", [
    ("tell ann@example.org I'll answer her questions tomorrow", "send_email"),   # an address: a new email
    ("let Ann know I'll reply on Monday", "send_email"),                # news for Ann, not an email to answer
    ("draft a reply to the landlord", "draft_email"),                   # a draft was asked for
])
def test_a_mention_of_answering_is_not_a_request_to_answer(words: str, writes: str) -> None:
    model = FunctionModel(answered)
    TextToolsChatModel(model, DECIDING).complete(after_reading(words), TOOLS)
    assert writes in names(model.calls[-1][1])


def test_a_question_about_the_inbox_is_offered_no_answer_before_reading() -> None:
    # "did Sam reply?" answered without reading invented a reply; a read kind offers no `reply` first.
    inner = recorded(chose("mail_read"), called("search_email", {"query": "Sam"}))
    TextToolsChatModel(inner, DECIDING).complete(goal("any word back from sam??"), TOOLS)
    assert "reply" not in names(inner.calls[1][1])


def test_a_service_kind_offers_the_services_the_user_connected_that_fit() -> None:
    inner = recorded(chose("service"), called("shop.search_products", {"q": "batteries"}))
    TextToolsChatModel(inner, DECIDING).complete(goal("need more batteries from the shop"), [*TOOLS, SHOP])
    assert set(names(inner.calls[1][1])) == {"search_web", "open_page", "shop.search_products"}


def test_a_choice_that_names_no_kind_leaves_the_usual_offer() -> None:
    inner = recorded(ModelReply(content="garbage"), called("reply", {"text": "Which one?"}))
    TextToolsChatModel(inner, DECIDING).complete(goal("anything going on for me tmrw?"), TOOLS)
    usual = TextToolsChatModel(recorded(called("reply", {"text": "x"})),
                               TextToolsOptions(max_tools=8, force_tool_call=True))
    usual._inner.calls = []  # type: ignore[attr-defined]
    usual.complete(goal("anything going on for me tmrw?"), TOOLS)
    assert names(inner.calls[1][1]) == names(usual._inner.calls[0][1])  # type: ignore[attr-defined]


def test_no_choice_for_a_shape_code_knows_nor_after_the_first_call_nor_when_switched_off() -> None:
    shaped = recorded(called("send_email", {"to": ["ann@example.org"], "subject": "x", "body": "late"}))
    TextToolsChatModel(shaped, DECIDING).complete(goal("email ann@example.org that I'm late"), TOOLS)
    assert len(shaped.calls) == 1 and "send_email" in names(shaped.calls[0][1])
    later = [*goal("anything on tmrw?"), {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "list_events", "arguments": "{}"}}]},
             {"role": "tool", "tool_call_id": "c1", "content": "[]"}]
    second = recorded(called("reply", {"text": "Nothing."}))
    TextToolsChatModel(second, DECIDING).complete(later, TOOLS)
    assert len(second.calls) == 1
    off = recorded(called("reply", {"text": "x"}))
    TextToolsChatModel(off, TextToolsOptions(max_tools=8, force_tool_call=True)).complete(goal("anything tmrw?"), TOOLS)
    assert len(off.calls) == 1


def test_the_choice_sees_what_deputy_knows_about_the_user() -> None:
    # "email my sister" is no question to the user when her address is remembered.
    inner = recorded(chose("mail_write"), called("send_email", {"to": ["jo@example.org"], "subject": "x", "body": "y"}))
    TextToolsChatModel(inner, DECIDING).complete(goal("pls write to my sis i'll be late",
                                                      memories="- My sister is Jo, jo@example.org"), TOOLS)
    assert "jo@example.org" in inner.calls[0][0][1]["content"]


def test_reading_a_choice() -> None:
    assert read_kind(DECIDE_TOOL, '{"kind": "memory"}').name == "memory"
    assert read_kind(DECIDE_TOOL, '{"kind": "move_or_cancel_event"}').name == "calendar_change"
    assert read_kind(DECIDE_TOOL, '{"kind": "launch_rockets"}') is None
    assert read_kind("send_email", '{"kind": "memory"}') is None
    assert read_kind(DECIDE_TOOL, "not json") is None


def test_every_kind_names_deputys_own_tools_and_the_choice_lists_every_kind() -> None:
    catalogue = set(names(TOOLS))
    for kind in KINDS:
        assert kind.tools <= OWN_TOOLS and kind.tools <= catalogue, kind.name
        assert tools_for_kind(kind, TOOLS, OWN_TOOLS, []), kind.name
    messages, tools = decision_request("hola")
    for kind in KINDS:
        assert f"- {kind.label}:" in messages[0]["content"]  # the model names kinds by their self-explaining labels
    assert tools[0]["function"]["parameters"]["properties"]["kind"]["enum"] == [kind.label for kind in KINDS]
    assert len(set(KIND_NAMES)) == len(KINDS)


def test_a_required_argument_comes_first_in_the_grammar_and_cannot_be_left_out() -> None:
    messages, tools = decision_request("hola")
    grammar = call_grammar(tools)
    object_rule = [line for line in grammar.splitlines() if line.startswith("r") and '"{"' in line][-1]
    # The object starts with the kind, with no way round it: not optional, not an empty object.
    assert '"{" ws "\\"kind\\"" ws ":" ws' in object_rule
    assert ")?" not in object_rule


def test_the_kind_chosen_first_shapes_the_later_steps_of_the_goal(redis) -> None:
    # "fwd the brightlane invoice to my accountant": the first step finds it; the next is offered
    # forwarding (not only writing a new email), and the kind itself never reaches the model.
    from deputy.testing.inline import InlineDeputy
    from deputy.core.records.effects import OperationResult

    found = "1 email(s) in INBOX match, newest first:\n- INBOX/3 | Mon | billing@brightlane.example | Invoice 4471 | read | Due"
    replies = [chose("mail_act"), called("search_email", {"text": "brightlane"}),
               called("reply", {"text": "Which address is your accountant's?", "expects_answer": True})]
    model = FunctionModel(lambda messages, tools: replies.pop(0))
    rig = InlineDeputy(redis, TextToolsChatModel(model, DECIDING), default_catalog(),
                       {"email.search_email": lambda action, key: OperationResult(summary=found)})
    goal = rig.start(7, "fwd the brightlane invoice to my accountant")
    later_offer = names(model.calls[2][1])
    assert {"forward_email", "reply_email", "read_email"} <= set(later_offer) and len(later_offer) <= 8
    assert all("kind" not in message for call in model.calls for message in call[0])
    assert rig.goal(goal.id).messages[1]["kind"] == "mail_act"


def test_the_choice_is_told_which_services_the_user_connected() -> None:
    inner = recorded(chose("service"), called("shop.search_products", {"q": "batteries"}))
    TextToolsChatModel(inner, DECIDING).complete(goal("I need another pack of those AA batteries"), [*TOOLS, SHOP])
    asked = inner.calls[0][0][1]["content"]
    assert asked.startswith("I need another pack of those AA batteries")
    assert "(Services the user connected (buy_something_or_book_a_table): shop)" in asked
    plain = recorded(chose("answer"), called("reply", {"text": "hi"}))
    TextToolsChatModel(plain, DECIDING).complete(goal("what's the capital of Peru?"), TOOLS)
    assert "Services" not in plain.calls[0][0][1]["content"], "no services connected: nothing said"


def test_a_service_goal_is_offered_what_the_user_connected_before_the_open_web() -> None:
    # "get me the sony headphones" with a shop connected: the shop's own search first, whether or not
    # the goal's words name the shop; the web stays on offer after it.
    service = next(kind for kind in KINDS if kind.name == "service")
    orders = {"type": "function", "function": {"name": "shop.list_orders", "description": "The user's orders",
                                               "parameters": {"type": "object", "properties": {}}}}
    unnamed = names(tools_for_kind(service, [*TOOLS, SHOP, orders], OWN_TOOLS, []))
    assert unnamed[:2] == ["shop.search_products", "shop.list_orders"]
    assert {"search_web", "open_page"} <= set(unnamed[2:])
    fitting = names(tools_for_kind(service, [*TOOLS, SHOP, orders], OWN_TOOLS, [orders]))
    assert fitting[0] == "shop.list_orders" and "shop.search_products" not in fitting
    # With nothing connected, the web is the service.
    assert set(names(tools_for_kind(service, TOOLS, OWN_TOOLS, []))) == {"search_web", "open_page"}
    # Other kinds are not offered the user's services unasked.
    mail = next(kind for kind in KINDS if kind.name == "mail_read")
    assert "shop.search_products" not in names(tools_for_kind(mail, [*TOOLS, SHOP], OWN_TOOLS, []))
