"""`deputy run` with nothing configured thinks with the local model (issue 7).

Marked `local_model`: it uses the llama-server build and weights cached in ~/.cache/deputy
(built and fetched here first if they are missing, which takes minutes).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from deputy.local import free_port
from deputy.local_model import default_cache_dir
from deputy.testing import ChatUser, wait_for

pytestmark = [pytest.mark.local_model, pytest.mark.timeout(2400)]


def test_deputy_run_with_no_key_uses_the_local_model(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEPUTY_", "TELEGRAM_", "OPENAI_", "REDIS_"))}
    env.update(DEPUTY_CHAT_PORT=str(port), DEPUTY_DATA_DIR=str(tmp_path / "data"), PYTHONUNBUFFERED="1",
               DEPUTY_CACHE_DIR=str(default_cache_dir(os.environ)))
    log = tmp_path / "run.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "deputy", "run"], env=env, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    try:
        # A first run builds llama-server (~6 min) and fetches the weights before the chat opens.
        wait_for(lambda: "Press Ctrl+C to stop." in log.read_text(), timeout=1500, interval=1,
                 what="Deputy to start")
        printed = log.read_text()
        assert "Local model ready" in printed and "demo brain" not in printed, printed[-3000:]
        user = ChatUser(f"http://127.0.0.1:{port}", 1, "Demo")
        wait_for(lambda: _bot_ready(port), timeout=30, what="the bot")

        sent = user.send("email alice@example.org that I'm running late")
        try:
            card = user.wait_for_card(after=sent, timeout=900)
        except TimeoutError:
            pytest.fail(f"no approval card; the chat: {[m['text'] for m in user.bot_messages(sent)]}\n"
                        f"{log.read_text()[-3000:]}")
        assert "alice@example.org" in card["text"]
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)
    assert process.returncode == 0, log.read_text()[-3000:]


def _bot_ready(port: int) -> bool:
    try:
        commands = httpx.post(f"http://127.0.0.1:{port}/botx/getMyCommands", timeout=2).json()
    except (httpx.HTTPError, ValueError):
        return False
    return bool(commands.get("result"))
