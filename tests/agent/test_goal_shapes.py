"""Goal shapes: which tools an everyday goal's first step may use, read from the user's words."""

from __future__ import annotations

import pytest

from deputy.agent.goal_shapes import first_clause, first_step_tools


@pytest.mark.parametrize(
    ("goal", "tools"),
    [
        # Writing to someone: the email, never an answer to the user.
        ("email dan@example.com: the boiler is fixed", {"send_email"}),
        ("Please email jo@example.org and tell her the party starts at 8", {"send_email"}),
        ("Text Anna that I'm on my way", {"send_email"}),
        ("Let my boss know I'll be late tomorrow", {"send_email"}),
        ("Ask Priya if she wants to join us for lunch on Friday", {"send_email"}),
        ("Send Bob the link to the shared folder", {"send_email"}),
        ("Shoot a quick note to ops@example.com that the backup finished", {"send_email"}),
        ("Draft a reply to tom@example.com declining the offer, don't send it", {"draft_email"}),
        # ... and with nothing to say, the model may ask what to write.
        ("Can you email bob@example.com?", {"send_email", "reply"}),
        # Looking in the mailbox comes before acting on what is there.
        ("Who emailed me today?", {"search_email"}),
        ("Forward the invoice from acme to accounting@example.com", {"search_email"}),
        ("Reply to Sarah's email and say yes", {"search_email"}),
        ("Is there an email from the bank this week?", {"search_email"}),
        ("Archive the newsletter from Medium", {"search_email"}),
        ("Summarise my inbox", {"search_email"}),
        # The calendar: look, change, add.
        ("What's my schedule tomorrow?", {"list_events", "free_busy"}),
        ("Do I have anything on Friday?", {"list_events", "free_busy"}),
        ("What time is my dentist appointment?", {"list_events", "free_busy"}),
        ("Find a free hour for a call with Ben next week", {"list_events", "free_busy"}),
        ("Reschedule my call with Ben to Thursday", {"list_events"}),
        ("Delete the 'gym' event on Saturday", {"list_events"}),
        ("Set up a weekly 1:1 with maria@example.com on Mondays at 10", {"create_event", "schedule_meeting"}),
        ("Invite tom@example.com to a call on Monday at 3pm", {"create_event", "schedule_meeting"}),
        ("pencil in a haircut on Thursday at 5pm", {"create_event"}),
        ("Put lunch with Sam on my calendar on Friday at noon", {"create_event"}),
        # Pages and the web.
        ("Go to https://shop.example and buy the blue mug", {"open_page"}),
        ("What does example.com say about pricing?", {"open_page"}),
        ("grab a screenshot of www.example.org", {"screenshot"}),
        ("google the best pizza in Naples", {"search_web"}),
        # Memory.
        ("Note that my passport expires in June", {"remember"}),
        ("Forget my address", {"forget_memory"}),
        ("What do you know about me?", {"recall"}),
        # Checks that repeat or wait for a change.
        ("Watch the price of the Sony headphones and tell me when it goes below 200", {"schedule_check"}),
        ("Let me know when Bob replies", {"schedule_check"}),
        ("Every Monday morning send me a summary of my unread email", {"schedule_check"}),
        # Reminders: the user's words for the time, resolved by code; one that waits on something is a watch.
        ("Remind me to call mum at 5pm", {"remind_me"}),
        ("every monday at 9am remind me to submit my timesheet", {"remind_me"}),
    ],
)
def test_a_goal_of_a_known_shape_starts_with_its_tools(goal: str, tools: set[str]) -> None:
    assert first_step_tools(goal) == tools


@pytest.mark.parametrize(
    "goal",
    [
        "Thank you!",
        "Tell me a joke",
        "Write a haiku about autumn",
        "What's the weather tomorrow?",
        "Tell me when the Louvre opens",
        "what's on for dinner if I'm out of eggs?",
        "Plan a weekend trip to Vienna",
        "remember to buy milk",
        "How long does it take to boil an egg?",
        "Translate this into French: see you soon",
        "What is the capital of France?",
        "Remind me on Friday if Sam hasn't replied",  # waits on something: not a plain reminder
    ],
)
def test_anything_else_keeps_the_usual_choice_of_tools(goal: str) -> None:
    # Questions, chat and goals of unusual shape: narrowing them could only take the right tool away.
    assert first_step_tools(goal) is None


def test_a_goal_of_several_steps_is_read_by_its_first() -> None:
    assert first_clause("Please look at my calendar for Friday and email the agenda to kim@example.com") == (
        "look at my calendar for Friday")
    assert first_step_tools("Look at my calendar for Friday and email the agenda to kim@example.com") == {
        "list_events", "free_busy"}
    assert first_step_tools("Find the email from ivan@example.com and forward it to judy@example.org") == {
        "search_email"}


def test_the_list_of_deputys_own_tools_is_the_catalogs() -> None:
    from deputy.agent.goal_shapes import OWN_TOOLS
    from deputy.agent.memory_tools import MEMORY_TOOLS
    from deputy.agent.tools import INTERNAL_TOOLS
    from deputy.agent.workspace_tools import WORKSPACE_TOOLS
    from deputy.connectors.default import default_catalog

    tools = [*INTERNAL_TOOLS, *MEMORY_TOOLS, *WORKSPACE_TOOLS, *default_catalog().tool_schemas()]
    assert OWN_TOOLS == {tool["function"]["name"] for tool in tools}


def test_a_service_the_user_connected_stays_on_offer_beside_the_shape() -> None:
    from deputy.agent.tool_selection import select_tools

    own = [{"type": "function", "function": {"name": name, "description": "", "parameters": {}}}
           for name in ("reply", "update_plan", "remember", "search_web", "open_page", "create_event", "send_email",
                        "search_email", "list_events")]
    theirs = {"type": "function", "function": {"name": "luigis.create_booking",
                                               "description": "Book a table at Luigi's.", "parameters": {}}}
    chosen = [t["function"]["name"] for t in select_tools([*own, theirs], [
        {"role": "user", "content": "Book a table at Luigi's for four tomorrow at 7"}], 8)]
    assert chosen == ["search_web", "open_page", "luigis.create_booking"]
    # With no place named, Deputy asks which (and the user's own booking service may answer it).
    assert first_step_tools("Book a table for dinner") == {"reply"}
