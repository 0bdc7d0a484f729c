"""/delete_me erases everything of the user, each store by its own keys, and nothing of anyone else."""

from __future__ import annotations

import os

from pydantic import SecretStr
from redis import Redis

from deputy.agent.goals import Goal, GoalStore
from deputy.agent.uploads import Uploads
from deputy.connectors.custom import CustomConnector, CustomConnectors
from deputy.connectors.travel.planner import option_for
from deputy.connectors.travel.trip_store import TripStore
from deputy.connectors.web.states import BrowserStates
from deputy.core.records.actions import Action
from deputy.core.confidential import ConfidentialKeys, WaitingWork
from deputy.core.accounts.connect_links import ConnectLinks
from deputy.core.records.effects import EffectClass
from deputy.core.records.outbox import MESSAGE_REF_KEY, OUTBOX_HELD, SENT_KEY, Outbox, OutboxMessage
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from deputy.executor.erasure import STORES, erase_user
from deputy.executor.review_context import add_contact
from deputy.memory import MemoryItem, MemoryStore
from deputy.sentinel.provenance import UntrustedItem
from deputy.sentinel.rules import UserRule
from deputy.sentinel.stores.action_store import ActionStore
from deputy.sentinel.stores.approvals import ApprovalRequest, ApprovalStore, new_approval_id
from deputy.sentinel.stores.audit import AuditLog
from deputy.sentinel.stores.rule_store import RuleStore
from tests_support import everything_in_redis
from deputy.vault import KdfCost, Vault, VaultKey
from deputy.queue.dispatch import action_unit, erase_user_units, goal_unit
from deputy.queue.inflight import Inflight, Registration
from deputy.queue.job_paths import RUN_GOAL_STEP
from tests.connectors.test_trip_planner import flight, room

ANN, BOB = 41, 42
CHEAP = KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1)


def test_credentials_files_and_browser_state_of_the_user_are_erased_and_nobody_elses(redis: Redis) -> None:
    vault = Vault(redis, SecretStr("the vault key"), kdf=CHEAP)
    states = BrowserStates(redis, VaultKey(os.urandom(32)).sealer("browser"))
    uploads = Uploads(redis)
    for user in (ANN, BOB):
        vault.put(user, "cred:email/smtp", SecretStr(f"password-of-{user}"), "password", "Mail")
        uploads.put(user, "notes.txt", "text/plain", f"notes of {user}".encode())
        states.save(user, {"cookies": [{"name": "sid", "value": f"session-{user}"}], "origins": []})

    erase_user(redis, ANN)

    assert not [k for k in redis.scan_iter("*") if str(ANN).encode() in k]
    assert vault.list(ANN) == [] and states.load(ANN) == (0, None)
    assert vault.get(BOB, "cred:email/smtp").get_secret_value() == f"password-of-{BOB}"
    assert states.load(BOB)[1]["cookies"][0]["value"] == f"session-{BOB}"
    assert len(list(redis.scan_iter(f"deputy:upload:{BOB}:*"))) == 1


CAROL, DAN = 610_001, 620_002  # ids no random token is likely to contain


