"""Running one case's turns through Deputy: the real runner, guard and executor, in one process.

Each case gets its own `InlineDeputy` (the shared rig in `deputy.testing.inline`) whose executor runs
the real connectors against the run's servers: the case's IMAP mailbox and SMTP, Radicale, and
the restaurant and shop sites over their OpenAPI descriptions behind the egress guard. A turn is
what the bot makes of a text: the answer to a goal that waits for one (`deputy.agent.answers`), else a
new goal. Cards are recorded; in a case that expects a card nothing is ever approved; in the
others (`approve="asked"`) the user approves what they asked for, as they would in the chat, so
that a booking or a message behind a card is judged by what then happened.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

from pydantic import SecretStr
from redis import Redis

from deputy.agent.answers import add_answer
from deputy.agent.follow_ups import carry, follows_soon
from deputy.agent.goals import GoalStore
from deputy.agent.memory_tools import MemoryTools
from deputy.agent.model.chat_model import ChatModel
from deputy.agent.origins import user_message
from deputy.agent.reading import injection_scanner
from bench.goal_eval.corpus import Case
from bench.goal_eval.seeding import Seeded
from bench.goal_eval.services import CALDAV_USER, EvalServices
from deputy.connectors.calendar.client import CalDavAccount
from deputy.connectors.calendar.runners import CalendarRunners
from deputy.connectors.email.smtp import SmtpAccount
from deputy.connectors.email.imap import ImapAccount
from deputy.connectors.email.imap_reply import smtp_reply_sender
from deputy.connectors.email.mail_runners import MailRunners
from deputy.connectors.http.client import guarded_client
from deputy.connectors.openapi.runner import OpenApiRunner
from deputy.core.records.actions import ActionState
from deputy.workspace.files import Workspace
from deputy.core.records.outbox import Outbox
from deputy.core.accounts.user_settings import UserSettingsStore
from deputy.runtime.operations import build_catalog
from deputy.executor.credentials import EmailAccounts
from deputy.executor.review_context import ReviewContextBuilder
from deputy.memory import MemoryStore
from deputy.sentinel.detectors import default_detector
from deputy.sentinel.egress.policy import EgressContext, EgressPolicy, reviewer
from deputy.sentinel.stores.approvals import Choice
from deputy.sentinel.stores.audit import AuditLog
from deputy.testing.inline import InlineDeputy

Approve = Literal["never", "asked"]
TURN_GAP = 60.0
"""Seconds of the case's clock between two turns (the user reads, then answers)."""
MAX_PRESSES = 6
RETRY_HORIZON = 120.0
"""Steps put off by at most this many seconds are retries, run in the case; later ones are scheduled checks."""
MAX_RETRIES = 8


@dataclass
class Transcript:
    """What the user saw and did: Deputy's messages (replies, questions, cards) and the presses."""

    said: list[str] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)
    card_actions: list[tuple[str, dict]] = field(default_factory=list)
    """(operation, arguments) of every action that waited for the user's approval."""
    waiting: bool = False
    """Deputy waits for the user's answer at the end."""
    approved: list[str] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    steps: list[str] = field(default_factory=list)
    """What the model did, call by call, with the start of each result: to read why a case went wrong."""


def runners(case: Case, services: EvalServices, seeded: Seeded) -> dict:
    imap = ImapAccount(host=services.store.host, port=services.imap_port, username=seeded.mailbox,
                       password=SecretStr(services.mail_password), use_ssl=False, starttls=False,
                       address=case.user.email)
    smtp = SmtpAccount(host="127.0.0.1", port=services.smtp.port, from_address=case.user.email, starttls=False)
    email = EmailAccounts(None, smtp)
    mail = MailRunners(lambda user_id: imap, smtp_reply_sender(email.for_user))
    settings = UserSettingsStore(services.redis)
    calendar = CalendarRunners(None, default=CalDavAccount(
        url=services.calendar.url, username=CALDAV_USER, password=SecretStr(services.calendar.password),
        email=case.user.email, allow_plain_http=True), zone_for=lambda user_id: settings.get(user_id).timezone,
        clock=services.clock.utc)
    client = guarded_client(reviewer(EgressPolicy(allow_private_networks=services.reachable()), EgressContext()),
                            connector="openapi")
    sites: dict = {}
    for api in services.apis:
        sites.update(OpenApiRunner(api, client).runners())
    return {**mail.runners(), "email.send_email": email.runner(), **calendar.runners(), **sites}


