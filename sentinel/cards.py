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
    return "\n".join(lines)


def card_buttons(signer: ApprovalSigner, approval_id: str, user_id: int) -> list[list[Button]]:
    return [
        [
            Button(text="Approve", data=signer.button_data(approval_id, Choice.approve, user_id)),
            Button(text="Deny", data=signer.button_data(approval_id, Choice.deny, user_id)),
        ]
    ]


def decided_text(original: str, approved: bool) -> str:
    verdict = "✅ Approved. Working on it." if approved else "❌ Denied. Nothing was done."
    return f"{original}\n\n{verdict}"


def _headline(action: Action) -> str:
    if action.operation == "send_email":
        return "✉️ Send this email?"
    return f"Run {action.connector}.{action.operation}?"
