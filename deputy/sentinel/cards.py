"""Approval cards: exactly what will happen and why the guard asked, in plain words.

A card is one chat message: the action's details (long values cut, the cut said), then
the reasons (the policy keeps them within about 700 characters).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from deputy.core.records.outbox import Button
from deputy.core.records.actions import Action
from deputy.sentinel.stores.approvals import ApprovalSigner, Choice
from deputy.sentinel.policy import Decision

# Telegram messages hold 4,096 characters; the rest of the card needs well under 1,000.
_MAX_BODY_SHOWN = 2400
_MAX_VALUE_SHOWN = 300


def card_text(action: Action, decision: Decision) -> str:
    lines = [_headline(action), "", *detail_lines(action)]
    lines += ["", "Why I'm asking: " + " ".join(decision.reasons)]
    if decision.risk.value == "high":
        lines.append("⚠️ Take a close look before approving.")
    return "\n".join(lines)


def detail_lines(action: Action, max_body: int = _MAX_BODY_SHOWN) -> list[str]:
    """What an action would do, in words: an email's recipients, subject and body (long bodies
    cut, the cut said), else when it happens and each argument on a line of its own."""
    args = action.arguments
    lines: list[str] = []
    if action.operation == "send_email":
        lines.append("To: " + ", ".join(args.get("to", [])))
        for field in ("cc", "bcc"):
            if args.get(field):
                lines.append(f"{field.capitalize()}: " + ", ".join(args[field]))
        lines.append(f"Subject: {args.get('subject', '')}")
        body = str(args.get("body", ""))
        if len(body) > max_body:
            body = body[:max_body] + f"\n[… {len(body) - max_body} more characters]"
        return lines + ["", body]
    when = when_said(args)
    if when and action.operation == "move_event" and when.endswith(" (all day)"):
        when = when.removesuffix(" (all day)") + ", at the same time of day"  # the calendar keeps its time
    lines += [f"When: {when}"] if when else []
    return lines + [f"{key}: {_shown(value)}" for key, value in _flat(args)]


def card_buttons(
    signer: ApprovalSigner, approval_id: str, user_id: int, offer_always: bool = False
) -> list[list[Button]]:
    rows = [
        [
            Button(text="Approve", data=signer.button_data(approval_id, Choice.approve, user_id)),
            Button(text="Deny", data=signer.button_data(approval_id, Choice.deny, user_id)),
        ]
    ]
    if offer_always:
        rows.append([Button(text="Always allow this", data=signer.button_data(approval_id, Choice.always, user_id))])
    return rows


_SENDING = {"email.send_email": "sending this email", "email.reply_email": "sending this reply",
            "email.forward_email": "forwarding this email"}


def unknown_outcome_text(action: Action, known: str, earlier_card: str | None = None,
                         evidence: str | None = None) -> str:
    """The card of an action whose executor stopped midway: what is known (and what the world
    shows, e.g. a copy in Sent), and the choice."""
    name = f"{action.connector}.{action.operation}"
    what = _SENDING.get(name, name)
    lines = [
        f"⚠️ Outcome unknown: I stopped while {what}.",
        f"What I know: {known}.",
        *([evidence] if evidence else []),
        "Check whether it happened, then tell me: Try again runs it once more; Drop it leaves it as it is.",
    ]
    if earlier_card:
        lines += ["", earlier_card]
    return "\n".join(lines)


def unknown_outcome_buttons(signer: ApprovalSigner, request_id: str, user_id: int) -> list[list[Button]]:
    return [[
        Button(text="Try again", data=signer.button_data(request_id, Choice.approve, user_id)),
        Button(text="Drop it", data=signer.button_data(request_id, Choice.deny, user_id)),
    ]]


# What each built-in operation does, asked as the user would be asked. Services the user connected themselves keep
# their technical name: their own descriptions come from the service and must not word the question.
_HEADLINES = {
    "email.send_email": "✉️ Send this email?",
    "email.reply_email": "✉️ Send this reply?",
    "email.forward_email": "✉️ Forward this email?",
    "email.draft_email": "✉️ Save this draft?",
    "email.move_email": "📁 Move this email?",
    "email.mark_email": "📁 Mark this email?",
    "email.delete_email": "🗑 Delete this email?",
    "email.add_forwarding_rule": "⚠️ Forward all your new mail?",
    "calendar.create_event": "📅 Add this to your calendar?",
    "calendar.schedule_meeting": "📅 Add this meeting and invite these people?",
    "calendar.move_event": "📅 Move this event?",
    "calendar.cancel_event": "📅 Remove this event from your calendar?",
    "calendar.delete_event": "📅 Remove this event from your calendar?",
    "web.fill_form": "🌐 Type this into the page?",
    "web.submit_form": "🌐 Send this form?",
    "web.submit_sensitive_form": "🌐 Send this form?",
    "web.click": "🌐 Click this on the page?",
    "web.pay_on_page": "💳 Pay on this page?",
    "travel.book_trip": "🧳 Book this trip?",
    "travel.book_flight": "🧳 Book this flight?",
    "negotiation.offer": "🤝 Make this offer?",
    "negotiation.counter": "🤝 Send this counter-offer?",
    "negotiation.accept": "🤝 Accept this offer?",
    "negotiation.decline": "🤝 Decline this offer?",
    "negotiation.ask": "🤝 Ask them this?",
    "negotiation.tell": "🤝 Tell them this?",
}


def _headline(action: Action) -> str:
    return _HEADLINES.get(f"{action.connector}.{action.operation}", f"Run {action.connector}.{action.operation}?")


def when_said(args: dict) -> str | None:
    """`Thu 3 Dec 13:30 CET` (or `Sun 6 Dec (all day)`) for an action's start, in its zone.

    The agent resolved the user's words into an ISO instant before the action was submitted;
    the card says it as the user would, with the zone's short name.
    """
    start = args.get("start")
    if not isinstance(start, str):
        return None
    try:
        moment = datetime.fromisoformat(start.strip())
    except ValueError:
        return None
    if len(start.strip()) == 10:  # a date alone: a whole day
        return f"{moment:%a} {moment.day} {moment:%b} (all day)"
    try:
        zone = ZoneInfo(args["timezone"]) if isinstance(args.get("timezone"), str) else None
    except (ZoneInfoNotFoundError, ValueError):
        zone = None
    if moment.tzinfo is None:
        return f"{moment:%a} {moment.day} {moment:%b %H:%M}" + (f" ({zone.key})" if zone else "")
    local = moment.astimezone(zone) if zone else moment
    return f"{local:%a} {local.day} {local:%b %H:%M} {local.tzname()}"


def _flat(args: dict, prefix: str = "") -> list[tuple[str, object]]:
    """Nested fields as "fields.message: …", one line each, in a stable order."""
    rows: list[tuple[str, object]] = []
    for key, value in sorted(args.items()):
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            rows += _flat(value, name + ".")
        else:
            rows.append((name, ", ".join(map(str, value)) if isinstance(value, list) else value))
    return rows


def _shown(value: object) -> str:
    text = str(value)
    if len(text) <= _MAX_VALUE_SHOWN:
        return text
    return text[:_MAX_VALUE_SHOWN] + f" [… {len(text) - _MAX_VALUE_SHOWN} more characters]"
