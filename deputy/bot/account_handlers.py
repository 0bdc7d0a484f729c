"""Handlers for the user's account: memory, settings, data export and erasure, quiet hours,
connections. Thin, like every handler: stores and jobs do the work."""

from __future__ import annotations

from datetime import time

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, InputFile, Update
from telegram.ext import ContextTypes

from deputy.bot.long_replies import reply_in_parts
from deputy.bot import texts
from deputy.bot.card_view import card_lines, shop_choices
from deputy.bot.export import export_user
from deputy.bot.memory_view import memory_listing, ordered
from deputy.bot.plan_handlers import services_refused
from deputy.bot.rates_view import rates_lines, set_rate
from deputy.bot.services import BotServices
from deputy.connectors.custom import CustomConnectors
from deputy.core.accounts.connect_links import FORM_SERVICES as FORMS
from deputy.core.accounts.card_preferences import CardPreferences
from deputy.bot.approval_mode_view import mode_buttons, mode_line
from deputy.core.records.send_window import send_window_said
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from deputy.memory import MemoryStore, MemoryTrust
from deputy.workspace.files import Workspace, files_listing
from deputy.core.accounts.credential_index import list_credentials


def spoken_line(wanted: bool, offered: bool) -> str:
    said = "yes" if wanted else "no"
    return f"Answers to your voice notes as voice notes too: {said}" + ("" if offered else " (not offered here)")


