"""What each process really loads: the agent worker and the chat front ends never hold the vault,
the executor or a connector's runner, not even through a package's `__init__` or a lazy import.

The import contracts (`test_architecture.py`) check the arrows between packages; this checks the
promise itself, per process. Each app module is imported in a fresh interpreter; then every import
written inside a function of any Deputy module it loaded (a lazy import) is followed too, until
nothing new loads, and `sys.modules` is read. Imports only for type checkers are not followed.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parent.parent

PROBE = r'''
import ast, importlib, importlib.util, json, sys

def type_checking_only(node):
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")

def imports(tree):
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and type_checking_only(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("deputy"):
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.startswith("deputy"))
        stack.extend(ast.iter_child_nodes(node))

importlib.import_module(sys.argv[1])
followed = set()
while True:
    pending = sorted(m for m in list(sys.modules) if m.startswith("deputy") and m not in followed)
    if not pending:
        break
    for name in pending:
        followed.add(name)
        path = getattr(sys.modules.get(name), "__file__", None)
        if not path or not path.endswith(".py"):
            continue
        for target in imports(ast.parse(open(path, encoding="utf-8").read())):
            try:
                if importlib.util.find_spec(target) is not None:
                    importlib.import_module(target)
            except (ImportError, ValueError):
                pass  # `from package import name` where the name is not a module
print(json.dumps(sorted(sys.modules)))
'''

# A connector module that runs operations or talks to a service with the user's credentials.
RUNNER = re.compile(r"^deputy\.connectors\.(.+\.)?(runners?|mail_runners|smtp|imap|imap_accounts|browser|"
                    r"session|sockets|client|sent_copy|reverts|mail_reverts)$")
CREDENTIALED = ("deputy.vault", "deputy.executor", "deputy.credential_page", "deputy.apps.executor",
                "deputy.apps.connect_page")


def loaded_by(app: str) -> list[str]:
    result = subprocess.run([sys.executable, "-c", PROBE, f"deputy.apps.{app}"], cwd=CHECKOUT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def credentialed(modules: list[str]) -> list[str]:
    return [m for m in modules if m.startswith(CREDENTIALED) and (m in CREDENTIALED or m.startswith(
        tuple(p + "." for p in CREDENTIALED))) or RUNNER.match(m)]


@pytest.mark.parametrize("app", ["agent_worker", "bot", "whatsapp", "gateway", "web_view", "browser_host"])
def test_a_process_without_credentials_loads_no_vault_executor_or_runner(app: str) -> None:
    modules = loaded_by(app)
    assert f"deputy.apps.{app}" in modules
    assert credentialed(modules) == [], f"`deputy.apps.{app}` loads what only the executor may hold"


def test_the_probe_sees_what_the_executor_and_the_connect_page_load() -> None:
    # The check above could pass by seeing nothing: the same probe must find the vault and the
    # runners where they belong.
    executor = credentialed(loaded_by("executor"))
    assert {"deputy.vault", "deputy.executor.executor", "deputy.connectors.email.smtp",
            "deputy.connectors.calendar.runners", "deputy.connectors.web.runners"} <= set(executor)
    assert {"deputy.vault", "deputy.credential_page.page"} <= set(credentialed(loaded_by("connect_page")))


def test_a_lazy_import_is_followed() -> None:
    # `deputy.apps.whatsapp` builds its surface inside `serve`: only the followed imports load it.
    assert "deputy.whatsapp.surface" in loaded_by("whatsapp")
