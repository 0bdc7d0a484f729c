"""The local WhatsApp emulator keeps WhatsApp's rules, and each chat page switches to the other."""

from __future__ import annotations

import httpx
import pytest
from aiohttp import web

from deputy.emulator import create_app as create_telegram_app
from deputy.emulator import serve
from deputy.emulator.whatsapp import WaEmulatorConfig, create_app

TOKEN, PHONE = "token", "100000000000002"


@pytest.fixture
async def wa_url():
    runner = web.AppRunner(create_app(WaEmulatorConfig(webhook_url="http://127.0.0.1:9/none", token=TOKEN,
                                                       app_secret="s", phone_number_id=PHONE,
                                                       telegram_page="http://127.0.0.1:8080/")))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    await runner.cleanup()


def button(title: str) -> dict:
    return {"type": "reply", "reply": {"id": title.lower()[:8], "title": title}}


async def test_the_graph_api_refuses_what_whatsapp_refuses(wa_url: str) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    url = f"{wa_url}/v21.0/{PHONE}/messages"

    def interactive(buttons: list[dict], body: str = "Send it?") -> dict:
        return {"messaging_product": "whatsapp", "to": "15550005555", "type": "interactive",
                "interactive": {"type": "button", "body": {"text": body}, "action": {"buttons": buttons}}}

    async with httpx.AsyncClient() as http:
        assert (await http.post(url, json=interactive([button("Approve")]))).status_code == 401, "no token"
        four = interactive([button(t) for t in ("A", "B", "C", "D")])
        assert (await http.post(url, json=four, headers=auth)).status_code == 400
        long_title = interactive([button("Approve and remember this")])
        assert (await http.post(url, json=long_title, headers=auth)).status_code == 400
        assert (await http.post(url, json=interactive([button("Approve")], "x" * 1025), headers=auth)).status_code == 400
        template = {"messaging_product": "whatsapp", "to": "15550005555", "type": "template",
                    "template": {"name": "not_approved", "language": {"code": "en"}}}
        refused = await http.post(url, json=template, headers=auth)
        assert refused.status_code == 400 and refused.json()["error"]["code"] == 132001
        audio = {"messaging_product": "whatsapp", "to": "15550005555", "type": "audio",
                 "audio": {"id": "123", "caption": "WhatsApp audio has no caption"}}
        assert (await http.post(url, json=audio, headers=auth)).status_code == 400
        ok = await http.post(url, json=interactive([button("Approve"), button("Deny")]), headers=auth)
        assert ok.status_code == 200 and ok.json()["messages"][0]["id"].startswith("wamid.")
        shown = (await http.get(f"{wa_url}/api/users/15550005555/messages")).json()
        assert shown[-1]["status"] == "failed", "the user never wrote: outside the 24-hour window"


async def test_each_chat_page_has_a_switch_to_the_other(wa_url: str) -> None:
    async with httpx.AsyncClient() as http:
        page = (await http.get(f"{wa_url}/")).text
        assert 'id="switch"' in page and "#075e54" in page
        assert (await http.get(f"{wa_url}/api/config")).json()["telegram_page"] == "http://127.0.0.1:8080/"
    runner = await serve("127.0.0.1", 0, app=create_telegram_app(whatsapp_page=wa_url + "/"))
    try:
        telegram = f"http://127.0.0.1:{runner.addresses[0][1]}"
        async with httpx.AsyncClient() as http:
            assert 'href="/whatsapp"' in (await http.get(f"{telegram}/")).text
            switch = await http.get(f"{telegram}/whatsapp")
            assert switch.status_code == 302 and switch.headers["location"] == wa_url + "/"
    finally:
        await runner.cleanup()


