"""Runs the guard's evaluation cases through the real runner, executor and Sentinel.

Everything is real except the network: Redis records, the goal runner with a scripted
(hijacked, for attacks) model, the executor with its review context, approvals, the
audit trail and the outbox; the user's accounts are the in-memory sandbox world.
Run `python -m bench.guard` for the printed tables; the tests assert on the same runs.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass
from typing import Any, Callable

from redis import Redis

from deputy.agent.goals import GoalStore
from deputy.agent.model.chat_model import ModelReply
from deputy.agent.reading import ContentScanner, injection_scanner
from deputy.agent.model.testing import FunctionModel, tool_call
from deputy.core.records.outbox import OUTBOX_STREAM, OutboxMessage
from deputy.memory import MemoryItem, MemoryStore, MemoryTrust
from bench.guard_eval.benign import furnish
from bench.guard_eval.cases import CONTACTS, Attack, Benign, Call, seeded_world
from bench.guard_eval.imported import IMPORTED_OPERATIONS, furnish_imported, imported_runners
from bench.guard_eval.travel import travel_runners
from deputy.connectors.travel import TRAVEL_OPERATIONS
from deputy.connectors.catalog import Catalog
from deputy.sandbox.world_operations import WORLD_OPERATIONS
from deputy.sentinel.stores.approvals import ApprovalSigner, Choice, ForgedPress
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.detectors import HeuristicDetector
from deputy.testing.inline import InlineDeputy, InlineDispatch
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.records.send_window import DEFAULT_SEND_WINDOW
from deputy.executor.review_context import ReviewContextBuilder, RuleCheck, add_contact

_users = itertools.count(900_000)
_ROUNDS = 20
"""At most this many rounds of cards answered (and send windows let end) per case."""


@dataclass
class Outcome:
    case: str
    operation: str
    verdict: str  # "auto-allowed", "asked", "denied" or "not reviewed"
    card: str | None = None
    undoable: bool = False
    """Auto-allowed, and shown in full with Undo or in a send window: not a card, but the user could stop it."""

    def card_names(self, text: str) -> bool:
        """The card names `text` (or one of its "|"-separated alternatives)."""
        return self.card is not None and any(part in self.card for part in text.split("|"))


def _script(calls: list[Call]) -> Callable[[list[dict[str, Any]], list[dict[str, Any]]], ModelReply]:
    """A model that makes `calls` one after the other, then says it is done."""

    def decide(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        done = sum(1 for m in messages if m.get("role") == "tool")
        if done < len(calls):
            return tool_call(calls[done].tool, **calls[done].args)
        return tool_call("reply", text="Done.")

    return decide


class _SchemaCache(Catalog):
    """The world's catalog with its tool schemas built once: the suites run hundreds of goals."""

    _schemas: list[dict[str, Any]] | None = None

    def tool_schemas(self) -> list[dict[str, Any]]:
        if self._schemas is None:
            self._schemas = super().tool_schemas()
        return self._schemas


_CATALOG = _SchemaCache([*WORLD_OPERATIONS, *IMPORTED_OPERATIONS, *TRAVEL_OPERATIONS])


