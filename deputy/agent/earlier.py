"""The user's previous request, as a follow-up goal carries it: their words and what code knows of its outcome.

"Send it to Anna too" only makes sense after "email Sam that the workshop is confirmed". When a
message follows an earlier goal (soon after it, or as a reply to one of Deputy's messages about
it), the new goal keeps a small `Earlier` record, written by code at intake from the earlier goal:

- `words`: what the user typed for it. These are the user's own words, and the guard counts them
  as such (`Goal.user_words`).
- `done`: one line per consequential action that succeeded, written by code from the action
  (recipients, subject, title), never the model's account of it, with the id of what it made
  when the connector's own words name one ("move it to 4 instead" moves THAT event).
- `wrote`: the last email it sent or drafted, subject and text, from the action ("send it to Bob
  instead" sends the same words).
- `answer`: the last message Deputy sent the user about it. The model wrote it, so it is never
  the user's word; the prompt shows it (and `done`) inside an untrusted label, as data. If the
  earlier goal read outside content, the outside content itself is not repeated here: it stays
  in the new goal's ledger of outside content (`deputy.agent.follow_ups.carry`), labelled as before.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass

FOLLOW_UP_WINDOW = 30 * 60
"""Seconds after the previous goal's last step within which a new message carries it as context."""
MAX_WORDS_CHARS = 400
MAX_DONE_LINES = 4
MAX_LINE_CHARS = 160
MAX_ANSWER_CHARS = 300
MAX_WROTE_CHARS = 1200

_MADE_ID = re.compile(r"\(id ([^()\s]+)\)")
"""How a connector names what it made in its own words: "Created “Dentist” … (id personal/abc@deputy)"."""
_WRITTEN = ("send_email", "draft_email")

_TITLE_ARGUMENTS = ("subject", "title", "summary", "name")


class Earlier(BaseModel):
    goal_id: str
    text: str = Field(description="The earlier goal's text (shown in the acknowledgement).")
    words: list[str] = Field(default_factory=list, description="What the user typed for it: theirs, trusted.")
    status: str = Field(description="Where it stands, in words (done, stopped, waiting for your approval...).")
    done: list[str] = Field(default_factory=list, description="What its actions did, written by code.")
    answer: str | None = Field(default=None, description="Deputy's last message about it (model text).")
    wrote: str | None = Field(default=None, description="The last email it sent or drafted (model text).")


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def latest_words(words: list[str], limit: int = MAX_WORDS_CHARS) -> list[str]:
    """The most recent of `words` that fit in `limit` characters (the newest one cut if it alone is longer)."""
    kept: list[str] = []
    room = limit
    for said in reversed(words):
        if len(said) > room:
            if not kept:
                kept.append(said[:room])
            break
        kept.append(said)
        room -= len(said)
    return list(reversed(kept))


def done_line(action: Action, outcome: str | None = None) -> str | None:
    """What a succeeded action did, in one line written from the action itself; None for a read.

    `outcome`: the connector's own account of it (never outside content), for the id of what it made."""
    if action.effect is EffectClass.read:
        return None
    made = _MADE_ID.search(outcome or "")
    line = _did(action)
    return f"{line} (id {made.group(1)})" if made else line


def wrote_text(action: Action) -> str | None:
    """The email a succeeded send or draft carried, as “subject” and its text; None for any other action."""
    if action.connector != "email" or action.operation not in _WRITTEN:
        return None
    args = action.arguments
    body = str(args.get("body") or "").strip()
    return shorten(f"Subject “{args.get('subject', '')}”:", MAX_LINE_CHARS) + "\n" + body[:MAX_WROTE_CHARS]


def _did(action: Action) -> str:
    args = action.arguments
    if action.operation == "send_email":
        to = ", ".join([*args.get("to", []), *args.get("cc", [])]) or "its recipients"
        return shorten(f"sent an email to {to} (subject “{args.get('subject', '')}”)", MAX_LINE_CHARS)
    line = f"{action.connector}.{action.operation}"
    if action.targets:
        line += " for " + ", ".join(action.targets)
    title = next((str(args[key]) for key in _TITLE_ARGUMENTS if isinstance(args.get(key), str) and args[key]), None)
    if title:
        line += f" “{title}”"
    if args.get("start"):
        line += f" at {args['start']}"
    if action.amount is not None:
        line += f" ({action.amount} {action.currency or ''})".rstrip()
    return shorten(line, MAX_LINE_CHARS)

