"""Unit tests of the pure parts: chat state, parse modes, entities and the update queue."""

from __future__ import annotations

import asyncio

import pytest

from deputy.emulator.errors import BotApiError, UserApiError
from deputy.emulator.formatting import format_text
from deputy.emulator.records import Button, ChatEvent
from deputy.emulator.state import ChatState
from deputy.emulator.tgobjects import command_entities, parse_inline_keyboard
from deputy.emulator.updates import POLL_CONFLICT, UpdateQueue


def test_state_ids_events_and_clock() -> None:
    events: list[ChatEvent] = []
    state = ChatState(clock=lambda: 1_700_000_000.7)
    state.listeners.append(events.append)
    chat = state.open_chat(10)
    assert chat.first_name == "User 10"
    a = state.add_message(chat, "user", text="hi")
    b = state.add_message(chat, "bot", text="yo", keyboard=[[Button("A", data="a")]])
    assert (a.message_id, b.message_id, b.date) == (1, 2, 1_700_000_000)
    state.edit_message(10, 2, text="yo!", keyboard=[])
    state.delete_message(10, 1)
    assert [e.payload["type"] for e in events] == ["message", "message", "edit", "delete"]
    assert [m.message_id for m in state.messages_after(10)] == [2]
    with pytest.raises(BotApiError, match="chat not found"):
        state.require_chat(11)


def test_state_press_and_answer() -> None:
    state = ChatState()
    chat = state.open_chat(1, "Ann")
    msg = state.add_message(chat, "bot", text="?", keyboard=[[Button("Go", data="go"), Button("Web", url="https://x")]])
    query = state.press(1, msg.message_id, label="Go")
    assert query.data == "go"
    with pytest.raises(UserApiError) as err:
        state.press(1, msg.message_id, label="Stop")
    assert err.value.status == 400 and "'Go'" in err.value.message
    state.answer_callback(query.query_id, "ok")
    with pytest.raises(BotApiError, match="query ID is invalid"):
        state.answer_callback(query.query_id, "again")
    assert [a.text for a in chat.answers] == ["ok"]


def test_command_entities_utf16_offsets() -> None:
    assert command_entities("/start") == [{"type": "bot_command", "offset": 0, "length": 6}]
    assert command_entities("😀 /help me") == [{"type": "bot_command", "offset": 3, "length": 5}]
    assert command_entities("a/b and http://x/y") == []


def test_inline_keyboard_validation() -> None:
    assert parse_inline_keyboard({"keyboard": [[{"text": "reply kb"}]]}) == []
    with pytest.raises(BotApiError, match="BUTTON_DATA_INVALID"):
        parse_inline_keyboard({"inline_keyboard": [[{"text": "x", "callback_data": ""}]]})
    with pytest.raises(BotApiError, match="is invalid"):
        parse_inline_keyboard({"inline_keyboard": [[{"text": "x", "url": "javascript:alert(1)"}]]})
    with pytest.raises(BotApiError, match="can't parse"):
        parse_inline_keyboard("nope")


@pytest.mark.parametrize(
    ("src", "mode", "text", "entities"),
    [
        ("<b>bold <i>both</i></b> &lt;3", "HTML", "bold both <3",
         [("bold", 0, 9), ("italic", 5, 4)]),
        ('<a href="https://x.org">link</a>', "HTML", "link", [("text_link", 0, 4)]),
        ('<pre><code class="language-py">x = 1</code></pre>', "HTML", "x = 1", [("pre", 0, 5)]),
        ("*bold* _it_ __u__ ~s~ ||sp|| `c` a\\.b", "MarkdownV2", "bold it u s sp c a.b",
         [("bold", 0, 4), ("italic", 5, 2), ("underline", 8, 1), ("strikethrough", 10, 1),
          ("spoiler", 12, 2), ("code", 15, 1)]),
        ("[Deputy](https://x.org/a\\)b) 😀*x*", "MarkdownV2", "Deputy 😀x",
         [("text_link", 0, 6), ("bold", 9, 1)]),
        (">quote\nplain", "MarkdownV2", "quote\nplain", [("blockquote", 0, 5)]),
        ("*bold* _it_ [l](http://a)", "Markdown", "bold it l",
         [("bold", 0, 4), ("italic", 5, 2), ("text_link", 8, 1)]),
        ("plain <b>", None, "plain <b>", []),
    ],
)
def test_parse_modes(src: str, mode: str | None, text: str, entities: list[tuple[str, int, int]]) -> None:
    out_text, out_entities = format_text(src, mode)
    assert out_text == text
    assert [(e["type"], e["offset"], e["length"]) for e in out_entities] == entities


@pytest.mark.parametrize(
    ("src", "mode", "error"),
    [
        ("<blink>x</blink>", "HTML", 'Unsupported start tag "blink"'),
        ("<b>x</i>", "HTML", "Unmatched end tag"),
        ("<b>x", "HTML", "Can't find end tag"),
        ("Done!", "MarkdownV2", "Character '!' is reserved"),
        ("*open", "MarkdownV2", "Can't find end of Bold entity"),
        ("*a", "Markdown", "Can't find end of the entity"),
    ],
)
def test_parse_mode_errors(src: str, mode: str, error: str) -> None:
    with pytest.raises(BotApiError) as err:
        format_text(src, mode)
    assert err.value.description.startswith("Bad Request: can't parse entities: ")
    assert error in err.value.description


async def test_a_newer_long_poll_terminates_the_waiting_one_as_telegram_does_and_close_releases() -> None:
    queue = UpdateQueue(conflict_pause=0.01)
    first = asyncio.create_task(queue.fetch(timeout=10))
    while queue.waiting < 1:
        await asyncio.sleep(0)
    second = asyncio.create_task(queue.fetch(timeout=10))
    with pytest.raises(BotApiError) as lost:
        await asyncio.wait_for(first, 1)
    assert (lost.value.error_code, lost.value.description) == (409, POLL_CONFLICT)
    queue.put("message", {"text": "x"})
    assert await asyncio.wait_for(second, 1) == [{"update_id": 1, "message": {"text": "x"}}]
    assert queue.conflicts == 1
    late = asyncio.create_task(queue.fetch(offset=2, timeout=10))
    while queue.waiting < 1:
        await asyncio.sleep(0)
    assert await queue.fetch(offset=2, timeout=0) == [], "a short poll does not wait, so it terminates nothing"
    queue.close()
    assert await asyncio.wait_for(late, 1) == []
    assert queue.conflicts == 1