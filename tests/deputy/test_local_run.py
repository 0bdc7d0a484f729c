"""`deputy run` with nothing configured: a newcomer's first goal works end to end."""

from __future__ import annotations

import mailbox
import os
import signal
import subprocess
import sys
from pathlib import Path

from deputy.core.infrastructure.ports import free_port
from deputy.testing.stack import ChatUser, wait_for
from deputy.testing.whatsapp_stack import WhatsAppUser


def test_deputy_run_with_nothing_configured_sends_the_email_the_user_asked_for(tmp_path: Path) -> None:
    port, wa_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEPUTY_", "TELEGRAM_", "OPENAI_", "REDIS_"))}
    # The rule-based demo brain: this checks the plumbing; tests/local_model runs the local model itself.
    env.update(DEPUTY_CHAT_PORT=str(port), DEPUTY_DATA_DIR=str(tmp_path / "data"), PYTHONUNBUFFERED="1",
               DEPUTY_LOCAL_MODEL="off", DEPUTY_WHATSAPP_CHAT_PORT=str(wa_port),
               DEPUTY_WHATSAPP_LISTEN=f"127.0.0.1:{free_port()}", DEPUTY_WEB_PORT=str(free_port()))
    log = tmp_path / "run.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "deputy", "run"], env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for(lambda: f"http://127.0.0.1:{port}" in log.read_text(), timeout=60, what="the printed address")
        user = ChatUser(f"http://127.0.0.1:{port}", 1, "Demo")
        wait_for(lambda: _bot_ready(user), timeout=90, what="the bot")  # every process starts on 2 cores

        # The user asked for it and named Alice: no card, but it waits in its send window, shown in
        # full; Send now sends it, and the chat says so.
        sent = user.send("email alice@example.org that I'll be 10 minutes late")
        shown = user.wait_for_bot(lambda m: any(b["text"] == "Send now" for row in m["buttons"] for b in row),
                                  after=sent, timeout=30)
        assert "To: alice@example.org" in shown["text"] and not any(
            b["text"] == "Approve" for m in user.bot_messages(after=sent) for row in m["buttons"] for b in row)
        user.press(shown["message_id"], button="Send now")
        done = user.wait_for_bot(lambda m: m["text"].startswith("Done."), after=sent, timeout=30)
        assert "alice@example.org" in done["text"]

        box = mailbox.Maildir(tmp_path / "data" / "sandbox" / "sent" / "alice@example.org", create=False)
        assert len(list(box)) == 1
        assert (tmp_path / "data" / "secret").exists()

        # Anything the demo brain does not understand gets an honest pointer to a real model.
        sent = user.send("find me a cheap flight to Lisbon")
        answer = user.wait_for_bot(lambda m: "demo brain" in m["text"], after=sent, timeout=30)
        assert "OPENAI_API_KEY" in answer["text"]

        # The same Deputy on the local WhatsApp page.
        whatsapp = WhatsAppUser(f"http://127.0.0.1:{wa_port}", "15550002001", "Demo")
        wait_for(lambda: _whatsapp_ready(whatsapp), timeout=30, what="the WhatsApp surface")
        whatsapp.send("email bob@example.org that the meeting moved to 3pm")
        shown = whatsapp.wait_for_bot(lambda m: any(b["title"] == "Send now" for b in m["buttons"]), timeout=30)
        whatsapp.press(shown, title="Send now")
        done = whatsapp.wait_for_bot(lambda m: m["text"].startswith("Done."), timeout=30)
        assert "bob@example.org" in done["text"]
    finally:
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl+C in a terminal does
        process.wait(timeout=30)
    assert process.returncode == 0, log.read_text()[-3000:]
    # The console shows Deputy's own lines, not one per HTTP request of the bot's polling.
    assert "aiohttp.access" not in log.read_text() and "getUpdates" not in log.read_text()
    # A quiet console: no line per queued job nor per SMTP connection, only Deputy's own.
    assert "Successfully completed" not in log.read_text() and "mail.log" not in log.read_text()
    # Stopping is orderly and quiet: the front end and workers go before Redis, so nobody complains.
    console = log.read_text()
    assert "Traceback" not in console, console[-3000:]
    assert console.rstrip().endswith("Deputy stopped."), console[-1000:]


def _bot_ready(user: ChatUser) -> bool:
    import httpx

    try:
        commands = httpx.post(user._http.base_url.join("/botx/getMyCommands"), timeout=2).json()
    except (httpx.HTTPError, ValueError):
        return False
    return bool(commands.get("result"))


def _whatsapp_ready(user: WhatsAppUser) -> bool:
    import httpx

    try:
        return user.send("/help")["status"] == 200
    except httpx.HTTPError:
        return False
