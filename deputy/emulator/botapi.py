"""Telegram Bot API routes: ``/bot{token}/{method}`` (GET or POST) and file downloads.

The emulator stands in for one bot: any token is accepted until the bot's token is set
(``ApiRules.token``, or ``POST /api/bot/token`` to revoke it), then any other answers 401.
Answers use Telegram's envelope; errors carry Telegram's exact descriptions so PTB raises
the same exceptions.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from aiohttp import web

from deputy.emulator import messaging
from deputy.emulator.errors import BotApiError, bad_request
from deputy.emulator.hub import EMULATOR_KEY, Emulator
from deputy.emulator.params import MethodTable, Params
from deputy.emulator.records import Json
from deputy.emulator.rules import check_webhook_url
from deputy.emulator.state import commands_key
from deputy.emulator.tgobjects import chat_json
from deputy.emulator.webhook import WebhookConfig

METHODS = MethodTable()
log = logging.getLogger(__name__)

_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")
_WEBHOOK_URL = re.compile(r"^https?://[^/\s]+(/\S*)?$")
_SECRET_TOKEN = re.compile(r"^[A-Za-z0-9_-]{1,256}$")  # Telegram's rule for secret_token


@METHODS.register("getMe")
async def get_me(emu: Emulator, params: Params) -> Json:
    """The bot user."""
    return emu.profile.me_json()


@METHODS.register("logOut", "close")
async def accept(emu: Emulator, params: Params) -> bool:
    """Accepted no-ops: there is no cloud server to log out of or close."""
    return True


@METHODS.register("setWebhook")
async def set_webhook(emu: Emulator, params: Params) -> bool:
    """Push updates to ``url`` from now on (an empty url removes the webhook, like Telegram).

    Like Telegram, only HTTPS on ports 443, 80, 88 or 8443; the ``webhook-url`` leniency
    takes plain http and any port, for a bot served on this machine.
    """
    url = (params.text("url") or "").strip()
    if not url:
        return await delete_webhook(emu, params)
    if not _WEBHOOK_URL.match(url):
        raise bad_request("bad webhook: Wrong HTTP URL specified")
    refused = check_webhook_url(url) if emu.rules.strict_webhook_url else None
    if refused is not None:
        raise bad_request(refused)
    secret = params.text("secret_token")
    if secret is not None and not _SECRET_TOKEN.match(secret):
        raise bad_request("secret token contains unallowed characters")
    max_connections = params.integer("max_connections", error="invalid max_connections specified") or 40
    allowed = _allowed_updates(params)
    if params.flag("drop_pending_updates"):
        emu.updates.clear()
    emu.updates.set_allowed(allowed)
    emu.webhook.set(WebhookConfig(url, secret or None, min(max(max_connections, 1), 100),
                                  tuple(allowed) if allowed is not None else None))
    return True


@METHODS.register("deleteWebhook")
async def delete_webhook(emu: Emulator, params: Params) -> bool:
    """Stop pushing (back to getUpdates); honours drop_pending_updates."""
    await emu.webhook.delete()
    if params.flag("drop_pending_updates"):
        emu.updates.clear()
    return True


@METHODS.register("getWebhookInfo")
async def get_webhook_info(emu: Emulator, params: Params) -> Json:
    """The webhook's url, pending update count and last delivery error ("" url: getUpdates mode)."""
    return emu.webhook.info()


def _allowed_updates(params: Params) -> list[str] | None:
    allowed = params.json_value("allowed_updates", error="can't parse allowed_updates JSON array")
    if allowed is not None and not (isinstance(allowed, list) and all(isinstance(a, str) for a in allowed)):
        raise bad_request("can't parse allowed_updates JSON array")
    return allowed


@METHODS.register("getUpdates")
async def get_updates(emu: Emulator, params: Params) -> list[Json]:
    """Long poll: confirm updates below ``offset``, wait up to ``timeout`` seconds (409 while a webhook is set)."""
    allowed = _allowed_updates(params)
    return await emu.updates.fetch(
        offset=params.integer("offset", error="invalid offset specified"),
        limit=params.integer("limit", error="invalid limit specified") or 100,
        timeout=params.number("timeout") or 0.0,
        allowed_updates=allowed,
    )


def _commands_key(params: Params) -> str:
    """Commands are stored per (scope, language_code), like Telegram."""
    scope = params.json_value("scope", error="can't parse BotCommandScope JSON object") or {"type": "default"}
    if not isinstance(scope, dict) or not isinstance(scope.get("type"), str):
        raise bad_request("can't parse BotCommandScope JSON object")
    return commands_key(scope, params.text("language_code") or "")


@METHODS.register("setMyCommands")
async def set_my_commands(emu: Emulator, params: Params) -> bool:
    """Store the command menu (validated like Telegram)."""
    commands = params.json_value("commands", error="can't parse commands JSON array")
    if not isinstance(commands, list):
        raise bad_request("can't parse commands JSON array")
    cleaned: list[Json] = []
    for item in commands:
        if not isinstance(item, dict) or not _COMMAND_NAME.match(str(item.get("command", ""))):
            raise bad_request("BOT_COMMAND_INVALID")
        description = item.get("description")
        if not isinstance(description, str) or not 1 <= len(description) <= 256:
            raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        cleaned.append({"command": item["command"], "description": description})
    emu.state.commands[_commands_key(params)] = cleaned
    return True


