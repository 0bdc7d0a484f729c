"""Reading a /rules sentence is model use like any other: counted against the user's plan, refused over it."""

from __future__ import annotations

from redis import Redis

from deputy.agent.model.chat_model import ModelReply, TokenUsage
from deputy.agent.rule_parser import TOOL_NAME
from deputy.agent.rule_proposer import RuleProposer
from deputy.agent.model.testing import FunctionModel, tool_call
from deputy.core.records.outbox import OUTBOX_STREAM, Outbox, OutboxMessage
from deputy.core.records.payloads import RuleRequestJob
from deputy.core.accounts.plans import parse_plans
from deputy.core.accounts.quotas import Quotas
from deputy.sentinel.stores.rule_store import RuleStore

BOOK = parse_plans("""
default = "free"
upgrade = "Ask Sam for Plus."
[plans.free]
title = "Free"
day = { tokens = { "*" = 10_000, "helper-mini" = 100 } }
""")
NOW = 1_900_000_000.0
RULE = {"verdict": "ask", "scope": {"effects": ["spend"]}, "conditions": {"amount_above": 50, "currency": "USD"}}


def _sent(redis: Redis) -> list[str]:
    return [OutboxMessage.model_validate_json(f[b"json"]).text for _, f in redis.xrange(OUTBOX_STREAM)]


def test_the_helper_models_tokens_count_and_a_user_over_its_limit_is_told_which(redis: Redis) -> None:
    def answer(messages, tools) -> ModelReply:
        reply = tool_call(TOOL_NAME, **RULE)
        return reply.model_copy(update={"usage": TokenUsage(prompt_tokens=50, completion_tokens=10)})

    model = FunctionModel(answer)
    quotas = Quotas(redis, BOOK)
    proposer = RuleProposer(model, RuleStore(redis), Outbox(redis), clock=lambda: NOW, quotas=quotas,
                            model_name="helper-mini")
    job = RuleRequestJob(user_id=5, chat_id=5, sentence="never spend more than $50 without asking")

    assert proposer.propose(job) == "proposed"
    assert proposer.propose(job) == "proposed"  # 60 of 100 used before it: still room
    assert proposer.propose(job) == "over plan"  # 120 of 100

    assert len(model.calls) == 2, "a user over the plan costs no model call"
    usage = quotas.usage(5, NOW)
    assert usage.used["day"]["tokens:helper-mini"] == 120 and usage.used["day"]["tokens"] == 120
    refusal = _sent(redis)[-1]
    assert "use of the model helper-mini" in refusal and "read that rule" in refusal and "Ask Sam" in refusal
