"""A local Telegram Bot API emulator with a web chat page.

Point python-telegram-bot at it with
``ApplicationBuilder().token(T).base_url("http://127.0.0.1:PORT/bot")``; simulated users
talk to the bot through the user-side HTTP API (``/api/users/...``) or the page at ``/``.
"""

from deputy.emulator.errors import BotApiError, UserApiError
from deputy.emulator.hub import EMULATOR_KEY, Emulator
from deputy.emulator.rules import ApiRules
from deputy.emulator.server import bound_port, create_app, run, serve
from deputy.emulator.tgobjects import BotProfile

__all__ = [
    "ApiRules",
    "EMULATOR_KEY",
    "BotApiError",
    "BotProfile",
    "Emulator",
    "UserApiError",
    "bound_port",
    "create_app",
    "run",
    "serve",
]
