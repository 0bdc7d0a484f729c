"""Turning a button press into a decision: verify, record once, hand on to the executor.

`decide_press` is independent of Telegram: it takes the press's data and sender and returns
what to tell the presser and how to change the card, so every case is easy to test.
"""

from __future__ import annotations

from deputy.bot.approval_mode_view import press_approval_mode
from deputy.bot.audit_view import press_audit_page
from deputy.bot.buttons import InvalidButton
from deputy.bot.confidential_handlers import press_lock
from deputy.bot.card_view import press_card_default, press_card_for_merchant
from deputy.bot.check_in_presses import press_check_in
from deputy.bot.suggestion_presses import press_suggestion
from deputy.bot.goal_controls import press_goal_control
from deputy.bot.memory_view import press_memory
from deputy.bot.negotiation import press_negotiation
from deputy.bot.operation_marks import press_operation_mark
from deputy.bot.presses_common import PressAnswer
from deputy.bot.send_window_presses import press_send_window, press_undo_write
from deputy.bot.services import BotServices
from deputy.core.infrastructure import metrics
from deputy.core.records.actions import ActionState
from deputy.sentinel.stores.approvals import ApprovalRequest, ApprovalStatus, Choice, ForgedPress, PressOutcome
from deputy.sentinel.rules import describe, narrow_rule_for

FORGED = PressAnswer(
    "This button isn't valid for you, so I ignored it. Only the buttons on your own approval cards work.",
    alert=True,
)


def decide_press(services: BotServices, data: str, user_id: int) -> PressAnswer:
    if services.buttons.is_ours(data):
        return _rule_press(services, data, user_id)
    try:
        approval_id, choice = services.signer.verify(data, user_id)
    except ForgedPress:
        services.audit.append(user_id, "press_rejected", services.clock(), reason="invalid button data")
        return FORGED
    result = services.approvals.decide(approval_id, user_id, choice, services.clock())
    request = result.request
    if result.outcome is PressOutcome.decided and request is not None:
        approved = choice is not Choice.deny
        unknown = request.kind == "outcome_unknown"
        services.audit.append(
            user_id, "approval_decided", services.clock(), approval_id=approval_id, action_id=request.action_id,
            decision=("retry" if approved else "drop") if unknown else ("approved" if approved else "denied"),
        )
        metrics.card_decided(approved, outcome_unknown=unknown)
        goal = services.goals.get(request.goal_id)
        step = goal.step if goal is not None else 0
        services.dispatch.action(request.action_id, request.goal_id, step, approval_id=approval_id)
        if unknown:
            if approved:
                return PressAnswer("Trying it once more.", "🔁 Trying again, once.")
            return PressAnswer("Dropped. I won't try again.", "🗑 Dropped. Whether it happened is still unknown.")
        if choice is Choice.always:
            record = services.actions.get(request.action_id)
            try:
                rule = narrow_rule_for(record.action, now=services.clock()) if record is not None else None
            except ValueError:  # e.g. an action without a target: approve this one only
                rule = None
            if rule is not None:
                services.rules.add(user_id, rule)
                services.audit.append(user_id, "rule_added", services.clock(), rule_id=rule.id, rule=describe(rule),
                                      source="always allow button")
                return PressAnswer(
                    "Approved, and I won't ask again for exactly this. See /rules to undo.",
                    f"✅ Approved. From now on: {describe(rule)}",
                )
        if approved:
            return PressAnswer("Approved. I'm carrying it out now.", "✅ Approved. Carrying it out now.")
        return PressAnswer("Denied. I won't do it.", "❌ Denied. Nothing was done.")
    if result.outcome is PressOutcome.already_decided:
        if request is not None:
            _hand_on_if_stranded(services, request, approval_id)
        done = "approved" if result.status is ApprovalStatus.approved else (result.status or ApprovalStatus.denied).value
        if request is not None and request.kind == "outcome_unknown":
            done = "chose to try again" if result.status is ApprovalStatus.approved else "chose to drop it"
            return PressAnswer(f"You already {done}. Each choice counts once.")
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
    return PressAnswer("I can't find that request any more (it may have been lost), so nothing was done. "
                       "I've taken its buttons away.", gone=True)