@METHODS.register("getMyCommands")
async def get_my_commands(emu: Emulator, params: Params) -> list[Json]:
    """The command menu for the scope and language."""
    return emu.state.commands.get(_commands_key(params), [])


@METHODS.register("deleteMyCommands")
async def delete_my_commands(emu: Emulator, params: Params) -> bool:
    """Forget the command menu for the scope and language."""
    emu.state.commands.pop(_commands_key(params), None)
    return True


# Profile texts bots commonly set at start-up; stored so the get* twins answer them.
_PROFILE_TEXTS = {
    "MyDescription": "description",
    "MyShortDescription": "short_description",
    "MyName": "name",
}


def _profile_methods(suffix: str, field: str) -> None:
    async def set_text(emu: Emulator, params: Params) -> bool:
        emu.state.profile_texts[(field, params.text("language_code") or "")] = params.text(field) or ""
        return True

    async def get_text(emu: Emulator, params: Params) -> Json:
        default = emu.profile.first_name if field == "name" else ""
        return {field: emu.state.profile_texts.get((field, params.text("language_code") or ""), default)}

    METHODS.register(f"set{suffix}")(set_text)
    METHODS.register(f"get{suffix}")(get_text)


for _suffix, _field in _PROFILE_TEXTS.items():
    _profile_methods(_suffix, _field)


@METHODS.register("getChat")
async def get_chat(emu: Emulator, params: Params) -> Json:
    """ChatFullInfo of a private chat (with the fields PTB requires)."""
    chat_id = params.integer("chat_id", error="chat not found")
    if chat_id is None:
        raise bad_request("chat_id is empty")
    chat = emu.state.require_chat(chat_id)
    return {
        **chat_json(chat),
        "accent_color_id": 0,
        "max_reaction_count": 11,
        "accepted_gift_types": {
            "unlimited_gifts": True,
            "limited_gifts": True,
            "unique_gifts": True,
            "premium_subscription": True,
            "gifts_from_channels": True,
        },
    }


@METHODS.register("setChatMenuButton")
async def set_chat_menu_button(emu: Emulator, params: Params) -> bool:
    """Accepted; the page always shows the command menu."""
    return True


@METHODS.register("getChatMenuButton")
async def get_chat_menu_button(emu: Emulator, params: Params) -> Json:
    """The default menu button."""
    return {"type": "commands"}


METHODS.update(messaging.METHODS)


def _envelope(result: Any) -> web.Response:
    return web.json_response({"ok": True, "result": result})


async def handle_method(request: web.Request) -> web.Response:
    """Dispatch ``/bot{token}/{method}``; method names are case-insensitive."""
    method = request.match_info["method"]
    handler = METHODS.get(method.lower())
    if handler is None:
        error = BotApiError(
            f"Not Found: method '{method}' is not supported by the local emulator", 404
        )
        return web.json_response(error.to_json(), status=404)
    try:
        request.app[EMULATOR_KEY].check_token(request.match_info["token"])
        params = await Params.from_request(request)
        return _envelope(await handler(request.app[EMULATOR_KEY], params))
    except BotApiError as exc:
        return web.json_response(exc.to_json(), status=exc.error_code)
    except web.HTTPException:
        raise  # e.g. 413 for an oversized upload: aiohttp already has the right answer
    except Exception as exc:  # a bug in the emulator: tell the bot in its own terms
        log.exception("Bot API method %s failed", method)
        error = BotApiError(f"Internal Server Error: local emulator failed: {exc!r}", 500)
        return web.json_response(error.to_json(), status=500)


async def handle_missing_method(request: web.Request) -> web.Response:
    """``/bot{token}`` or ``/bot{token}/`` without a method name."""
    return web.json_response(BotApiError("Not Found", 404).to_json(), status=404)


async def handle_file(request: web.Request) -> web.Response:
    """``/file/bot{token}/documents/{file_id}/{name}``: the bytes of a sent document."""
    try:
        request.app[EMULATOR_KEY].check_token(request.match_info["token"])
    except BotApiError as exc:
        return web.json_response(exc.to_json(), status=exc.error_code)
    parts = request.match_info["path"].split("/")
    doc = request.app[EMULATOR_KEY].state.files.get(parts[1]) if len(parts) >= 2 else None
    if doc is None or doc.content is None:
        return web.json_response(BotApiError("Not Found", 404).to_json(), status=404)
    return web.Response(body=doc.content, content_type=doc.mime_type)


def setup(app: web.Application) -> None:
    """Add the Bot API routes to ``app``."""
    app.router.add_route("*", "/bot{token}/{method}", handle_method)
    app.router.add_route("*", "/bot{token}/", handle_missing_method)
    app.router.add_get("/file/bot{token}/{path:.+}", handle_file)
