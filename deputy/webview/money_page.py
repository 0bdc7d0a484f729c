"""The money page: what was spent this month against the user's spending rules, every purchase,
negotiations as figures (asked, agreed, saved) and the plan's limits with what is used of them.

Read from the records code keeps (receipts written when a payment went through, the audit entry of
each purchase a spending rule let through without a tap, the negotiation state the executor records
from what was actually sent and received, the quota counters); nothing here decides.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timezone
from decimal import Decimal
from html import escape
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from deputy.bot.negotiation import negotiations_text
from deputy.bot.services import BotServices
from deputy.bot.texts import shorten
from deputy.core.accounts.quota_texts import what
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.core.records.receipts import Receipt, ReceiptStore
from deputy.sentinel.negotiation.mandate import Mandate
from deputy.sentinel.negotiation.state import NegotiationState, Thread
from deputy.sentinel.rules import RequestedVerdict, UserRule, describe
from deputy.sentinel.stores.mandates import MandateStore
from deputy.webview.layout import when


def month_start(now: float, zone: str | None) -> float:
    """Midnight starting the user's current month, in their time zone."""
    try:
        tz: ZoneInfo | timezone = ZoneInfo(zone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        tz = timezone.utc
    local = datetime.fromtimestamp(now, tz=tz)
    return local.replace(day=1, hour=0, minute=0, second=0, microsecond=0).timestamp()


def _sums(receipts: list[Receipt]) -> str:
    totals: dict[str, Decimal] = defaultdict(Decimal)
    for r in receipts:
        totals[r.currency] += r.total
    return ", ".join(f"{v:,.2f} {k}" for k, v in totals.items()) or "nothing"


def _capped(rule: UserRule) -> bool:
    return (rule.verdict is RequestedVerdict.allow and rule.conditions.amount_at_most is not None
            and rule.conditions.currency is not None)


def this_month(services: BotServices, user_id: int, receipts: list[Receipt], now: float) -> str:
    """Spent this month, and how much of it went through without a tap under each spending rule."""
    zone = UserSettingsStore(services.redis).get(user_id).timezone
    start = month_start(now, zone)
    month = [r for r in receipts if r.paid_at >= start]
    under: dict[str, set[str]] = defaultdict(set)  # rule id -> actions it let through this month
    for entry in services.audit.entries(user_id):
        if entry.kind == "purchase_within_rule" and entry.at >= start:
            under[str(entry.detail.get("rule_id"))].add(str(entry.detail.get("action_id")))
    rows = []
    for rule in (r for r in services.rules.list(user_id) if _capped(r)):
        spent = [r for r in month if r.action_id in under.get(rule.id, set())]
        cap = f"{rule.conditions.amount_at_most:,.2f} {rule.conditions.currency}"
        rows.append(f"<tr><td>{escape(shorten(rule.text or describe(rule), 160))}</td><td>{escape(cap)} a purchase"
                    f"</td><td>{len(spent)}</td><td>{escape(_sums(spent))}</td></tr>")
    asked = len(month) - sum(1 for r in month if any(r.action_id in ids for ids in under.values()))
    head = (f"<p class='figure'>Spent this month: <strong>{escape(_sums(month))}</strong> in {len(month)} "
            f"purchase{'s' if len(month) != 1 else ''} ({asked} approved by you with a tap).</p>")
    table = ("<table><thead><tr><th scope='col'>Spending rule</th><th scope='col'>Limit</th><th scope='col'>"
             "Without a tap this month</th><th scope='col'>Spent under it</th></tr></thead><tbody>"
             + "".join(rows) + "</tbody></table>") if rows else (
        "<p>No spending rule lets a purchase through without you: every purchase asks you first.</p>")
    return f"<h2>This month</h2><section class='card'>{head}{table}</section>"


def _first(thread: Thread, who: str) -> Decimal | None:
    return next((r.amount for r in thread.history if r.who == who and r.amount is not None), None)


def outcome_row(counterpart: str, mandate: Mandate, state: NegotiationState, thread: Thread) -> str:
    """One counterpart's negotiation as figures: what was asked, what was agreed, what that saved."""
    agreed = thread.closed_at if thread.closed_at is not None else (
        state.accepted if state.accepted_with == counterpart else None)
    if mandate.role.sells:  # asked: our listing; the gain is over their first offer
        asked, base = mandate.opening or _first(thread, "us"), _first(thread, "them")
        gained = agreed - base if agreed is not None and base is not None else None
        saved = f"{mandate.money(gained)} over their first offer" if gained is not None else "—"
    else:  # asked: the bill as it was, or their first price; saved: how much less is paid
        asked = mandate.opening or _first(thread, "them")
        saved = mandate.money(asked - agreed) if agreed is not None and asked is not None else "—"
    figure = (lambda amount: mandate.money(amount) if amount is not None else "—")
    last = "" if agreed is not None else (f" (still open: theirs {figure(thread.their_last)}, ours "
                                          f"{figure(thread.our_last)}, round {thread.rounds}/{mandate.max_rounds})")
    return (f"<tr><td>{escape(mandate.subject)}</td><td>{escape(counterpart)}</td><td>{escape(figure(asked))}</td>"
            f"<td>{escape(figure(agreed))}{escape(last)}</td><td>{escape(saved)}</td></tr>")


def negotiations(services: BotServices, user_id: int) -> str:
    store = MandateStore(services.redis)
    rows = []
    for goal_id in store.goal_ids(user_id):
        found = store.get(user_id, goal_id)
        if found is not None:
            mandate, state = found
            rows += [outcome_row(c, mandate, state, t) for c, t in sorted(state.threads.items())]
    if not rows:
        return "<h2>Negotiations</h2><p>No negotiations yet.</p>"
    details = negotiations_text(services, user_id)
    return ("<h2>Negotiations</h2><section class='card'><table><thead><tr><th scope='col'>What</th><th scope='col'>"
            "With</th><th scope='col'>Asked</th><th scope='col'>Agreed</th><th scope='col'>Saved</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table><details><summary>The mandates</summary><pre>{escape(details)}"
            "</pre></details></section>")


def plan_usage(services: BotServices, user_id: int, now: float) -> str:
    """The plan's daily and monthly limits with what is used of each."""
    if services.quotas is None:
        return ""
    usage = services.quotas.usage(user_id, now)
    rows = []
    for period, title in (("day", "Today"), ("month", "This month")):
        window, used = usage.plan.window(period), usage.used.get(period, {})
        for counter in dict.fromkeys(["goals", "checks", "tokens", *window.counters()]):
            limit = window.limit(counter)
            rows.append(f"<tr><td>{title}</td><td>{escape(what(counter))}</td><td>{used.get(counter, 0):,}</td>"
                        f"<td>{f'{limit:,}' if limit is not None else 'no limit'}</td></tr>")
    return (f"<h2>Your plan: {escape(usage.plan.title)}</h2><section class='card'><table><thead><tr><th scope='col'>"
            "When</th><th scope='col'>What</th><th scope='col'>Used</th><th scope='col'>Limit</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></section>")


def purchases(receipts: list[Receipt]) -> str:
    if not receipts:
        return "<h2>Purchases</h2><p>No purchases yet.</p>"
    rows = "".join(
        f"<tr><td>{escape(when(r.paid_at))}</td><td>{escape(r.merchant)}</td><td>"
        f"{escape(', '.join(r.items) or 'your order')}</td><td>{escape(f'{r.total:,.2f}')} {escape(r.currency)}</td>"
        f"<td>{escape(r.card)}</td><td><a href='/web/goal/{escape(r.goal_id)}'>goal</a></td></tr>"
        for r in reversed(receipts))
    return ("<h2>Purchases</h2><section class='card'><table><thead><tr><th scope='col'>When</th><th scope='col'>Shop"
            "</th><th scope='col'>What</th><th scope='col'>Paid</th><th scope='col'>Card</th><th scope='col'></th>"
            f"</tr></thead><tbody>{rows}</tbody></table><p>All time: {escape(_sums(receipts))}</p></section>")


def money_body(services: BotServices, user_id: int, now: float) -> str:
    receipts = ReceiptStore(services.redis).list(user_id)
    return (this_month(services, user_id, receipts, now) + purchases(receipts) + negotiations(services, user_id)
            + plan_usage(services, user_id, now))