async def test_a_delivery_not_answered_200_is_made_again() -> None:
    from deputy.emulator.whatsapp.delivery import Deliverer

    answers = [503, 500, 200]
    seen: list[str] = []

    async def webhook(request: web.Request) -> web.Response:
        seen.append(request.headers.get("X-Hub-Signature-256", ""))
        return web.Response(status=answers[len(seen) - 1])

    server = web.Application()
    server.router.add_post("/whatsapp", webhook)
    runner = web.AppRunner(server)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    deliverer = Deliverer(f"http://127.0.0.1:{runner.addresses[0][1]}/whatsapp", "app-secret")
    try:
        assert await deliverer.post({"entry": []}) == 200
        assert len(seen) == 3 and len(set(seen)) == 1 and seen[0].startswith("sha256=")
        seen.clear()
        answers[:] = [403]
        assert await deliverer.post({"entry": []}, signed="bad") == 403 and len(seen) == 1, "refused is final"
    finally:
        await deliverer.close()
        await runner.cleanup()


@pytest.fixture
async def strict():
    """The emulator with every rule on (a pair burst of 2 so the limit shows in a few sends)."""
    from deputy.emulator.whatsapp.rules import WaRules

    app = create_app(WaEmulatorConfig(webhook_url="http://127.0.0.1:9/none", token=TOKEN, app_secret="s",
                                      phone_number_id=PHONE, rules=WaRules(pair_burst=2)))
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    await runner.cleanup()


async def test_media_of_a_type_or_size_whatsapp_refuses_is_refused_at_upload(strict: str) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}

    async def upload(mime: str, size: int) -> httpx.Response:
        async with httpx.AsyncClient() as http:
            return await http.post(f"{strict}/v21.0/{PHONE}/media", headers=auth,
                                   data={"messaging_product": "whatsapp", "type": mime},
                                   files={"file": ("f", b"x" * size, mime)})

    refused = await upload("application/json", 10)
    assert refused.status_code == 400 and refused.json()["error"]["code"] == 131053
    assert (await upload("image/png", 5 * 1024 * 1024 + 1)).json()["error"]["code"] == 131053, "images: 5 MB"
    assert (await upload("image/webp", 10)).status_code == 400
    for accepted in ("image/png", "text/plain", "application/pdf",
                     "application/vnd.openxmlformats-officedocument.wordprocessingml.document"):
        assert (await upload(accepted, 10)).status_code == 200, accepted
    assert (await upload("audio/mpeg", 10)).status_code == 200, "audio: MP3, AAC, AMR, MP4, OGG"
    assert (await upload("audio/ogg", 10)).json()["error"]["code"] == 131053, "OGG only with Opus sound"
    assert (await upload("audio/mpeg", 16 * 1024 * 1024 + 1)).json()["error"]["code"] == 131053, "audio: 16 MB"


async def test_a_template_parameter_with_a_line_break_tab_or_five_spaces_is_refused(strict: str) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}

    def template(text: str) -> dict:
        return {"messaging_product": "whatsapp", "to": "15550005556", "type": "template",
                "template": {"name": "deputy_checkin", "language": {"code": "en"}, "components": [
                    {"type": "body", "parameters": [{"type": "text", "text": text}]}]}}

    async with httpx.AsyncClient() as http:
        for bad in ("two\nlines", "a\ttab", "five     spaces"):
            answer = await http.post(f"{strict}/v21.0/{PHONE}/messages", json=template(bad), headers=auth)
            assert answer.status_code == 400 and answer.json()["error"]["code"] == 132018, bad
        good = await http.post(f"{strict}/v21.0/{PHONE}/messages", json=template("four    spaces · ok"), headers=auth)
        assert good.status_code == 200


async def test_the_pair_rate_limit_refuses_a_burst_to_one_user_only(strict: str) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}

    def text(to: str) -> dict:
        return {"messaging_product": "whatsapp", "to": to, "type": "text", "text": {"body": "hi"}}

    async with httpx.AsyncClient() as http:
        answers = [await http.post(f"{strict}/v21.0/{PHONE}/messages", json=text("15550005557"), headers=auth)
                   for _ in range(3)]
        assert [a.status_code for a in answers] == [200, 200, 400]
        assert answers[2].json()["error"]["code"] == 131056
        other = await http.post(f"{strict}/v21.0/{PHONE}/messages", json=text("15550005558"), headers=auth)
        assert other.status_code == 200, "the limit is per user"
        await http.post(f"{strict}/api/throttle", json={"codes": [130429]})
        throttled = await http.post(f"{strict}/v21.0/{PHONE}/messages", json=text("15550005559"), headers=auth)
        assert throttled.status_code == 429 and throttled.json()["error"]["code"] == 130429


