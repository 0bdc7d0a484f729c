"""A watch speaks the user's time zone: "remind me Monday at 17:00" from Berlin fires at 17:00 Berlin
time, and every time the user (and the model) reads is Berlin time, labelled.

Real parts as in test_watch_reminders: pymap IMAP fed over SMTP, the executor and guard,
Redis, and the scripted model server over HTTP.
"""

from __future__ import annotations

from datetime import datetime, timezone

from redis import Redis
from test_watch_probes import SAM, USER, send_mail
from test_watch_reminders import DEADLINE, REMINDER, Rig, mail  # noqa: F401 (mail is a fixture)

from deputy.agent.goals import GoalStatus
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, message_text, system_text, tool_call
from deputy.bot.activity import format_activity, goal_card
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore

# DEADLINE is "2027-01-18T17:00:00", no offset: Monday 17:00 on the user's wall clock.
BERLIN_DEADLINE = datetime(2027, 1, 18, 16, 0, tzinfo=timezone.utc).timestamp()  # 17:00 CET


def settings_in(redis: Redis, zone: str) -> UserSettingsStore:
    store = UserSettingsStore(redis)
    store.save(USER, UserSettings(timezone=zone))
    return store


def test_a_berlin_users_monday_17_00_deadline_fires_at_17_00_berlin_time_and_reads_in_berlin_time(
    redis: Redis, model_server: ScriptedModelServer, mail  # noqa: F811
) -> None:
    store, server = mail
    send_mail(server, SAM, "An old thread")

    def respond(request: ChatRequest) -> ModelReply:
        return tool_call("schedule_check", what=f"email from {SAM}", every_minutes=240,
                         probe={"tool": "search_email", "arguments": {"from": SAM}, "remind_if_none_by": DEADLINE,
                                "reminder": REMINDER, "if_found": "tell"})

    model_server.responder = respond
    rig = Rig(redis, model_server, store, settings=settings_in(redis, "Europe/Berlin"))
    goal = rig.start("remind me on Monday at 17:00 if Sam hasn't replied")
    assert "Europe/Berlin" in system_text(model_server.requests[0].messages), "the model knows the zone"
    answer = next(m for m in goal.messages if m.get("role") == "tool")["content"]
    assert "first check at Fri 15 Jan 13:00 CET (2027-01-15T13:00+01:00)" in answer
    assert "if nothing new comes by Mon 18 Jan 17:00 CET (2027-01-18T17:00+01:00), I send the user" in answer
    card = goal_card(goal)
    assert f"reminding you if no email from {SAM} by Mon 18 Jan 17:00 CET" in card
    assert "next check Fri 15 Jan 13:00 CET" in card and "UTC" not in card
    assert "by Mon 18 Jan 17:00 CET" in format_activity([goal])

    checked_at: list[float] = []
    while rig.goal().status is GoalStatus.scheduled and len(checked_at) < 40:
        rig.next_check()
        checked_at.append(rig.clock.now)
        if rig.clock.now < BERLIN_DEADLINE:
            assert rig.sent() == [], "no message before the deadline"
    assert checked_at[-1] == BERLIN_DEADLINE, "the last check is at 17:00 in Berlin, 16:00 UTC, not an hour late"
    assert rig.sent() == [f"⏰ {REMINDER} (Nothing new by Mon 18 Jan 17:00 CET, so I've stopped watching.)"]
    assert len(model_server.requests) == 1


def test_every_morning_at_8_in_new_york_stays_at_8_across_the_spring_dst_change(
    redis: Redis, model_server: ScriptedModelServer, mail  # noqa: F811
) -> None:
    store, server = mail

    def respond(request: ChatRequest) -> ModelReply:
        if len(request.messages) >= 3 and "found something new" in message_text(request.messages[-3]):
            assert "08:00 EDT" in message_text(request.messages[-3]), "the model hears the check's local time"
            return tool_call("reply", text="Sam replied.")
        return tool_call("schedule_check", what=f"a reply from {SAM}", daily_at="08:00", max_checks=10,
                         probe={"tool": "search_email", "arguments": {"from": SAM}, "remind_each_check": True,
                                "reminder": "Sam hasn't replied yet."})

    model_server.responder = respond
    rig = Rig(redis, model_server, store, settings=settings_in(redis, "America/New_York"))
    rig.clock.now = datetime(2027, 3, 12, 12, 0, tzinfo=timezone.utc).timestamp()  # Fri 12 Mar, 07:00 EST
    goal = rig.start("check every morning at 8 whether Sam replied and remind me if not")
    answer = next(m for m in goal.messages if m.get("role") == "tool")["content"]
    assert ("first check at Fri 12 Mar 08:00 EST (2027-03-12T08:00-05:00), then every day at 08:00 the user's "
            "time (America/New_York)") in answer
    assert "every day at 08:00 EST" in goal_card(goal)

    checked_at: list[float] = []
    for _ in range(4):  # Fri, Sat (EST), then clocks go forward on Sunday 14 March: Sun, Mon (EDT)
        rig.next_check()
        checked_at.append(rig.clock.now)
    assert [datetime.fromtimestamp(t, tz=timezone.utc).strftime("%d %H:%M") for t in checked_at] == \
        ["12 13:00", "13 13:00", "14 12:00", "15 12:00"], "08:00 on the New York wall clock each day"
    assert rig.sent() == ["⏰ Sam hasn't replied yet. (checked 08:00 EST)"] * 2 + \
        ["⏰ Sam hasn't replied yet. (checked 08:00 EDT)"] * 2
    assert "every day at 08:00 EDT" in goal_card(rig.goal())

    send_mail(server, SAM, "Re: Lunch")
    rig.next_check()
    assert rig.sent()[4:] == ["Sam replied."]
    assert rig.goal().status is GoalStatus.done


def test_a_check_at_a_local_time_runs_then_and_an_explicit_utc_time_is_kept(
    redis: Redis, model_server: ScriptedModelServer, mail  # noqa: F811
) -> None:
    store, _server = mail
    asked = iter(["2027-01-16T09:00", "2027-01-16T09:00Z"])
    woken: list[str] = []

    def respond(request: ChatRequest) -> ModelReply:
        last = message_text(request.messages[-1])
        if last.startswith("(Scheduled check"):
            woken.append(last)
            return tool_call("no_news")
        return tool_call("schedule_check", what="the weather in Lisbon", at=next(asked))

    model_server.responder = respond
    rig = Rig(redis, model_server, store, settings=settings_in(redis, "Europe/Berlin"))
    goal = rig.start("look at the weather tomorrow at 9")
    answer = next(m for m in goal.messages if m.get("role") == "tool")["content"]
    assert answer == "Scheduled: first check at Sat 16 Jan 09:00 CET (2027-01-16T09:00+01:00); up to 1 checks."
    assert rig.goal().monitor.next_at == datetime(2027, 1, 16, 8, 0, tzinfo=timezone.utc).timestamp()
    rig.next_check()
    assert woken and woken[0].startswith("(Scheduled check 1 of 1, Sat 16 Jan 09:00 CET (2027-01-16T09:00+01:00).)")
    assert rig.sent()[-1].startswith("I stopped watching “the weather in Lisbon” after 1 checks")

    goal = rig.start("look at the weather at 9 UTC", goal_id="g_utc")
    answer = next(m for m in goal.messages if m.get("role") == "tool")["content"]
    assert answer == "Scheduled: first check at Sat 16 Jan 10:00 CET (2027-01-16T10:00+01:00); up to 1 checks."
