"""The queues whose depth and oldest job's age every worker reports on `/metrics`."""

from __future__ import annotations

from deputy.agent.model.model_requests import REQUESTS_STREAM
from deputy.core.infrastructure.metrics import QueueCollector
from deputy.core.infrastructure.redis_clients import probe_client
from deputy.core.records.payloads import ACTIONS_QUEUE, AGENT_QUEUE


def queue_collector(redis_url: str) -> QueueCollector:
    """The agent and actions queues, and the model calls waiting at the gateway ("model").

    Read with a probe client: a scrape while Redis is away answers at once, without figures."""
    return QueueCollector(probe_client(redis_url), (AGENT_QUEUE, ACTIONS_QUEUE), {"model": REQUESTS_STREAM})
