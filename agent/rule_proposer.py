"""Turns a /rules sentence into a proposed rule and asks the user to confirm its reading.

The helper model only proposes: what is enforced is the structured rule, shown to the
user in Deputy's own words (`describe`), and saved only when they press Save.
"""

from __future__ import annotations

import time
from datetime import date, datetime, timezone
from typing import Callable

from agent.model import ChatModel
from core.outbox import Button, Outbox, OutboxMessage
from agent.rule_parser import RuleParseError, parse_rule
from sentinel.stores.rule_store import RuleStore
from core.payloads import RuleRequestJob


class RuleProposer:
    def __init__(
        self, model: ChatModel, rules: RuleStore, outbox: Outbox, clock: Callable[[], float] = time.time
    ) -> None:
        self._model = model
        self._rules = rules
        self._outbox = outbox
        self._clock = clock

    def propose(self, job: RuleRequestJob) -> str:
        today: date = datetime.fromtimestamp(self._clock(), tz=timezone.utc).date()
        parsed = parse_rule(job.sentence, self._model, today, "UTC")
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
