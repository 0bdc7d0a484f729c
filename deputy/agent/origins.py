"""Who wrote each message of a goal's transcript: the user, the model, or the outside world.

The chat API has one role for everything the model is told outside its own turns
("user"), but the guard must know whose words they are: only what the user typed says
what the user wants. Sub-goal instructions, monitor wake-ups and notes the model's own
tool calls produced are model text even though the model reads them as "user" messages;
files are outside content. So every message carries an `origin` label, stored with the
goal and stripped (`for_model`) before the transcript goes to a model endpoint, which
must never receive a field it does not know.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

Message = dict[str, Any]

ORIGIN = "origin"
"""The message key holding the label: metadata for the guard, never sent to the model."""

EDIT_FRAME = "(The user changed the goal) "
"""Deputy's framing of an edit the user typed; the words after it are the user's."""

MODEL_FIELDS = frozenset({"role", "content", "name", "tool_calls", "tool_call_id"})
"""The message fields a chat-completions endpoint accepts from us (OpenAI wire shape)."""


class Origin(str, Enum):
    user = "user"  # the user typed it: the goal, their answers, their edits
    model = "model"  # the model wrote it, whatever path brought it back (sub-goal instructions, wake-ups...)
    outside = "outside"  # outside content: files, tool results
    deputy = "deputy"  # Deputy's own fixed wording, with nothing the model or the outside world chose


def labelled(message: Message, origin: Origin) -> Message:
    return {**message, ORIGIN: origin.value}


def user_message(text: str) -> Message:
    """Words the user typed (the goal, an answer)."""
    return {"role": "user", "content": text, ORIGIN: Origin.user.value}


def user_edit(text: str) -> Message:
    """A change to the goal the user typed, framed so the model knows what it is."""
    return {"role": "user", "content": EDIT_FRAME + text, ORIGIN: Origin.user.value}


def model_note(content: Any) -> Message:
    """Text the model wrote, handed back to a model in the user role so that it follows it."""
    return {"role": "user", "content": content, ORIGIN: Origin.model.value}


def deputy_note(text: str) -> Message:
    """Deputy's own fixed wording (no model or outside text in it), in the user role."""
    return {"role": "user", "content": text, ORIGIN: Origin.deputy.value}


def origin_of(message: Message) -> Origin:
    """Who wrote `message`. Unlabelled user-role text is never the user's (see `Goal` for old records)."""
    label = message.get(ORIGIN)
    if label is not None:
        try:
            return Origin(label)
        except ValueError:
            return Origin.model
    role = message.get("role")
    if role == "tool":
        return Origin.outside
    if role == "system":
        return Origin.deputy
    return Origin.model


def typed_words(message: Message) -> str | None:
    """Exactly what the user typed in `message`, or None when it is not the user's."""
    content = message.get("content")
    if origin_of(message) is not Origin.user or not isinstance(content, str):
        return None
    return content.removeprefix(EDIT_FRAME)


def for_model(message: Message) -> Message:
    """`message` as a model endpoint receives it: only the fields of the chat API."""
    if message.keys() <= MODEL_FIELDS:
        return message
    return {key: value for key, value in message.items() if key in MODEL_FIELDS}


def unknown_fields(messages: list[Message]) -> list[str]:
    """Fields no chat API knows in `messages` (a strict endpoint refuses such a request)."""
    return sorted({key for message in messages for key in message if key not in MODEL_FIELDS})


def label_legacy(messages: list[Message], *, is_part: bool, goal_text: str, legacy: bool) -> list[Message]:
    """Label the messages of a record written before labels (or built by hand without them).

    Old records (`legacy`) were written by paths we know: a part's first message is the
    model's instructions, files are outside content, "(Deputy) ..." notes and "(Scheduled
    check ...)" wake-ups are Deputy's and the model's, the rest are the user's. In a new
    record every writer labels its messages, so an unlabelled one is the user's only when it
    is the goal's own text at the start of a goal the user created.
    """
    out: list[Message] = []
    for index, message in enumerate(messages):
        if ORIGIN in message or message.get("role") != "user":
            out.append(message)
            continue
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        if message.get("name") == "attachment":
            origin = Origin.outside
        elif is_part and index == 0:
            origin = Origin.model
        elif index == 0 and not is_part and text == goal_text:
            origin = Origin.user
        elif not legacy:
            origin = Origin.model
        elif text.startswith("(Deputy)"):
            origin = Origin.deputy
        elif text.startswith("(Scheduled check"):
            origin = Origin.model  # names what the model chose to watch
        else:
            origin = Origin.user
        out.append(labelled(message, origin))
    return out