class AccountHandlers:
    def __init__(self, services: BotServices) -> None:
        self._s = services

    async def memory(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        user_id = update.effective_user.id
        items = ordered(MemoryStore(self._s.redis).list(user_id))
        buttons = []
        for number, item in enumerate(items[:40], 1):
            if item.trust is MemoryTrust.pending:
                buttons.append([
                    InlineKeyboardButton(f"Accept {number}", callback_data=self._s.buttons.data("ma", item.id, user_id)),
                    InlineKeyboardButton(f"Discard {number}", callback_data=self._s.buttons.data("md", item.id, user_id)),
                ])
            else:
                buttons.append([
                    InlineKeyboardButton(f"Edit {number}", callback_data=self._s.buttons.data("me", item.id, user_id)),
                    InlineKeyboardButton(f"Forget {number}", callback_data=self._s.buttons.data("mf", item.id, user_id)),
                ])
        await reply_in_parts(update.effective_message, memory_listing(items),
                             InlineKeyboardMarkup(buttons) if buttons else None)

    async def files(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """/files: the user's workspace, with the room left."""
        workspace = Workspace(self._s.redis, limits=self._s.workspace_limits)
        entries = workspace.list(update.effective_user.id)
        await reply_in_parts(update.effective_message, files_listing(entries, workspace.quota_bytes))

    async def settings(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """/settings shows them; /settings name Jarvis | tone brief | language German | timezone Europe/Berlin |
        training on/off changes one."""
        store = UserSettingsStore(self._s.redis)
        user_id = update.effective_user.id
        current = store.get(user_id)
        args = context.args or []
        if args and args[0].lower() in ("rate", "rates"):
            changed, told = set_rate(current, " ".join(args[1:]))
            if changed is None:
                await update.effective_message.reply_text(told)
                return
            store.save(user_id, changed)
            self._s.audit.append(user_id, "settings_changed", self._s.clock(), field="rate")
            await update.effective_message.reply_text(told + "\n" + rates_lines(changed))
            return
        if args:
            field, value = args[0].lower(), " ".join(args[1:]).strip()
            names = {"name": "agent_name", "tone": "tone", "language": "language", "timezone": "timezone",
                     "training": "training_opt_in", "send": "send_window", "voice": "spoken_replies"}
            if field not in names or not value:
                await update.effective_message.reply_text(texts.SETTINGS_USAGE)
                return
            parsed: object = value
            if field in ("training", "voice"):
                if value.lower() not in ("on", "off"):
                    await update.effective_message.reply_text(texts.SETTINGS_USAGE)
                    return
                parsed = value.lower() == "on"
            if field == "send":
                parsed = 0 if value.lower() == "off" else value.lower().removesuffix("s").strip()
            try:
                current = UserSettings.model_validate({**current.model_dump(), names[field]: parsed})
            except ValueError:
                await update.effective_message.reply_text(f"That isn't a valid {field}. " + texts.SETTINGS_USAGE)
                return
            store.save(user_id, current)
            self._s.audit.append(user_id, "settings_changed", self._s.clock(), field=field)
        quiet = (f"{current.quiet_start:%H:%M}–{current.quiet_end:%H:%M}" if current.quiet_start else "off")
        await update.effective_message.reply_text(
            f"Name: {current.agent_name}\nTone: {current.tone}\nLanguage: {current.language}\n"
            f"Time zone: {current.timezone}\nQuiet hours: {quiet}\n"
            f"Use my conversations to improve models: {'yes' if current.training_opt_in else 'no'}\n"
            f"Messages wait for Undo: {send_window_said(current.send_window)}\n"
            f"{spoken_line(current.spoken_replies, self._s.spoken_replies)}\n"
            f"{rates_lines(current)}\n"
            f"{mode_line(current.approval_mode)}\n\n" + texts.SETTINGS_USAGE,
            reply_markup=mode_buttons(self._s, user_id, current.approval_mode),
        )

    async def export(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        user_id = update.effective_user.id
        data = export_user(self._s.redis, user_id, self._s.clock())
        self._s.audit.append(user_id, "exported", self._s.clock(), size=len(data))
        await update.effective_message.reply_document(
            InputFile(data, filename="deputy-export.json"),
            caption="Everything I store about you: goals, memory, rules, settings, connections (no secrets) "
            "and the activity record.",
        )

    async def delete_me(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        user_id = update.effective_user.id
        await update.effective_message.reply_text(
            "This erases everything I store about you: goals, memory, rules, settings, connected accounts "
            "(their passwords too), files and the activity record. It can't be undone. /export first if you "
            "want a copy.",
            reply_markup=InlineKeyboardMarkup([[
                InlineKeyboardButton("Delete everything", callback_data=self._s.buttons.data("dd", "me", user_id)),
            ]]),
        )

    async def quiet(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """/quiet 22:00 07:00 [Time/Zone] holds unprompted news at night; /quiet off ends it."""
        store = UserSettingsStore(self._s.redis)
        user_id = update.effective_user.id
        settings = store.get(user_id)
        args = context.args or []
        try:
            if args and args[0].lower() == "off":
                settings = settings.model_copy(update={"quiet_start": None, "quiet_end": None})
            elif len(args) in (2, 3):
                changes = {"quiet_start": time.fromisoformat(args[0]), "quiet_end": time.fromisoformat(args[1])}
                if len(args) == 3:
                    changes["timezone"] = args[2]
                settings = UserSettings.model_validate({**settings.model_dump(), **changes})
            elif args:
                raise ValueError("usage")
        except ValueError:
            await update.effective_message.reply_text(
                "Use /quiet 22:00 07:00 (optionally with your time zone, e.g. /quiet 22:00 07:00 Europe/Berlin), "
                "or /quiet off."
            )
            return
        store.save(user_id, settings)
        if settings.quiet_start is None:
            await update.effective_message.reply_text("No quiet hours: I'll tell you news as soon as it comes.")
        else:
            await update.effective_message.reply_text(
                f"Quiet hours: {settings.quiet_start:%H:%M}–{settings.quiet_end:%H:%M} ({settings.timezone}). "
                "News that comes in then waits until they end; answers to what you ask don't."
            )

    async def connect(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        args = context.args or []
        service = (args[0] if args else "").strip().lower()
        user_id, chat_id = update.effective_user.id, update.effective_chat.id
        if service != "key" and (service in FORMS or service in ("api", "mcp")):
            connected = self._connected(user_id)
            if service not in connected and await services_refused(self._s, update, len(connected)):
                return
        if service in ("api", "mcp") and len(args) == 2 and args[1].startswith(("https://", "http://")):
            self._s.dispatch.add_connector(user_id, chat_id, "openapi" if service == "api" else "mcp", args[1][:500])
            await update.effective_message.reply_text("Looking at that service; I'll tell you what it offers.")
            return
        if service == "key" and len(args) == 2:
            custom = CustomConnectors(self._s.redis).get(user_id, args[1].lower())
            if custom is None:
                await update.effective_message.reply_text(f"No connected service is called {args[1]}. /connections")
                return
            handle = f"cred:{'api' if custom.kind == 'openapi' else 'mcp'}/{custom.name}"
            token = self._s.links.create(user_id, chat_id, "key", handle)
            await update.effective_message.reply_text(
                f"Open this private link to add the key for {custom.name} (it works once, for 15 minutes):\n"
                f"{self._s.connect_url}/connect/{token}"
            )
            return
        if service not in FORMS or service == "key":
            await update.effective_message.reply_text(
                "What would you like to connect? /connect email · /connect calendar · /connect card · /connect web · "
                "/connect traveller (your details for flight bookings) · /connect api <address of an OpenAPI description> · /connect mcp <address of an MCP server>"
            )
            return
        token = self._s.links.create(update.effective_user.id, update.effective_chat.id, service)
        await update.effective_message.reply_text(
            f"Open this private link to connect your {service} (it works once, for 15 minutes):\n"
            f"{self._s.connect_url}/connect/{token}\n\nNever type passwords into this chat."
        )

    def _connected(self, user_id: int) -> set[str]:
        """The services the user has connected (what /connections lists), by name."""
        keyed = {"api", "mcp"}
        names = {info.handle.split(":", 1)[1].split("/", 1)[0] for info in list_credentials(self._s.redis, user_id)}
        return (names - keyed) | {c.name for c in CustomConnectors(self._s.redis).list(user_id)}

    async def connections(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        user_id = update.effective_user.id
        infos = list_credentials(self._s.redis, user_id)
        custom = CustomConnectors(self._s.redis).list(user_id)
        if not infos and not custom:
            await update.effective_message.reply_text("Nothing is connected yet. /connect email to start.")
            return
        keyed = {"api", "mcp"}
        services = sorted({info.handle.split(":", 1)[1].split("/", 1)[0] for info in infos} - keyed
                          | {c.name for c in custom})
        cards = [info for info in infos if info.handle.startswith("cred:card/")]
        lines = [f"• {info.label}" for info in infos
                 if info.handle.split(":", 1)[1].split("/", 1)[0] not in keyed | {"card"}
                 and not info.handle.endswith("/oauth-access")]  # a signed-in connection's current token
        lines += card_lines(cards, CardPreferences(self._s.redis).default(user_id))
        shop_lines, shop_buttons = shop_choices(self._s.redis, user_id, cards) if cards else ([], [])
        lines += shop_lines
        lines += [f"• {c.name}: {'OpenAPI' if c.kind == 'openapi' else 'MCP'} service at {c.source}" for c in custom]
        buttons = [[InlineKeyboardButton(f"Change {name} access", callback_data=self._s.buttons.data("ca", name, user_id))]
                   for name in ("email", "calendar") if any(i.handle == f"cred:{name}/oauth" for i in infos)]
        buttons += [[InlineKeyboardButton(f"Disconnect {name}", callback_data=self._s.buttons.data("dx", name, user_id))]
                    for name in services]
        # A connected service's operations can be reviewed and marked (e.g. a booking as spend).
        buttons += [[InlineKeyboardButton(f"Operations of {c.name}", callback_data=self._s.buttons.data("oo", c.name,
                                                                                                        user_id))]
                    for c in custom]
        # With several cards, each can become the one that pays by default.
        buttons += [[InlineKeyboardButton(f"Pay with {card.label} by default",
                                          callback_data=self._s.buttons.data("cd", card.handle.split("/", 1)[1],
                                                                             user_id))]
                    for card in cards if len(cards) > 1]
        # And each shop bought from can get its own card ("cm:" presses, as on a receipt).
        buttons += [[InlineKeyboardButton(text, callback_data=self._s.buttons.data(*sign.split(":", 1), user_id))]
                    for text, sign in shop_buttons]
        await update.effective_message.reply_text("Connected:\n" + "\n".join(lines),
                                                  reply_markup=InlineKeyboardMarkup(buttons))
