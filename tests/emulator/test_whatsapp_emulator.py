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