def fill_every_store(redis: Redis, user_id: int, name: str) -> None:
    """What a user leaves behind after a while: a goal with an action waiting for approval, and the rest."""
    goal_id, action_id = f"g_{name}_goal", f"a_{name}_action"
    goals = GoalStore(redis)
    goals.save(Goal(id=goal_id, user_id=user_id, chat_id=user_id, text=f"a goal of {name}", created_at=1.0,
                    updated_at=1.0, untrusted=[UntrustedItem(origin=f"an email to {name}",
                                                             text=f"a page {name} read", at=1.0)]))
    goals.store_result(goal_id, "r1", f"a long result for {name}", user_id)
    ActionStore(redis).submit(Action(
        id=action_id, goal_id=goal_id, user_id=user_id, chat_id=user_id, connector="email", operation="send_email",
        effect=EffectClass.communicate, arguments={"to": [f"{name}@example.org"]}, targets=[f"{name}@example.org"],
        tool_call_id="call_1", created_at=1.0,
    ))
    approval_id = new_approval_id()
    ApprovalStore(redis).create(ApprovalRequest(
        id=approval_id, action_id=action_id, goal_id=goal_id, user_id=user_id, chat_id=user_id,
        fingerprint="f" * 64, reasons=[f"it emails {name}"], created_at=1.0, expires_at=10**10,
    ))
    audit = AuditLog(redis, keep=1)  # a window of one: the earlier entries are folded into a checkpoint
    for _ in range(3):
        audit.append(user_id, "review", 1.0, goal_id=goal_id, note=f"reviewed for {name}")
    assert audit.checkpoint(user_id) is not None
    rule = UserRule(id=f"rule_{name}", text=f"ask before emailing {name}", verdict="ask", scope={}, conditions={},
                    created_at=1.0)
    RuleStore(redis).add(user_id, rule)
    RuleStore(redis).propose(user_id, rule)
    memory = MemoryStore(redis).add(user_id, MemoryItem(text=f"{name} likes trains", created_at=1.0, updated_at=1.0))
    assert memory is not None
    UserSettingsStore(redis).save(user_id, UserSettings(agent_name=f"Agent of {name}"))
    add_contact(redis, user_id, f"friend-of-{name}@example.org")
    ConnectLinks(redis).create(user_id, user_id, "email")
    outbox = Outbox(redis)
    outbox.send(user_id, f"news for {name}", dedupe_key=f"{goal_id}:done")
    outbox.send_photo(user_id, b"\x89PNG " + name.encode(), f"a picture for {name}")
    for mark in (f"{goal_id}:done", f"card:{approval_id}", f"expired:{approval_id}", f"memory:{memory.id}"):
        redis.set(SENT_KEY.format(mark), 1)
    redis.set(MESSAGE_REF_KEY.format(f"card:{approval_id}"), 99)
    redis.zadd(OUTBOX_HELD, {"1-0|" + OutboxMessage(chat_id=user_id, text=f"held for {name}").model_dump_json(): 1.0})
    inflight = Inflight(redis)
    for unit in (goal_unit(goal_id), action_unit(action_id)):
        inflight.register(Registration(unit=unit, queue="agent", func=RUN_GOAL_STEP.path,
                                       payload={"goal_id": goal_id}, job_id=f"job_{unit}", registered_at=1.0))
        redis.set(f"deputy:lease:{unit}", "held")
    CustomConnectors(redis).add(user_id, CustomConnector(kind="openapi", name=f"notes-{name}",
                                                         source=f"https://{name}.example/openapi.json"))
    trip = option_for("Chicago", 1, "USD", [flight("SA101-20270310", "189")], [flight("SA151-20270313", "200")],
                      [room(f"hotel-{name}", "495")])
    TripStore(redis).keep(user_id, [trip])  # a trip option offered and not booked


def test_every_store_forgets_the_user_and_only_them(redis: Redis) -> None:
    fill_every_store(redis, CAROL, "carolxq")
    fill_every_store(redis, DAN, "danxq")
    dan_before = everything_in_redis(redis).count("danxq")

    report = erase_user(redis, CAROL, stores=(*STORES, erase_user_units))

    left = [line for line in everything_in_redis(redis).splitlines() if "carolxq" in line or str(CAROL) in line]
    assert left == []
    assert (report.goals, report.actions, report.approvals, report.outbox_entries) == (1, 1, 1, 3)
    assert everything_in_redis(redis).count("danxq") == dan_before


def test_a_locked_confidential_user_is_erased_whole_key_material_included(redis: Redis) -> None:
    keys = ConfidentialKeys(redis, b"u" * 32)
    keys.turn_on(CAROL, "carol's long passphrase")
    fill_every_store(redis, CAROL, "carolxq")  # sealed as it is written
    fill_every_store(redis, DAN, "danxq")
    WaitingWork(redis).park_step(CAROL, "g_carolxq_goal", 1)
    assert keys.is_locked(CAROL)
    # Her words are sealed; what stays readable is ids and messages on their way to the chat (see the README).
    dump = everything_in_redis(redis)
    words = ["a goal of carolxq", "a long result for carolxq", "carolxq@example.org", "it emails carolxq",
             "reviewed for carolxq", "ask before emailing carolxq", "carolxq likes trains", "Agent of carolxq",
             "friend-of-carolxq", "carolxq.example/openapi.json", "hotel-carolxq", "a page carolxq read"]
    assert [w for w in words if w in dump] == []

    erase_user(redis, CAROL, stores=(*STORES, erase_user_units))

    left = [line for line in everything_in_redis(redis).splitlines() if "carolxq" in line or str(CAROL) in line
            or "cf1." in line]
    assert left == []
    assert not keys.enabled(CAROL), "the keys went too: a new account starts without confidential mode"
