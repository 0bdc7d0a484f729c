"""Thin python-telegram-bot handlers: authenticate, turn updates into goals and decisions.

Nothing here waits for the model: a goal is stored, its first step enqueued, and the
acknowledgement sent, in a few Redis commands (`deputy.bot.intake`).
"""

from __future__ import annotations

import asyncio
import logging

import redis
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import Conflict, TelegramError
from telegram.ext import ApplicationHandlerStop, ContextTypes

from deputy.agent.attachments import Attachment, accepts
from deputy.agent.goal_lifecycle import GoalEvent, move_and_hand_on, next_turn
from deputy.agent.answers import add_answer
from deputy.agent.follow_ups import carry
from deputy.agent.goals import Goal, GoalStatus
from deputy.agent.origins import user_message
from deputy.bot import approval_mode_view, texts
from deputy.agent.watch.digests import choice_buttons
from deputy.bot.activity import STATUS_WORDS, format_activity, goal_card
from deputy.bot.audit_view import audit_page
from deputy.bot.confidential_handlers import keep_answer, locked_goals_text
from deputy.bot.edited_messages import IGNORED as EDIT_IGNORED
from deputy.bot.follow_ups import FollowUps, waits_for_answer
from deputy.bot.edited_messages import apply_message_edit, remember_fed_now
from deputy.bot.goal_controls import apply_edit, editing_key
from deputy.bot.intake import Pending
from deputy.bot.handoff_reply import take_code_reply
from deputy.bot.long_replies import reply_in_parts
from deputy.bot.lost_goals import LostGoals, take_restart
from deputy.bot.memory_view import apply_memory_edit, editing_memory_key
from deputy.bot.send_window_presses import apply_send_edit
from deputy.core.records.send_window_store import editing_send_key
from deputy.bot.plan_handlers import admitted_by_invite, files_refused, flooding, near_notices, tell_refusal
from deputy.bot.negotiation import negotiations_text
from deputy.bot.press_answers import answer_press
from deputy.bot.presses import decide_press
from deputy.bot.web_handlers import NO_PREVIEW, goal_link
from deputy.bot.presses_common import without_button
from deputy.bot.secret_gate import SecretGate
from deputy.bot.services import BotServices
from deputy.bot.update_claims import current_delivery
from deputy.bot.spoken_replies import SPOKEN
from deputy.bot.voice_notes import VoiceNotes
from deputy.core.confidential import Locked
from deputy.core.records.receipts import ReceiptStore
from deputy.core.records.ids import new_id
from deputy.core.accounts.user_settings import UserSettings, UserSettingsStore
from deputy.sentinel.rules import describe

log = logging.getLogger(__name__)

async def _refuse(update: Update, context: ContextTypes.DEFAULT_TYPE, user_id: int) -> None:
    """One polite refusal to a stranger, best effort: a refusal that cannot be delivered is only logged."""
    try:
        if update.callback_query is not None:
            await update.callback_query.answer(texts.not_allowed_alert(user_id), show_alert=True)
        elif update.effective_chat is not None:
            await context.bot.send_message(update.effective_chat.id, texts.not_allowed(user_id))
    except Exception as exc:  # noqa: BLE001 - best effort: nothing about it may let the update through
        log.info("a stranger's refusal was not delivered: %s", exc)


def _new_goal_id() -> str:
    """The id of the goal the message being handled would start: the same for every copy of one update."""
    delivery = current_delivery()
    return delivery.goal_id() if delivery is not None else new_id("g")