async def test_a_username_user_is_addressed_by_user_id_and_writes_without_a_number(strict: str) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    user = "US.13491208655302741918"
    async with httpx.AsyncClient() as http:
        wrong = await http.post(f"{strict}/v21.0/{PHONE}/messages", headers=auth, json={
            "messaging_product": "whatsapp", "to": user, "type": "text", "text": {"body": "hi"}})
        assert wrong.status_code == 400, "a user id is not a phone number: it goes in `recipient`"
        right = await http.post(f"{strict}/v21.0/{PHONE}/messages", headers=auth, json={
            "messaging_product": "whatsapp", "recipient": user, "type": "text", "text": {"body": "hi"}})
        assert right.status_code == 200 and right.json()["contacts"][0]["user_id"] == user
        assert (await http.post(f"{strict}/api/users/not-a-user/messages", json={"text": "x"})).status_code == 400


async def test_the_webhook_payload_of_a_username_user_has_no_phone_number() -> None:
    from deputy.emulator.whatsapp.rules import WaRules

    received: list[dict] = []

    async def webhook(request: web.Request) -> web.Response:
        received.append(await request.json())
        return web.Response(text="ok")

    server = web.Application()
    server.router.add_post("/whatsapp", webhook)
    hook = web.AppRunner(server)
    await hook.setup()
    await web.TCPSite(hook, "127.0.0.1", 0).start()
    emulator = web.AppRunner(create_app(WaEmulatorConfig(
        webhook_url=f"http://127.0.0.1:{hook.addresses[0][1]}/whatsapp", token=TOKEN, app_secret="s",
        phone_number_id=PHONE, rules=WaRules())))
    await emulator.setup()
    await web.TCPSite(emulator, "127.0.0.1", 0).start()
    try:
        async with httpx.AsyncClient() as http:
            sent = await http.post(f"http://127.0.0.1:{emulator.addresses[0][1]}/api/users/US.777/messages",
                                   json={"text": "hello", "name": "Ula"})
        assert sent.json()["status"] == 200
        value = received[0]["entry"][0]["changes"][0]["value"]
        [contact], [message] = value["contacts"], value["messages"]
        assert "wa_id" not in contact and contact["user_id"] == "US.777"
        assert message["from"] == "US.777" and message["from_user_id"] == "US.777"
    finally:
        await emulator.cleanup()
        await hook.cleanup()


async def test_a_delivery_not_answered_in_time_is_made_again_after_growing_pauses() -> None:
    import asyncio

    from deputy.emulator.whatsapp.delivery import Deliverer

    calls: list[int] = []

    async def webhook(request: web.Request) -> web.Response:
        calls.append(1)
        if len(calls) == 1:
            await asyncio.sleep(1.0)  # answers after the deliverer stopped waiting
        return web.Response(status=200 if len(calls) >= 3 else 500)

    server = web.Application()
    server.router.add_post("/whatsapp", webhook)
    runner = web.AppRunner(server)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    deliverer = Deliverer(f"http://127.0.0.1:{runner.addresses[0][1]}/whatsapp", "s",
                          retry_delays=(0.01, 0.02, 0.04), timeout=0.2)
    try:
        assert await deliverer.post({"entry": []}) == 200
        assert [d["status"] for d in deliverer.log] == [0, 500, 200], "too slow counts as not answered"
        delays = [d["delay"] for d in deliverer.log]
        assert delays == sorted(delays) and delays[0] == 0.0 and delays[1] < delays[2], "pauses grow"
    finally:
        await deliverer.close()
        await runner.cleanup()
