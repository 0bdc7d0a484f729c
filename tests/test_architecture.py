"""The package layout is the architecture: the import contracts in pyproject.toml hold.

`lint-imports` checks every import against the contracts (layers from the entry points down
to `core`, who may open the vault, a sentinel core without IO, no package cycles). The
second test breaks a copy of the code on purpose, one upward import and one import of the
vault from the agent, and expects the check to say so: a check that cannot fail proves
nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """Run `lint-imports` on the code under `root`, with only `root` on the import path."""
    env = {**os.environ, "PYTHONPATH": str(root), "NO_COLOR": "1", "COLUMNS": "200"}
    script = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports())"
    return subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True,
                          timeout=300)


def _root_packages() -> list[str]:
    config = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())
    return config["tool"]["importlinter"]["root_packages"]


def test_every_import_keeps_to_the_layout() -> None:
    result = _lint_imports(CHECKOUT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.fixture
def copy_of_the_code(tmp_path: Path) -> Path:
    for package in _root_packages():
        shutil.copytree(CHECKOUT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "static", "data"))
    shutil.copy(CHECKOUT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _add_import(module: Path, line: str) -> None:
    text = module.read_text()
    docstring_end = text.index('"""', 3) + 3
    module.write_text(text[:docstring_end] + "\n" + line + "\n" + text[docstring_end:])


def test_a_wrong_import_breaks_the_check(copy_of_the_code: Path) -> None:
    code = copy_of_the_code / "deputy"
    _add_import(code / "core" / "records" / "ids.py", "import deputy.agent.goals  # upward: core is the bottom")
    _add_import(code / "agent" / "prompt.py", "import deputy.vault  # the agent must not see credentials")
    _add_import(code / "bot" / "texts.py", "import deputy.connectors.email.smtp  # a runner, in the chat front end")

    result = _lint_imports(copy_of_the_code)

    assert result.returncode != 0
    report = " ".join(result.stdout.split())
    assert "deputy.core is not allowed to import deputy.agent" in report
    assert "deputy.agent.prompt -> deputy.vault" in report
    assert "deputy.bot is not allowed to import deputy.connectors.email.smtp" in report
    assert "deputy.bot.texts -> deputy.connectors.email.smtp" in report
    assert "0 broken" not in report
