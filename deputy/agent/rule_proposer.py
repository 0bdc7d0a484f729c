"""Turns a /rules sentence into a proposed rule and asks the user to confirm its reading.

The helper model only proposes: what is enforced is the structured rule, shown to the
user in Deputy's own words (`describe`), and saved only when they press Save.
"""

from __future__ import annotations

import time
from datetime import date, datetime, timezone
from typing import Callable

from typing import Any

from deputy.agent.model.chat_model import ChatModel, ModelReply
from deputy.core.records.outbox import Button, Outbox, OutboxMessage
from deputy.core.accounts.quota_texts import refusal_text
from deputy.core.accounts.quotas import Quotas
from deputy.agent.rule_parser import RuleParseError, parse_rule
from deputy.sentinel.stores.rule_store import RuleStore
from deputy.core.records.payloads import RuleRequestJob


class CountedModel:
    """A `ChatModel` whose every call's tokens count against one user's plan, under the model's own name."""

    def __init__(self, model: ChatModel, quotas: Quotas, user_id: int, model_name: str | None,
                 clock: Callable[[], float]) -> None:
        self._model = model
        self._quotas = quotas
        self._user_id = user_id
        self._model_name = model_name
        self._clock = clock

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        reply = self._model.complete(messages, tools)
        self._quotas.count_tokens(self._user_id, self._model_name,
                                  reply.usage.prompt_tokens + reply.usage.completion_tokens, self._clock())
        return reply


class RuleProposer:
    def __init__(
        self, model: ChatModel, rules: RuleStore, outbox: Outbox, clock: Callable[[], float] = time.time,
        quotas: Quotas | None = None, model_name: str | None = None,
    ) -> None:
        """With `quotas`, reading a rule is model use like any other: refused over the plan, counted after."""
        self._model = model
        self._rules = rules
        self._outbox = outbox
        self._clock = clock
        self._quotas = quotas
        self._model_name = model_name

    def propose(self, job: RuleRequestJob) -> str:
        now = self._clock()
        today: date = datetime.fromtimestamp(now, tz=timezone.utc).date()
        model = self._model
        if self._quotas is not None:
            refusal, _ = self._quotas.over_tokens(job.user_id, now)
            if refusal is not None:
                zone = self._quotas.zone_of(job.user_id)
                self._outbox.send(job.chat_id, refusal_text(refusal, now, zone, self._quotas.book.upgrade,
                                                            "read that rule"))
                return "over plan"
            model = CountedModel(model, self._quotas, job.user_id, self._model_name, self._clock)
        parsed = parse_rule(job.sentence, model, today, "UTC")
        if isinstance(parsed, RuleParseError):
            self._outbox.send(job.chat_id, parsed.user_message)
            return "unreadable"
        rule = parsed.to_rule(created_at=self._clock())
        proposal_id = self._rules.propose(job.user_id, rule)
        notes = "".join(f"\n• {note}" for note in parsed.notes)
        self._outbox.put(
            OutboxMessage(
                chat_id=job.chat_id,
                text=f"I read your rule as:\n\n{parsed.description}{notes}\n\nSave it?",
                buttons=[[Button(text="Save rule", sign=f"rs:{proposal_id}"),
                          Button(text="Cancel", sign=f"rc:{proposal_id}")]],
            )
        )
        return "proposed"
