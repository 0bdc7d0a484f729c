"""Every job Deputy queues names a function that exists, by a `JobPath`, never by a string written
at the call; and a job queued under a path from before the packages moved still runs."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import time
import types
from pathlib import Path

from pydantic import SecretStr
from redis import Redis
from rq import Queue, SimpleWorker
from rq.serializers import JSONSerializer

from deputy.core.records.outbox import OUTBOX_STREAM, OutboxMessage
from deputy.core.records.payloads import ACTIONS_QUEUE
from deputy.queue import job_paths
from deputy.queue.job_paths import ALL, MOVED, DeputyJob, JobPath, current_path
from deputy.vault import CredentialKind, KdfCost, Vault

CHECKOUT = Path(__file__).resolve().parent.parent
ENQUEUERS = {"enqueue", "enqueue_at", "enqueue_in", "enqueue_call", "create_job"}


def test_every_job_path_imports_to_a_function() -> None:
    declared = [value for value in vars(job_paths).values() if isinstance(value, JobPath)]
    assert set(declared) == set(ALL), "a JobPath is missing from job_paths.ALL"
    for path in ALL:
        assert callable(path.load()), path


def test_every_moved_path_runs_a_declared_job() -> None:
    assert set(MOVED.values()) <= set(ALL)
    assert current_path("workers.jobs.run_goal_step") == "deputy.apps.agent_worker.run_goal_step"
    assert current_path("deputy.apps.executor.execute_action") == "deputy.apps.executor.execute_action"


def _string_job_paths(tree: ast.AST) -> list[int]:
    """Lines where a job function is written as a string: an enqueue's first argument, or a
    dotted string naming something inside `deputy.` anywhere in the code."""
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ENQUEUERS
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.append(node.lineno)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _names_a_function(node.value):
            found.append(node.lineno)
    return found


def _names_a_function(text: str) -> bool:
    """Whether `text` is the dotted path of a function in Deputy (not of a module or a package)."""
    if not text.startswith("deputy.") or " " in text or text.count(".") < 2:
        return False
    module, _, name = text.rpartition(".")
    try:
        found = getattr(importlib.import_module(module), name, None)
    except ImportError:
        return True  # the path of a module that does not exist: a job that could never run
    if found is None:
        try:  # neither a module nor anything in one: a dead path
            return importlib.util.find_spec(text) is None
        except ImportError:
            return True
    return callable(found) and not isinstance(found, types.ModuleType)


def test_no_code_names_a_job_by_a_string_of_its_own() -> None:
    offenders = {}
    for path in (CHECKOUT / "deputy").rglob("*.py"):
        if path.name == "job_paths.py" and path.parent.name == "queue":
            continue
        lines = _string_job_paths(ast.parse(path.read_text(encoding="utf-8")))
        if lines:
            offenders[str(path.relative_to(CHECKOUT))] = lines
    assert offenders == {}, "name jobs with deputy.queue.job_paths, where a test checks each one imports"


def test_the_check_above_sees_a_string_job_path() -> None:
    tree = ast.parse('queue.enqueue("deputy.apps.executor.remind_card_expiry", payload)\n'
                     'FUNC = "deputy.executor.card_reminders.remind"\n')
    assert sorted(_string_job_paths(tree)) == [1, 1, 2]


def test_a_reminder_queued_under_its_old_path_still_reaches_the_user(redis: Redis) -> None:
    # Scheduled by an older Deputy months ago, under the path the function had then.
    vault = Vault(redis, SecretStr("k"), kdf=KdfCost(time_cost=1, memory_cost_kib=1024, parallelism=1))
    today = time.gmtime()
    expiry = f"{today.tm_mon:02d}/{today.tm_year % 100:02d}"
    vault.put(9, "cred:card/main", SecretStr("4111111111111111"), CredentialKind.card, "Everyday Visa",
              {"holder": "D", "expiry": expiry})
    queue = Queue(ACTIONS_QUEUE, connection=redis, serializer=JSONSerializer)
    queue.enqueue("executor.card_reminders.remind",
                  {"user_id": 9, "chat_id": 9, "handle": "cred:card/main", "expiry": expiry})
    SimpleWorker([queue], connection=redis, serializer=JSONSerializer, job_class=DeputyJob).work(burst=True)
    texts = [OutboxMessage.model_validate_json(f[b"json"]).text for _, f in redis.xrange(OUTBOX_STREAM)]
    assert any("Heads-up" in text and "Everyday Visa" in text for text in texts)