def _hand_on_if_stranded(services: BotServices, request: ApprovalRequest, approval_id: str) -> None:
    """A bot that died between recording a decision and handing it to the executor left the action
    waiting for good: the press replayed after its restart (or pressed again) hands it on. A job
    too many is harmless: the executor runs an action only once it has claimed it."""
    record = services.actions.get(request.action_id)
    waiting = ActionState.outcome_unknown if request.kind == "outcome_unknown" else ActionState.awaiting_approval
    if record is not None and record.state is waiting:
        goal = services.goals.get(request.goal_id)
        services.dispatch.action(request.action_id, request.goal_id, goal.step if goal else 0, approval_id=approval_id)


def _rule_press(services: BotServices, data: str, user_id: int) -> PressAnswer:
    try:
        kind, ident = services.buttons.verify(data, user_id)
    except InvalidButton:
        services.audit.append(user_id, "press_rejected", services.clock(), reason="invalid button data")
        return FORGED
    if kind == "rs":
        rule = services.rules.confirm(user_id, ident)
        if rule is None:
            return PressAnswer("That proposal expired or was already answered. Send the rule again with /rules.")
        services.audit.append(user_id, "rule_added", services.clock(), rule_id=rule.id, rule=describe(rule))
        return PressAnswer("Rule saved.", f"✅ Saved. I'll enforce: {describe(rule)}")
    if kind in ("ao", "an"):
        return press_audit_page(services, kind, ident, user_id)
    if kind.startswith("g"):
        return press_goal_control(services, kind, ident, user_id)
    if kind.startswith("x"):
        return press_suggestion(services, kind, ident, user_id)
    if kind.startswith("k"):
        return press_check_in(services, kind, ident, user_id)
    if kind.startswith("n"):
        return press_negotiation(services, kind, ident, user_id)
    if kind.startswith("m"):
        return press_memory(services, kind, ident, user_id)
    if kind.startswith("o"):
        return press_operation_mark(services, kind, ident, user_id)
    if kind.startswith("s"):
        return press_send_window(services, kind, ident, user_id)
    if kind == "uw":
        return press_undo_write(services, ident, user_id)
    if kind == "lk":
        return press_lock(services, user_id)
    if kind == "ap":
        return press_approval_mode(services, ident, user_id)
    if kind == "dd":
        services.dispatch.erase_user(user_id, user_id)
        return PressAnswer("Erasing everything…", "🗑 Erasing everything I store about you…")
    if kind == "cm":
        toast, message = press_card_for_merchant(services.redis, ident, user_id)
        return PressAnswer(toast, message)
    if kind == "cd":
        toast, message = press_card_default(services.redis, ident, user_id)
        return PressAnswer(toast, message)
    if kind == "ca":
        link = f"{services.connect_url}/connect/{services.links.create(user_id, user_id, ident)}"
        return PressAnswer("Sign in again to change it.", f"To change what I may do with your {ident}, sign in "
                           f"again and choose (the link works once, for 15 minutes): {link}", only_this_button=True)
    if kind == "dx":
        services.dispatch.forget_connection(user_id, user_id, ident)
        return PressAnswer(f"Disconnecting {ident}…", f"Disconnecting {ident}: its credentials are being erased.")
    if kind == "rc":
        services.rules.discard(user_id, ident)
        return PressAnswer("Cancelled; no rule was saved.", "❌ Cancelled.")
    rule = services.rules.get(user_id, ident)
    if rule is None or not services.rules.remove(user_id, ident):
        return PressAnswer("That rule is already gone.")
    services.audit.append(user_id, "rule_removed", services.clock(), rule_id=ident, rule=describe(rule))
    return PressAnswer("Rule removed.", f"🗑 Removed: {describe(rule)}")