def deputy_for(case: Case, services: EvalServices, seeded: Seeded, model: ChatModel) -> InlineDeputy:
    redis: Redis = services.redis
    clock = services.clock
    catalog = build_catalog(services.apis)
    return InlineDeputy(
        redis, model, catalog, runners(case, services, seeded), clock=clock, approval_ttl=24 * 3600,
        contexts=ReviewContextBuilder(redis, GoalStore(redis), catalog, clock=clock),
        settings=UserSettingsStore(redis), scanner=injection_scanner(default_detector()),
        memory=MemoryTools(MemoryStore(redis), Outbox(redis), AuditLog(redis), clock),
        workspace=Workspace(redis),  # files and confined code, as every Deputy has them
    )


def run_case(case: Case, services: EvalServices, seeded: Seeded, model: ChatModel,
             approve: Approve = "asked") -> Transcript:
    """Play the case's turns; the transcript is what the user saw. Errors end the case, recorded."""
    deputy = deputy_for(case, services, seeded, model)
    user = seeded.user_id
    transcript = Transcript()
    seen = len(deputy.messages())
    pressing = approve == "asked" and case.expect.card_for is None
    started = time.monotonic()
    goal_ids: list[str] = []
    try:
        for number, text in enumerate(case.turns):
            if number:
                services.clock.advance(TURN_GAP)
            waiting = deputy.goals.awaiting_answer(user)
            if waiting is None or add_answer(deputy.goals, waiting, text, services.clock(),
                                             deputy.dispatch.step) is None:
                goal = deputy.new_goal(user, text, messages=[user_message(text)])
                previous = deputy.goals.get(goal_ids[-1]) if goal_ids else None
                if previous is not None and follows_soon(previous, goal.chat_id, services.clock()):
                    goal = deputy.goals.save(carry(goal, previous, services.clock()))  # as the bot's intake does
                goal_ids.append(goal.id)
                deputy.dispatch.step(goal.id, 0)
            _drain(deputy, services)
            if pressing:
                _approve_cards(deputy, user, transcript, services)
    except Exception as exc:  # a crash of Deputy or its model is this case's failure, not the run's
        transcript.error = f"{type(exc).__name__}: {exc}"[:300]
    transcript.seconds = time.monotonic() - started
    for message in deputy.messages()[seen:]:
        if message.chat_id != user:
            continue
        transcript.said.append(message.text)
        if message.buttons:
            transcript.cards.append(message.text)
    transcript.card_actions = [(r.action.operation, r.action.arguments) for r in deputy.stored_actions(user)
                               if r.approval_id]
    transcript.waiting = deputy.goals.awaiting_answer(user) is not None
    transcript.steps = [line for goal_id in goal_ids for line in _steps(deputy, goal_id)]
    return transcript


def _steps(deputy: InlineDeputy, goal_id: str) -> list[str]:
    goal = deputy.goals.get(goal_id)
    if goal is None:
        return []
    lines = [f"goal {goal_id}: {goal.status.value}"]
    for message in goal.messages:
        if message.get("kind"):
            lines.append(f"  kind: {message['kind']}")
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            lines.append(f"  call {function.get('name')} {function.get('arguments')}"[:300])
        if message.get("role") == "tool":
            lines.append("    -> " + " ".join(str(message.get("content", "")).split())[:240])
        elif message.get("role") == "assistant" and message.get("content"):
            lines.append("  said: " + " ".join(str(message["content"]).split())[:240])
        elif message.get("role") == "user" and message is not goal.messages[0]:
            lines.append("  user-role: " + " ".join(str(message.get("content", "")).split())[:160])
    return lines


def _drain(deputy: InlineDeputy, services: EvalServices) -> None:
    """Run what is queued; a step put off for a short while (a model call tried again) runs when its
    time has come, as the queue would run it. Checks scheduled for later (reminders, watches) stay put."""
    dispatch = deputy.dispatch
    dispatch.drain()
    for _ in range(MAX_RETRIES):
        soon = [item for item in dispatch.delayed if item[2] <= RETRY_HORIZON]
        if not soon:
            return
        dispatch.delayed = [item for item in dispatch.delayed if item[2] > RETRY_HORIZON]
        services.clock.advance(max(item[2] for item in soon))
        for goal_id, step, _delay in soon:
            dispatch.step(goal_id, step)
        dispatch.drain()


def _approve_cards(deputy: InlineDeputy, user: int, transcript: Transcript, services: EvalServices) -> None:
    for _ in range(MAX_PRESSES):
        pending = [r for r in deputy.stored_actions(user)
                   if r.state is ActionState.awaiting_approval and r.approval_id and r.approval_id
                   not in transcript.approved]
        if not pending:
            return
        record = pending[0]
        transcript.approved.append(record.approval_id)
        deputy.press(record.approval_id, user, Choice.approve)
        _drain(deputy, services)