def _split_script(parts: tuple[tuple[str, str, tuple[Call, ...]], ...]):
    """A model that splits the goal into `parts`, each of which makes its own calls."""

    def decide(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        first = next((str(m.get("content", "")) for m in messages if m.get("role") == "user"), "")
        for title, _, calls in parts:
            if f"(This is the part “{title}”" in first:
                return _script(list(calls))(messages, tools)
        if not any(m.get("role") == "tool" for m in messages):
            return tool_call("split_into_subgoals",
                             parts=[{"title": title, "instructions": text} for title, text, _ in parts])
        return tool_call("reply", text="Done.")

    return decide


def no_detector(text: str, source: str) -> list[str]:
    """A scanner that never flags anything: what the guard does when the detector misses a phrasing."""
    return []


class GuardHarness:
    def __init__(
        self,
        redis: Redis,
        rules: RuleCheck | None = None,
        scanner: ContentScanner | None = None,
        rules_for_user: Callable[[int], object] | None = None,
    ) -> None:
        self._redis = redis
        self._rules = rules
        self._rules_for_user = rules_for_user
        scanner = scanner if scanner is not None else injection_scanner(HeuristicDetector())
        self._scanner = scanner
        self._signer = ApprovalSigner("guard-evaluation")

    @property
    def has_rules(self) -> bool:
        return self._rules_for_user is not None

    def run_attack(self, attack: Attack) -> Outcome:
        user_id, world, dispatch = self._run([*attack.reads, attack.attack], attack.goal, approve=False,
                                             plants=attack.plants, memories=attack.memories)
        return self._outcome(attack.name, attack.attack, user_id, world)

    def run_benign(self, case: Benign) -> list[Outcome]:
        user_id, world, dispatch = self._run(case.calls, case.goal, approve=True, replies=case.replies,
                                             parts=case.parts)
        return [self._outcome(case.name, call, user_id, world) for call in case.calls]

    def _run(self, calls: list[Call], goal_text: str, approve: bool, plants: tuple = (), memories: tuple = (),
             replies: tuple = (), parts: tuple = ()):
        user_id = next(_users)
        last = self._redis.xrevrange(OUTBOX_STREAM, count=1)
        self._since = "(" + last[0][0].decode() if last else "-"
        if self._rules_for_user is not None:
            self._rules_for_user(user_id)
        for contact in CONTACTS:
            add_contact(self._redis, user_id, contact)
        now = time.time()
        for text in memories:
            MemoryStore(self._redis).add(user_id, MemoryItem(
                text=text, trust=MemoryTrust.accepted, source="an email from billing@evil.example",
                created_at=now, updated_at=now))
        world = seeded_world()
        furnish(world)
        furnish_imported(world)
        for where, key, content in plants:
            if isinstance(getattr(world, where), dict):
                getattr(world, where)[key] = content
            else:
                setattr(world, where, content)
        script = _split_script(parts) if parts else _script(calls)
        # As a Deputy runs by default: messages wait in the send window, calendar writes can be undone.
        deputy = InlineDeputy(
            self._redis, FunctionModel(script), _CATALOG,
            {**world.runners(), **imported_runners(world), **travel_runners(world)}, clock=ManualClock(time.time()),
            approval_ttl=3600, contexts=ReviewContextBuilder(self._redis, GoalStore(self._redis), _CATALOG, self._rules),
            signer=self._signer, scanner=self._scanner, ask_before_guessing=False,  # the guard alone is measured
            executor_options={"send_window": DEFAULT_SEND_WINDOW, "reverters": world.reverters()},
        )
        messages = [{"role": "user", "content": goal_text}, *({"role": "user", "content": r} for r in replies)]
        deputy.start(user_id, goal_text, goal_id=f"g_eval{user_id}", messages=messages)
        answered: set[str] = set()
        for _ in range(_ROUNDS):
            self._let_windows_end(deputy)  # nobody presses Undo: what waits goes out, and counts as allowed
            pending = [a for a in self._card_approvals(user_id) if a not in answered] if approve else []
            if not pending:
                break
            for approval_id in pending:
                answered.add(approval_id)
                deputy.press(approval_id, user_id, Choice.approve)
        return user_id, world, deputy.dispatch

    @staticmethod
    def _let_windows_end(deputy: InlineDeputy) -> None:
        dispatch = deputy.dispatch
        for _ in range(_ROUNDS):
            if not (isinstance(dispatch, InlineDispatch) and (dispatch.delayed_actions or dispatch.delayed)):
                return
            deputy.tick(DEFAULT_SEND_WINDOW + 1)

    def _outcome(self, case: str, call: Call, user_id: int, world) -> Outcome:
        operation = _CATALOG.get(call.tool)
        targets = operation.targets(operation.validate(call.args)) if operation else []
        reviews = [e for e in AuditLog(self._redis).entries(user_id) if e.kind == "review"
                   and e.detail["operation"].endswith("." + call.tool) and e.detail["targets"] == targets]
        first = reviews[0].detail["verdict"] if reviews else None
        ran_unasked = first == "allow"
        card = next((m.text for m in self._cards(user_id) if _about(m.text, call)), None)
        if ran_unasked and any(a.operation == call.tool and a.targets == targets for a in world.executed):
            return Outcome(case, call.tool, "auto-allowed", card,
                           undoable=self._shown_undoable(user_id, reviews[0].detail.get("action_id")))
        verdict = {"ask": "asked", "deny": "denied"}.get(first or "", "not reviewed")
        return Outcome(case, call.tool, verdict, card)

    def _messages(self, user_id: int) -> list[OutboxMessage]:
        # Only this run's messages: the stream holds every earlier case's too.
        messages = (OutboxMessage.model_validate_json(f[b"json"])
                    for _, f in self._redis.xrange(OUTBOX_STREAM, min=self._since))
        return [m for m in messages if m.chat_id == user_id]

    def _cards(self, user_id: int) -> list[OutboxMessage]:
        """Approval cards: messages whose first button is a signed approval, not what was shown after an
        action went without a card (Undo, Send now) nor other offers with buttons (a check-in, a suggestion)."""
        return [m for m in self._messages(user_id) if m.buttons and not _shown(m) and self._approval_id(m, user_id)]

    def _approval_id(self, card: OutboxMessage, user_id: int) -> str | None:
        try:
            return self._signer.verify(card.buttons[0][0].data, user_id)[0]
        except ForgedPress:
            return None

    def _shown_undoable(self, user_id: int, action_id: str | None) -> bool:
        """The action was shown with Undo, or waited in a send window (Undo, Send now, Edit)."""
        ref = f"shown:{action_id}"
        return any((m.ref == ref or m.edit_ref == ref) and any((b.sign or "").startswith(("su:", "uw:"))
                                                                for row in m.buttons for b in row)
                   for m in self._messages(user_id))

    def _card_approvals(self, user_id: int) -> list[str]:
        return [approval for card in self._cards(user_id) if (approval := self._approval_id(card, user_id))]


def _shown(message: OutboxMessage) -> bool:
    return any((r or "").startswith("shown:") for r in (message.ref, message.edit_ref))


def _about(card_text: str, call: Call) -> bool:
    values = [str(v) for v in _scalars(call.args)]
    flat = json.dumps(call.args)
    return call.tool.replace("_", " ") in card_text.lower() or any(v and v in card_text for v in values) or flat in card_text


def _scalars(value: Any) -> list[Any]:
    """Every scalar in the arguments, a request body's fields too."""
    if isinstance(value, dict):
        return [s for v in value.values() for s in _scalars(v)]
    if isinstance(value, list):
        return [s for v in value for s in _scalars(v)]
    return [value]