class Handlers:
    def __init__(self, services: BotServices, lost: LostGoals | None = None) -> None:
        self._s = services
        self._secrets = SecretGate(services, self._take_text)
        self._lost = lost or LostGoals()  # goals acknowledged and not yet finished, to tell of if Redis loses them
        self.follow_ups = FollowUps(services)
        self.voice = VoiceNotes(services, self._take_text, self._start_goal)

    async def gate(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Runs before every other handler: strangers get one polite refusal and nothing else."""
        user = update.effective_user
        if user is None or self._s.is_allowed(user.id) or admitted_by_invite(self._s, update):
            if user is not None and await flooding(self._s, update, context):
                raise ApplicationHandlerStop
            if await self._secrets.screen(update, context):  # before any handler stores or logs it
                raise ApplicationHandlerStop
            return
        # Whatever the refusal did (a stranger who blocked the bot answers 403, a press may be
        # too old to answer), the stranger's update goes no further: had the refusal raised,
        # PTB would have run the error handler and then the next handler group.
        await _refuse(update, context, user.id)
        raise ApplicationHandlerStop

    async def start(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        user = update.effective_user
        try:
            settings = UserSettingsStore(self._s.redis).get(user.id)
            name, current = settings.agent_name, settings.approval_mode
        except Locked:  # a confidential user's chosen name is sealed: greet with the default one
            name, current = UserSettings().agent_name, None
        if not approval_mode_view.first_offer(self._s, user.id):  # asked once; /settings has it after that
            await update.effective_message.reply_text(texts.greeting(user.first_name or "there", name, choosing=False))
            return
        # One message: the greeting, and the one choice of when a message waits for a card.
        await update.effective_message.reply_text(
            texts.greeting(user.first_name or "there", name) + "\n\n" + approval_mode_view.QUESTION,
            reply_markup=approval_mode_view.mode_buttons(self._s, user.id, current))

    async def help(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.effective_message.reply_text(texts.HELP)

    async def goals(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        try:
            recent = self._s.goals.recent(update.effective_user.id, limit=10)
        except Locked:
            await update.effective_message.reply_text(locked_goals_text(self._s.redis, update.effective_user.id))
            return
        if not recent:
            await update.effective_message.reply_text("You have no goals yet. Text me one!")
            return
        user_id = update.effective_user.id
        receipts = ReceiptStore(self._s.redis).list(user_id)
        lines = [f"• {texts.shorten(g.text)} — {STATUS_WORDS[g.status]}"
                 + "".join(f"\n   {r.line()}" for r in receipts if r.goal_id == g.id) for g in recent]
        await reply_in_parts(update.effective_message, "Your recent goals:\n" + "\n".join(lines))
        for goal in [g for g in recent if not g.status.finished][:5]:
            link = goal_link(self._s, goal.id)  # the web view's page of the goal, opened after /web
            await update.effective_message.reply_text(
                goal_card(goal) + (f"\nSee the whole goal: {link}" if link else ""),
                reply_markup=self._controls(goal, user_id), link_preview_options=NO_PREVIEW)

    def _controls(self, goal: Goal, user_id: int) -> InlineKeyboardMarkup:
        sign = self._s.buttons.data
        first = ("Resume", "gr") if goal.status is GoalStatus.paused else ("Pause", "gp")
        rows = [[
            InlineKeyboardButton(first[0], callback_data=sign(first[1], goal.id, user_id)),
            InlineKeyboardButton("Edit", callback_data=sign("ge", goal.id, user_id)),
            InlineKeyboardButton("Cancel", callback_data=sign("gx", goal.id, user_id)),
        ]]
        if goal.monitor is not None and goal.monitor.reminder is None:
            rows.append([InlineKeyboardButton(b.text, callback_data=sign(*(b.sign or "").split(":"), user_id))
                         for b in choice_buttons(goal)])
        return InlineKeyboardMarkup(rows)

    async def retry(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        failed = next((g for g in self._s.goals.recent(update.effective_user.id) if g.status is GoalStatus.failed), None)
        if failed is None:
            await update.effective_message.reply_text("There's no stopped goal to retry.")
            return

        def restart(goal: Goal) -> Goal | None:
            if goal.status is not GoalStatus.failed:
                return None
            goal.error, goal.model_attempts = None, 0
            return next_turn(goal, GoalEvent.retry, self._s.clock())

        move_and_hand_on(self._s.goals, failed.id, restart, self._s.dispatch.step, self._s.clock())
        await update.effective_message.reply_text(f"Trying again: “{texts.shorten(failed.text)}”.")

    async def rules(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        user_id, chat_id = update.effective_user.id, update.effective_chat.id
        sentence = " ".join(context.args or []).strip()
        if sentence:
            if len(sentence) > texts.MAX_RULE_CHARS:
                await update.effective_message.reply_text(texts.rule_too_long(len(sentence)))
                return
            self._s.dispatch.rule_request(user_id, chat_id, sentence)
            await update.effective_message.reply_text("Reading your rule; I'll show you what I understood.")
            return
        rules = self._s.rules.list(user_id)
        if not rules:
            await update.effective_message.reply_text(texts.NO_RULES)
            return
        lines = [f"{i}. {describe(rule)}" for i, rule in enumerate(rules, 1)]
        buttons = [
            [InlineKeyboardButton(f"Remove {i}", callback_data=self._s.buttons.data("rx", rule.id, user_id))]
            for i, rule in enumerate(rules, 1)
        ]
        await reply_in_parts(update.effective_message,
                             "Your rules (Deputy's built-in protections always apply on top):\n" + "\n".join(lines),
                             InlineKeyboardMarkup(buttons))

    async def audit(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        user_id = update.effective_user.id
        page = audit_page(self._s.audit, user_id)
        if page is None:
            await update.effective_message.reply_text("Nothing has been recorded yet.")
            return
        buttons = [InlineKeyboardButton(label, callback_data=self._s.buttons.data(kind, ident, user_id))
                   for label, kind, ident in page.buttons]
        await reply_in_parts(update.effective_message, page.text, InlineKeyboardMarkup([buttons]) if buttons else None)

    async def activity(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        goals = self._s.goals.recent(update.effective_user.id, limit=10)
        if not goals:
            await update.effective_message.reply_text("Nothing yet. Text me a goal!")
            return
        # Negotiations show their mandate and where each counterpart stands.
        negotiations = negotiations_text(self._s, update.effective_user.id)
        web = "\n\nEvery step, what was read and why, in a browser: /web" if self._s.web_url else ""
        await reply_in_parts(update.effective_message,
                             format_activity(goals) + (f"\n\n{negotiations}" if negotiations else "") + web)

    async def unknown_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        command, _, addressee = (update.effective_message.text or "/").split()[0].partition("@")
        if addressee and addressee.lower() != (context.bot.username or "").lower():
            # `/start@OtherBot` in a group is for another bot: CommandHandler already let it pass
            # (it checks the addressee), and answering it would talk over that bot.
            return
        await update.effective_message.reply_text(texts.unknown_command(texts.shorten(command, 64)))

    async def file(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A photo or document: stored in Redis for the user and given to a new goal."""
        message = update.effective_message
        if message.photo:
            item, name, mime = message.photo[-1], f"photo-{message.message_id}.jpg", "image/jpeg"
        else:
            item, name = message.document, message.document.file_name or "file"
            mime = message.document.mime_type or "application/octet-stream"
        refusal = accepts(mime, item.file_size or 0)
        if refusal is not None:
            await message.reply_text(refusal)
            return
        if await files_refused(self._s, update):
            return
        data = await (await item.get_file()).download_as_bytearray()
        refusal = accepts(mime, len(data))
        if refusal is not None:
            await message.reply_text(refusal)
            return
        if await self._secrets.file_with_secret(update, bytes(data), mime):
            return
        # Kept in Redis under the user's id, so a worker on any machine can read it.
        attachment = await asyncio.to_thread(self._s.uploads.put, update.effective_user.id, name, mime, bytes(data))
        caption = (message.caption or "").strip() or f"Have a look at {name} and tell me what matters."
        await self._start_goal(update, caption, [attachment])

    async def not_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        await message.reply_text(texts.EMPTY if message.text is not None else texts.NOT_TEXT)

    async def text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await self._take_text(update, update.effective_message.text or "")

    async def _take_text(self, update: Update, text: str) -> None:
        """A text the user sent (or the part of it left once a secret was taken out)."""
        message = update.effective_message
        if len(text) > texts.MAX_MESSAGE_CHARS:
            await message.reply_text(texts.too_long(len(text)))
            return
        if not text.strip():
            await message.reply_text(texts.EMPTY)
            return
        user_id = update.effective_user.id
        goal_id = _new_goal_id()
        # One command decides what the message is for (in this order): a memory being corrected,
        # a goal being edited, a send window being edited, an answer a goal waits for, else a new
        # goal, whose start it also reads for.
        takes = [editing_memory_key(user_id), editing_key(user_id), editing_send_key(user_id)]
        while True:
            pending = await self._s.intake.pending(user_id, takes, goal_id)
            if pending.taken is None:
                break
            takes = takes[takes.index(pending.taken) + 1:]  # if it leads nowhere, look at the rest
            if pending.taken == editing_memory_key(user_id):
                corrected = apply_memory_edit(self._s, user_id, pending.value, text)
                if corrected is not None:
                    await message.reply_text(f"Updated: I now remember “{corrected.text}”.")
                    return
            elif pending.taken == editing_send_key(user_id):
                answer = apply_send_edit(self._s, user_id, pending.value, text)
                if answer is not None:
                    await message.reply_text(answer)
                    return
            else:
                edited = apply_edit(self._s, pending.value, user_id, text)
                if edited is not None:
                    await message.reply_text(f"Got it: I've updated “{texts.shorten(edited.text)}”.")
                    return
        if await take_code_reply(self._s, user_id, message, text, pending.new_goal.handoff):
            return
        # A reply to Deputy's message about a goal is for that goal: its answer if it waits for one.
        replied = await self.follow_ups.replied_to(update)
        awaiting = pending.awaiting if replied is None else replied.id if waits_for_answer(replied) else None
        if awaiting is not None:
            try:
                answered = self._answer(awaiting, text)
            except Locked:  # kept, sealed, for the goal: it reaches it when the user unlocks
                await message.reply_text(keep_answer(self._s.redis, user_id, awaiting, text))
                return
            if answered is not None:
                remember_fed_now(self._s, user_id, message.message_id, answered)  # an edit may still reword it
                await message.reply_text(texts.answer_received(answered.text))
                return
        if await self.voice.linked(update, text):  # a link to a video or audio file: heard, not opened as a page
            return
        await self._start_goal(update, text, [], pending, from_message=message.message_id, replied=replied)

    async def edited(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A message the user edited: it rewords what a goal has not read yet, and never starts a goal."""
        message = update.edited_message
        text = message.text or ""
        if text.strip() and len(text) <= texts.MAX_MESSAGE_CHARS and not text.startswith("/"):
            goal = apply_message_edit(self._s, update.effective_user.id, message.message_id, text)
            if goal is not None:
                await message.reply_text(f"Got it: I'll use your edit for “{texts.shorten(goal.text)}”.")
                return
        await message.reply_text(EDIT_IGNORED)

    async def _start_goal(
        self, update: Update, text: str, attachments: list[Attachment], pending: Pending | None = None,
        from_message: int | None = None, replied: Goal | None = None, follow: bool = True,
    ) -> None:
        """Take the goal's place in the plan, store it, audit it and enqueue its first step (one
        script), then acknowledge. `pending`: what the intake read for this message, if it did;
        `replied`: the goal of the Deputy message it replies to; `follow`: it may follow up a goal."""
        user_id, chat_id, now = update.effective_user.id, update.effective_chat.id, self._s.clock()
        if pending is None:
            pending = await self._s.intake.pending(user_id, [], _new_goal_id())
        # Every copy of one update (a webhook retry, a replayed or re-fetched poll) names the
        # goal after the update, so a copy whose goal is already stored does not create it twice.
        if pending.new_goal.stored:
            await update.effective_message.reply_text(texts.ACK_NEW_GOAL)
            return
        goal = Goal(
            id=pending.new_goal.goal_id,
            user_id=user_id,
            chat_id=chat_id,
            text=text,
            messages=[user_message(text)],
            attachments=attachments,
            created_at=now,
            updated_at=now,
            spoken=SPOKEN.get(),
        )
        followed = await self.follow_ups.followed(update, pending, replied) if follow else None
        if followed is not None:
            carry(goal, followed.goal, now)
        admission = await self._s.intake.admit(goal, pending, from_message, files=len(attachments))
        if admission.goal is None:
            await tell_refusal(self._s, update, admission.started)  # which limit, and when it resets
            return
        self._lost.remember(goal.id, user_id, chat_id, text)
        ack = texts.ACK_NEW_GOAL if followed is None else \
            f"{texts.ACK_NEW_GOAL}\n{texts.continuing_from(followed.goal.text)}"
        await update.effective_message.reply_text(ack)
        for notice in near_notices(admission.started, now):
            await update.effective_message.reply_text(notice)

    def _answer(self, goal_id: str, text: str) -> Goal | None:
        return add_answer(self._s.goals, goal_id, text, self._s.clock(), self._s.dispatch.step)

    async def press(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if await self._secrets.release(update):
            return
        query = update.callback_query
        restart = await take_restart(self._s, self._s.intake.client(), query.data or "", query.from_user.id)
        if restart is not None:  # Start again, on the notice of a goal lost with Redis's data
            await answer_press(query, "Starting it again." if restart else "That one was started again already.")
            try:
                await query.edit_message_reply_markup(None)
            except TelegramError as exc:  # the notice may be gone; the goal starts all the same
                log.info("could not take the Start again button away: %s", exc)
            if restart:
                await self._start_goal(update, restart, [], follow=False)
            return
        answer = decide_press(self._s, query.data or "", query.from_user.id)
        # Answered as soon as the decision is recorded, before any edit; a press too old to
        # answer (it waited, or was replayed after a restart) still changes its card.
        await answer_press(query, answer.toast, show_alert=answer.alert)
        if answer.gone and query.message is not None:
            try:
                await query.edit_message_reply_markup(None)
            except TelegramError as exc:
                log.info("could not take the buttons off a card that is gone: %s", exc)
        if answer.card_suffix and query.message is not None and getattr(query.message, "text", None):
            try:
                others = without_button(query.message.reply_markup, query.data) if answer.only_this_button else None
                await query.edit_message_text(f"{query.message.text}\n\n{answer.card_suffix}", reply_markup=others)
            except TelegramError as exc:  # the card may be gone or already edited; the decision stands
                log.info("could not edit card: %s", exc)

    async def error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        if isinstance(context.error, Locked):  # a confidential user's data, asked for while locked: no failure
            log.info("a locked user's data was asked for; they are told to unlock")
        elif isinstance(context.error, Conflict) and update is None:  # from polling, not from a handler
            log.warning("Telegram ended this bot's long poll (%s); if this repeats, a program that does not "
                        "share this Redis polls with the same token (stop it)", context.error)
        else:
            log.error("error handling an update", exc_info=context.error)
        if not isinstance(update, Update):
            return
        text = texts.STORAGE_DOWN if isinstance(context.error, redis.RedisError) else texts.INTERNAL_ERROR
        if isinstance(context.error, Locked):
            text = context.error.user_message
        try:
            if update.callback_query is not None:
                await answer_press(update.callback_query, text, show_alert=True)
            elif update.effective_chat is not None:
                await context.bot.send_message(update.effective_chat.id, text)
        except TelegramError:
            log.warning("could not tell the user about the error")
