"""Plan figures for `/metrics`, read from Redis at each scrape: users per plan, their use today, on hold.

Summed per plan (a label per user would grow without bound); `deputy users list` has the
per-user figures. "Today" is each user's own day. Every process that reports them reports
the same figures: aggregate with `max`.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable

from prometheus_client.core import GaugeMetricFamily
from redis.exceptions import RedisError

from deputy.core.accounts.quotas import Quotas


class PlanCollector:
    def __init__(self, quotas: Quotas, clock: Callable[[], float] = time.time) -> None:
        self._quotas = quotas
        self._clock = clock

    def collect(self) -> Iterable[GaugeMetricFamily]:
        users = GaugeMetricFamily("deputy_plan_users", "Users per plan (on hold: suspended by the operator).",
                                  labels=["plan", "state"])
        goals = GaugeMetricFamily("deputy_plan_goals_today", "Goals started today (each user's own day), per plan.",
                                  labels=["plan"])
        month = GaugeMetricFamily("deputy_plan_goals_month", "Goals started this month, per plan.", labels=["plan"])
        tokens = GaugeMetricFamily("deputy_plan_tokens_today", "Model tokens used today, per plan.", labels=["plan"])
        active = GaugeMetricFamily("deputy_plan_goals_in_progress", "Goals not finished yet, per plan.",
                                   labels=["plan"])
        figures: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        try:
            now = self._clock()
            for user_id in self._quotas.accounts.users():
                usage = self._quotas.usage(user_id, now)
                row = figures[usage.plan.name]
                row["on_hold" if usage.suspended else "active"] += 1
                row["goals"] += usage.used["day"].get("goals", 0)
                row["month"] += usage.used["month"].get("goals", 0)
                row["tokens"] += usage.used["day"].get("tokens", 0)
                row["held"] += usage.held
        except RedisError:
            return []
        for plan in self._quotas.book.plans:
            row = figures[plan]
            users.add_metric([plan, "active"], row["active"])
            users.add_metric([plan, "on_hold"], row["on_hold"])
            goals.add_metric([plan], row["goals"])
            month.add_metric([plan], row["month"])
            tokens.add_metric([plan], row["tokens"])
            active.add_metric([plan], row["held"])
        return [users, goals, month, tokens, active]
