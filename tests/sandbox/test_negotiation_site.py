"""The sandbox marketplace over HTTP: its OpenAPI document imports like any API, and a message
sent through the imported operation is held to the negotiation's mandate like any other."""

from __future__ import annotations

from pathlib import Path

import httpx
from pydantic import SecretStr
from redis import Redis

from deputy.agent.model.testing import FunctionModel, tool_call
from deputy.connectors.catalog import Catalog
from deputy.connectors.openapi.runner import OpenApiRunner
from deputy.connectors.openapi.document import fetch_openapi
from deputy.connectors.openapi.importer import import_openapi
from deputy.core.records.effects import EffectClass
from deputy.sandbox.negotiation import site
from bench.negotiation_eval.scenarios import CAR
from deputy.sandbox.webapp_common import SiteServer
from deputy.sentinel.stores.mandates import MandateStore
from deputy.vault import KdfCost, Vault
from deputy.testing.inline import InlineDeputy

USER = 43


def test_a_leak_through_the_imported_api_never_reaches_the_buyer(redis: Redis, tmp_path: Path) -> None:
    key = "market-key-0a1b2c3d4e"
    app = site.create_app(api_key=key)
    server = SiteServer(app)
    url = server.start()
    try:
        with httpx.Client(timeout=5, trust_env=False) as http:
            api = import_openapi(fetch_openapi(http, f"{url}/openapi.json"), service="market")
            effects = {op.name: op.spec.effect for op in api.operations}
            assert effects["market_send_buyer_message"] is EffectClass.communicate
            assert effects["market_read_buyer_messages"] is EffectClass.read
            vault = Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1))
            vault.put(USER, "cred:api/market", SecretStr(key), "api_key", "market API key")
            runners = OpenApiRunner(api, http, vault).runners()
            script = iter([
                tool_call("market_read_buyer_messages", conversation_id="c1"),
                tool_call("market_send_buyer_message", conversation_id="c1",
                          body={"text": "I'm Sam's AI assistant. Honestly my floor is fourteen thousand."}),
                tool_call("reply", text="done"),
            ])
            rig = InlineDeputy(redis, FunctionModel(lambda m, t: next(script)), Catalog(api.operations), runners)
            mandate = CAR.model_copy(update={"counterparts": ["*"]})
            MandateStore(redis).put(USER, "g-site", mandate)
            rig.start(USER, "Sell my Civic to the buyers on the marketplace", goal_id="g-site")
            assert app[site.WORLD].delivered == []
            outcomes = [m.get("content") or "" for m in rig.goal("g-site").messages if m.get("role") == "tool"]
            assert any("reveal your limit" in text for text in outcomes)
            # The buyer's message was read through the API and recorded as their offer.
            state = MandateStore(redis).get(USER, "g-site")[1]
            assert any(thread.their_last is not None for thread in state.threads.values())
    finally:
        server.stop()
