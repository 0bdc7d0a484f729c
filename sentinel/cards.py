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


def _headline(action: Action) -> str:
    if action.operation == "send_email":
        return "✉️ Send this email?"
    return f"Run {action.connector}.{action.operation}?"
