"""Approval cards: exactly what will happen and why the guard asked, in plain words."""

from __future__ import annotations

from deputy.outbox import Button
from sentinel.actions import Action
from sentinel.approvals import ApprovalSigner, Choice
from sentinel.policy import Decision

# Telegram messages hold 4,096 characters; the rest of the card needs well under 1,000.
_MAX_BODY_SHOWN = 3000


def card_text(action: Action, decision: Decision) -> str:
    lines = [_headline(action), ""]
    args = action.arguments
    if action.operation == "send_email":
        lines.append("To: " + ", ".join(args.get("to", [])))
        if args.get("cc"):
            lines.append("Cc: " + ", ".join(args["cc"]))
        lines.append(f"Subject: {args.get('subject', '')}")
        body = str(args.get("body", ""))
        if len(body) > _MAX_BODY_SHOWN:
            body = body[:_MAX_BODY_SHOWN] + f"\n[… {len(body) - _MAX_BODY_SHOWN} more characters]"
        lines += ["", body]
    else:
        lines += [f"{key}: {value}" for key, value in sorted(args.items())]
    lines += ["", "Why I'm asking: " + " ".join(decision.reasons)]
    if decision.risk.value == "high":
        lines.append("⚠️ Take a close look before approving.")
    return "\n".join(lines)


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


def unknown_outcome_text(action: Action, known: str, earlier_card: str | None = None) -> str:
    """The card of an action whose executor stopped midway: what is known, and the choice."""
    what = "sending this email" if action.operation == "send_email" else f"{action.connector}.{action.operation}"
    lines = [
        f"⚠️ Outcome unknown: I stopped while {what}.",
        f"What I know: {known}.",
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


def _headline(action: Action) -> str:
    if action.operation == "send_email":
        return "✉️ Send this email?"
    return f"Run {action.connector}.{action.operation}?"
