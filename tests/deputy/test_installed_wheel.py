"""Deputy as an operator installs it: from its built wheel, outside the checkout.

A package folder the wheel leaves out (a new top-level package not listed in
`pyproject.toml`, a data file without package-data) passes every other test, because
they import from the checkout, and fails in the container image. Here the wheel is built
from the package metadata, installed into a fresh virtualenv, and every long-running
`deputy` subcommand is started from it, from a directory outside the checkout, with
nothing of the checkout on the path; then a goal goes end to end through those processes.

The fresh venv borrows the test venv's third-party packages through a `.pth` line (a
directory added that way has its own `.pth` files ignored, so the checkout's editable
install stays out): installing every dependency from the index again would take minutes
and is what `make install` already does on every fresh machine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path
from typing import Iterator

import httpx
import pytest
from tests_support import BODY, GOAL, email_script

from deputy.agent.model.testing import ScriptedModelServer
from deputy.testing.stack import DeputyStack, RedisServer, wait_for
from deputy.sandbox.mail import LocalMailServer

CHECKOUT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def installed_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("installed")
    # Built from a copy of the project's files only: setuptools reuses a `build/` folder left
    # in the checkout, which would hide a package the metadata no longer lists.
    source = root / "source"
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=CHECKOUT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (CHECKOUT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(CHECKOUT / name, source / name)
    wheels = root / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--quiet", "-w", str(wheels)],
        check=True, cwd=root,
    )
    (wheel,) = wheels.glob("deputy-*.whl")
    env_dir = root / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "--quiet",
         str(wheel)],
        check=True, cwd=root,
    )
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "zz_borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return str(python)


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def test_every_package_is_imported_from_the_installed_wheel(installed_python: str, tmp_path: Path) -> None:
    # Every package under the one import root must be in the wheel (the benchmarks and tests are not installed).
    packages = sorted(".".join(p.parent.relative_to(CHECKOUT).parts) for p in (CHECKOUT / "deputy").rglob("__init__.py")
                      if "__pycache__" not in p.parts)
    assert "deputy.agent" in packages and "deputy.connectors.email" in packages
    probe = ("import importlib, json, sys\n"
             f"print(json.dumps({{n: importlib.import_module(n).__file__ for n in {packages!r}}}))")
    result = subprocess.run([installed_python, "-c", probe], cwd=tmp_path, env=_clean_env(),
                            capture_output=True, text=True)
    assert result.returncode == 0, f"a package is missing from the wheel:\n{result.stderr[-2000:]}"
    where = json.loads(result.stdout)
    outside = {name: path for name, path in where.items() if Path(path).is_relative_to(CHECKOUT)}
    assert not outside, f"imported from the checkout instead of the wheel: {outside}"


def test_sandbox_world_starts_from_the_wheel(installed_python: str, tmp_path: Path) -> None:
    env = {**_clean_env(), "DEPUTY_DATA_DIR": str(tmp_path / "data"), "PYTHONUNBUFFERED": "1"}
    log = tmp_path / "sandbox.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([installed_python, "-m", "deputy", "sandbox", "--json"], cwd=tmp_path, env=env,
                                   stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        endpoints = wait_for(lambda: _json_object(log.read_text()), timeout=60, what="the sandbox's endpoints")
        urls = [v for v in endpoints.values() if isinstance(v, str) and v.startswith("http")]
        assert urls, endpoints
        for url in urls:
            assert httpx.get(url, timeout=5).status_code < 500, url
    finally:
        os.killpg(process.pid, 15)
        process.wait(timeout=20)


def _json_object(text: str) -> dict | None:
    start = text.find("{")
    if start < 0:
        return None
    try:
        return json.loads(text[start:])
    except ValueError:
        return None


@pytest.fixture
def installed_stack(
    installed_python: str, redis_server: RedisServer, redis, smtp_env: dict[str, str], tmp_path: Path
) -> Iterator[DeputyStack]:
    with ScriptedModelServer(email_script) as model:
        stack = DeputyStack(redis_server.url, model.base_url, tmp_path / "stack", smtp=smtp_env, gateway=True,
                            extra_env={"PYTHONPATH": ""}, python=installed_python, cwd=tmp_path, browser_host=True)
        try:
            yield stack.start()
        finally:
            stack.stop()


def test_a_goal_runs_end_to_end_through_processes_started_from_the_wheel(
    installed_stack: DeputyStack, mail_server: LocalMailServer
) -> None:
    # Bot, connect page, emulator, agent worker, model gateway, executor and browser host all run from the wheel.
    user = installed_stack.user(4242, "Ops", asks_before_sending=True)
    sent = user.send(GOAL)
    card = user.wait_for_card(after=sent, timeout=60)
    assert "To: alice@example.org" in card["text"]
    user.press(card["message_id"], button="Approve")
    received = mail_server.wait_for(1, address="alice@example.org", timeout=60)
    assert BODY in received[0].body
    logs = installed_stack.logs()
    assert "ImportError" not in logs and "ModuleNotFoundError" not in logs, logs
