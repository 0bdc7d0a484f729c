"""What went out without a card, shown in full: written from the action by code, never by the model.

An email shows its recipients, subject and whole body (a long body folded, with Show all);
a calendar event its title, day, time, zone and calendar; anything else its arguments as an
approval card would show them.
"""

from __future__ import annotations

from deputy.core.records.actions import Action
from deputy.core.records.effects import EffectClass
from deputy.sentinel.cards import detail_lines, when_said
from deputy.sentinel.intent import Kind, action_kinds

FOLD = 1200
"""Characters of a body shown at once; the rest waits behind Show all."""
_NEW_EVENT = ("create_event", "schedule_meeting")
BODY_FIELDS = ("body", "text", "message", "content")
_FORM_TEXT_FIELDS = (*BODY_FIELDS, "comment", "comments", "question", "note")
"""A form's field holding the words it sends, which Edit may correct (one of them, the first found)."""

_NOTHING_LEAVES = {("web", "fill_form")}
"""Typing into a page Deputy holds sends nothing; what sends it (a submit, a click) is shown."""
_DELIVERING = frozenset({Kind.send, Kind.share, Kind.post})


def is_outgoing(action: Action) -> bool:
    """Words or things sent to someone else (an email, a chat message, a post, a form, an invitation, a
    share): it waits in the send window. Besides what is declared `communicate`, a plain write whose
    kind delivers (a `post_message`, a `submit_form`, a share) goes to other people just the same."""
    if (action.connector, action.operation) in _NOTHING_LEAVES:
        return False
    if action.effect is EffectClass.communicate:
        return True
    kinds = action_kinds(action.effect, frozenset(action.tags), action.connector, action.operation)
    return action.effect is EffectClass.write and bool(kinds & _DELIVERING)


_LIVE_PAGE_FORMS = {("web", "submit_form"), ("web", "submit_sensitive_form")}


def cannot_wait(action: Action) -> str | None:
    """Why an outgoing action goes at once instead of waiting in its send window (None: it can wait).

    A web form sent without values of its own sends what `fill_form` typed into the user's open
    tab. That tab is shared by the user's goals and closed when idle, so during a wait another
    goal could navigate it away or the tab could close: the submit would then reload the page and
    send an empty form. A form that carries its own values is typed again if need be, so it waits.
    """
    if (action.connector, action.operation) in _LIVE_PAGE_FORMS and not action.arguments.get("fields"):
        return ("It went at once: it sends what was typed into the open page, which waiting could lose. "
                "Give the form's values with the submit to have it wait for Undo.")
    return None


def is_side_effect(action: Action) -> bool:
    """Anything but a read changes something outside, so the user is shown it."""
    return action.effect is not EffectClass.read and (action.connector, action.operation) not in _NOTHING_LEAVES


def folded(action: Action) -> bool:
    return len(str(action.arguments.get("body", ""))) > FOLD


def shown_text(action: Action, *, waiting: int = 0, whole: bool = False, note: str = "",
               editable: bool | None = None) -> str:
    """The message that says what happens: `waiting` seconds of send window left (0: it happened);
    `note` a sentence under the headline (why a message did not wait); `editable` whether Edit is
    offered (by default, when the action has words to correct)."""
    return "\n".join([_headline(action, waiting, editable), *([note] if note else []), "", *_details(action, whole)])


def sent_text(action: Action, whole: bool = False) -> str:
    """The same message once the send went out."""
    return shown_text(action, whole=whole)


def undone_text(action: Action, why: str) -> str:
    """The message once it was stopped in its window (`why`: a sentence saying what stopped it)."""
    return "\n".join([f"↩️ Not sent: {why}", "", *_details(action, False)])


def body_field(action: Action) -> str | None:
    """The argument holding a message's text, which Edit replaces (None: nothing to edit); a form's
    text field is named `fields.<name>`."""
    found = next((name for name in BODY_FIELDS if isinstance(action.arguments.get(name), str)), None)
    fields = action.arguments.get("fields")
    if found is None and isinstance(fields, dict):
        named = next((name for name in fields if name.lower() in _FORM_TEXT_FIELDS
                      and isinstance(fields[name], str)), None)
        found = f"fields.{named}" if named is not None else None
    return found


def _headline(action: Action, waiting: int, editable: bool | None = None) -> str:
    what = _what(action)
    if waiting > 0:
        editable = body_field(action) is not None if editable is None else editable
        edit = "; Edit lets you correct it first" if editable else ""
        return f"⏳ Sending {what} in {waiting} s. Undo stops it{edit}."
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
    if action.operation == "send_email":
        return "this email"
    kinds = action_kinds(action.effect, frozenset(action.tags), action.connector, action.operation)
    noun = ("form" if "form" in action.operation else "post") if Kind.post in kinds else \
        "invitation" if Kind.schedule in kinds else "share" if Kind.share in kinds and Kind.send not in kinds \
        else "message"
    return f"this {noun} ({action.connector}.{action.operation})"


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
    if field.startswith("fields."):
        fields = {**action.arguments["fields"], field.removeprefix("fields."): body}
        return action.model_copy(update={"arguments": {**action.arguments, "fields": fields}})
    return action.model_copy(update={"arguments": {**action.arguments, field: body}})
