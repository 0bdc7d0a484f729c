"""What went out without a card, shown in full: written from the action by code, never by the model.

An email shows its recipients, subject and whole body (a long body folded, with Show all);
a calendar event its title, day, time, zone and calendar; anything else its arguments as an
approval card would show them.
"""

from __future__ import annotations

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.sentinel.cards import detail_lines, when_said

FOLD = 1200
"""Characters of a body shown at once; the rest waits behind Show all."""
_NEW_EVENT = ("create_event", "schedule_meeting")
BODY_FIELDS = ("body", "text", "message", "content")


def is_outgoing(action: Action) -> bool:
    """A message to someone (an email, a chat message, a post, a form): it waits in the send window."""
    return action.effect is EffectClass.communicate


_NOTHING_LEAVES = {("web", "fill_form")}
"""Typing into a page Deputy holds sends nothing; what sends it (a submit, a click) is shown."""


def is_side_effect(action: Action) -> bool:
    """Anything but a read changes something outside, so the user is shown it."""
    return action.effect is not EffectClass.read and (action.connector, action.operation) not in _NOTHING_LEAVES


def folded(action: Action) -> bool:
    return len(str(action.arguments.get("body", ""))) > FOLD


def shown_text(action: Action, *, waiting: int = 0, whole: bool = False) -> str:
    """The message that says what happens: `waiting` seconds of send window left (0: it happened)."""
    return "\n".join([_headline(action, waiting), "", *_details(action, whole)])


def sent_text(action: Action, whole: bool = False) -> str:
    """The same message once the send went out."""
    return shown_text(action, whole=whole)


def undone_text(action: Action, why: str) -> str:
    """The message once it was stopped in its window (`why`: a sentence saying what stopped it)."""
    return "\n".join([f"↩️ Not sent: {why}", "", *_details(action, False)])


def body_field(action: Action) -> str | None:
    """The argument holding a message's text, which Edit replaces (None: nothing to edit)."""
    return next((name for name in BODY_FIELDS if isinstance(action.arguments.get(name), str)), None)


def _headline(action: Action, waiting: int) -> str:
    what = _what(action)
    if waiting > 0:
        return f"⏳ Sending {what} in {waiting} s. Undo stops it; Edit lets you correct it first."
    if action.operation in _NEW_EVENT:
        return "📅 Added to your calendar:"
    if action.operation == "move_event":
        return "📅 Moved in your calendar:"
    if action.operation == "cancel_event":
        return "📅 Removed from your calendar:"
    if action.operation == "send_email":
        return "✉️ Sent this email:"
    return f"✅ Done: {action.connector}.{action.operation}"


def _what(action: Action) -> str:
    return "this email" if action.operation == "send_email" else f"this ({action.connector}.{action.operation})"


def _details(action: Action, whole: bool) -> list[str]:
    args = action.arguments
    if action.operation in _NEW_EVENT:
        lines = [f"“{args.get('title', '')}”", f"When: {when_said(args) or args.get('start', '')}"]
        if args.get("end"):
            lines.append(f"Until: {when_said({**args, 'start': args['end']}) or args['end']}")
        elif args.get("duration_minutes"):
            lines.append(f"For: {args['duration_minutes']} minutes")
        lines.append(f"Calendar: {args.get('calendar') or 'your default calendar'}")
        lines += [f"Where: {args['location']}"] if args.get("location") else []
        lines += ["Invited: " + ", ".join(args["attendees"])] if args.get("attendees") else []
        return lines
    lines = detail_lines(action, max_body=10**9 if whole else FOLD)
    if not whole and folded(action):
        lines[-1] = lines[-1].replace("more characters]", "more characters: press Show all]")
    return lines


def with_body(action: Action, body: str | None) -> Action:
    """The action with the user's corrected text in place of the message's own (unchanged without one)."""
    field = body_field(action)
    if body is None or field is None:
        return action
    return action.model_copy(update={"arguments": {**action.arguments, field: body}})
