"""Turning a button press into a decision: verify, record once, hand on to the executor.

`decide_press` is independent of Telegram: it takes the press's data and sender and returns
what to tell the presser and how to change the card, so every case is easy to test.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.services import BotServices
from sentinel.approvals import ApprovalStatus, Choice, ForgedPress, PressOutcome


@dataclass(frozen=True)
class PressAnswer:
    toast: str
    card_suffix: str | None = None  # appended to the card, whose buttons are then removed
    alert: bool = False


FORGED = PressAnswer(
    "This button isn't valid for you, so I ignored it. Only the buttons on your own approval cards work.",
    alert=True,
)


def decide_press(services: BotServices, data: str, user_id: int) -> PressAnswer:
    try:
        approval_id, choice = services.signer.verify(data, user_id)
    except ForgedPress:
        services.audit.append(user_id, "press_rejected", services.clock(), reason="invalid button data")
        return FORGED
    result = services.approvals.decide(approval_id, user_id, choice, services.clock())
    request = result.request
    if result.outcome is PressOutcome.decided and request is not None:
        approved = choice is Choice.approve
        services.audit.append(
            user_id, "approval_decided", services.clock(), approval_id=approval_id, action_id=request.action_id,
            decision="approved" if approved else "denied",
        )
        goal = services.goals.get(request.goal_id)
        step = goal.step if goal is not None else 0
        services.dispatch.action(request.action_id, request.goal_id, step, approval_id=approval_id)
        if approved:
            return PressAnswer("Approved. I'm carrying it out now.", "✅ Approved. Carrying it out now.")
        return PressAnswer("Denied. I won't do it.", "❌ Denied. Nothing was done.")
    if result.outcome is PressOutcome.already_decided:
        done = "approved" if result.status is ApprovalStatus.approved else (result.status or ApprovalStatus.denied).value
        return PressAnswer(f"You already {done} this. Each request counts once.")
    if result.outcome is PressOutcome.expired:
        if request is not None:
            goal = services.goals.get(request.goal_id)
            services.dispatch.action(request.action_id, request.goal_id, goal.step if goal else 0, approval_id=approval_id)
        return PressAnswer(
            "This request expired, so nothing was done. Ask me again if you still want it.",
            "⌛ Expired. Nothing was done.",
        )
    if result.outcome is PressOutcome.not_owner:
        return PressAnswer("Only the person this request belongs to can answer it.", alert=True)
    return PressAnswer("I can't find that request any more, so nothing was done.")
