"""Every way into the bot is read for secrets before anything is stored, logged or shown to the model.

Texts and their edits, commands (`/rules`, `/negotiate`, `/memory` edits, `/connect api`
with a login in the address), photo and file captions and file names, WhatsApp texts and
list replies (they arrive as texts) all pass `screen` first, from the bot's gate; the text
of a text file, and the text read in a photo or picture (`photo_text`), pass
`file_with_secret` before the file is kept. A message found to hold
a secret is deleted where the chat allows it (Telegram; on WhatsApp the user is told to do
it), the kind is audited (never the value), and:

- a text goes on with a handle in place of each value ("password is [a password removed]");
- the user is offered the vault's private page when the secret is one it keeps (a card, a
  login);
- the original is held sealed for a few minutes behind a signed, single-use button, so a
  look-alike taken wrongly is released in one tap;
- a message naming a secret without its value ("the wifi password is") is remembered, sealed,
  for a few minutes, and the next one is read as its continuation. When it is nothing but such a
  label it starts no goal: it waits for the next message, and goes on with it (the value
  replaced by a handle when that message is the value).
"""

from __future__ import annotations

import logging
import re
from typing import Awaitable, Callable

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Message, Update
from telegram.ext import ContextTypes

from deputy.bot import secret_paste
from deputy.bot.buttons import InvalidButton
from deputy.bot.held_messages import Lead
from deputy.bot.photo_text import PhotoReader
from deputy.bot.press_answers import answer_press
from deputy.bot.services import BotServices
from deputy.core.records.handoff import HandOffStore, looks_like_code
from deputy.core.secret_scan import Scan, find_secrets, find_secrets_after, is_lead, waits_for_value
from deputy.core.secret_scan.pictures import picture_secrets

log = logging.getLogger(__name__)

TextTaker = Callable[[Update, str], Awaitable[None]]
_TEXT_FILES = ("text/", "application/json", "application/xml", "application/x-yaml", "application/yaml")
# Words that only frame a secret: what is left of "my password is X" is no goal.
_FRAMING = frozenset("""my the a an is it it's its this that here here's and or of for to on with use
password passwort pw pwd pass passcode pin code cvc cvv key token api secret login user username card number
exp expiry expires valid until phrase seed recovery words iban ssn passport please thanks""".split())


def _said(message: Message) -> tuple[str, bool]:
    """What the user wrote in `message` (text or caption, and a file's name), and whether it is a text."""
    if message.text is not None:
        return message.text, True
    parts = [message.caption or ""]
    if message.document is not None and message.document.file_name:
        parts.append(message.document.file_name)
    return "\n".join(p for p in parts if p), False


async def _delete(message: Message) -> bool:
    try:
        return bool(await message.delete())
    except Exception as exc:  # noqa: BLE001 - Telegram refuses old messages; WhatsApp refuses all: the user is told
        log.warning("could not delete a message that looked like a secret (%s)", type(exc).__name__)
        return False


def worth_a_goal(rest: str) -> bool:
    """Whether what is left of a message once its secret is out still asks for something."""
    return _worth_a_goal(rest)


def _worth_a_goal(rest: str) -> bool:
    words = [w for w in re.findall(r"[^\W\d_]{3,}", rest.lower()) if w not in _FRAMING]
    return len(words) >= 2


class SecretGate:
    def __init__(self, services: BotServices, take_text: TextTaker, photos: PhotoReader | None = None) -> None:
        self._s = services
        self._take_text = take_text
        self._photos = photos or PhotoReader()

    async def screen(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
        """True when the update held a secret and was dealt with here (nothing else may see it)."""
        message, user = update.effective_message, update.effective_user
        if message is None or user is None or update.callback_query is not None:
            return False
        said, is_text = _said(message)
        if not said or (is_text and _OWN_CODE.match(said)):
            return False
        lead = self._s.held.take_lead(user.id) if self._s.held is not None else None
        scan = find_secrets_after(lead.text if lead is not None else None, said)
        if scan.found and is_text and self._answers_a_page(user.id, said):
            return False  # a page asked for this code: the hand-off takes it out of the chat itself
        if scan.found:
            await self._take_out(update, message, said, scan, is_text, lead)
            return True
        if lead is not None and lead.held and await self._let_lead_go(update, lead, said, is_text):
            return True
        new_text = is_text and getattr(update, "edited_message", None) is None and not said.startswith("/")  # not an edit
        if new_text and self._s.held is not None and is_lead(scan.text):
            waits = waits_for_value(scan.text)
            self._s.held.mark_lead(user.id, said, held=waits)
            if waits:  # a label alone starts nothing: it waits for its value
                await update.effective_chat.send_message(secret_paste.WAITING_FOR_VALUE)
                return True
        return False

    async def _let_lead_go(self, update: Update, lead: Lead, said: str, is_text: bool) -> bool:
        """A held label whose next message was not its value: they go on together. True if this took the update."""
        if is_text and not said.startswith("/"):
            await self._take_text(update, f"{lead.text}\n{said}")
            return True
        if _worth_a_goal(lead.text):  # a command or a file came next: the label goes on by itself, if it says anything
            await self._take_text(update, lead.text)
        return False

    def _answers_a_page(self, user_id: int, said: str) -> bool:
        handoff = HandOffStore(self._s.redis, self._s.clock).open(user_id)
        return handoff is not None and (looks_like_code(said, handoff) or find_secrets(said).kind == "one_time_code")

    async def _take_out(self, update: Update, message: Message, said: str, scan: Scan, is_text: bool,
                        lead: Lead | None = None) -> None:
        user_id, chat = update.effective_user.id, update.effective_chat
        before = f"{lead.text}\n" if lead is not None and lead.held else ""  # the label held for this value
        deleted = await _delete(message)
        self._s.audit.append(user_id, "secret_message_deleted", self._s.clock(), what=scan.label, removed=deleted)
        lines = [secret_paste.deleted_notice(scan.label, deleted)]
        command = said.split()[0].split("@")[0] if is_text and said.startswith("/") else None
        redacted = before + scan.redacted() if is_text and command is None else None
        if redacted is not None and not _worth_a_goal(before + scan.redacted("")):
            redacted = None  # nothing but the secret and words about it: no goal to carry on
        if command is not None:
            lines.append(secret_paste.command_notice(command))
        elif not is_text:
            lines.append("Please send the file again without it in its caption or name.")
        elif redacted is not None:
            lines.append(secret_paste.carrying_on(redacted))
        service = secret_paste.vault_service(scan.kind or "", before + scan.text)
        if service is not None:
            token = self._s.links.create(user_id, chat.id, service)
            lines.append(secret_paste.vault_offer(service, f"{self._s.connect_url}/connect/{token}"))
        markup = None
        if is_text and command is None and self._s.held is not None:
            ident = self._s.held.hold(user_id, before + said)
            markup = InlineKeyboardMarkup([[InlineKeyboardButton(
                secret_paste.RELEASE_BUTTON, callback_data=self._s.buttons.data("sr", ident, user_id))]])
        await chat.send_message("\n\n".join(lines), reply_markup=markup)
        if redacted is not None:
            await self._take_text(update, redacted)

    async def release(self, update: Update) -> bool:
        """A press of the release button: the held message goes on as written. True if it was one."""
        query = update.callback_query
        if query is None or not (query.data or "").startswith("sr:"):
            return False
        user_id = query.from_user.id
        try:
            _, ident = self._s.buttons.verify(query.data or "", user_id)
        except InvalidButton:
            await answer_press(query, "That button isn't valid.", show_alert=True)
            return True
        text = self._s.held.release(user_id, ident) if self._s.held is not None else None
        if text is None:
            await answer_press(query, secret_paste.RELEASE_GONE, show_alert=True)
            return True
        await answer_press(query, secret_paste.RELEASED)
        self._s.audit.append(user_id, "secret_message_released", self._s.clock())
        if query.message is not None:
            try:
                await query.edit_message_reply_markup(reply_markup=None)
            except Exception:  # noqa: BLE001 - the button staying is harmless: it works once
                pass
        await self._take_text(update, text)
        return True

    async def file_with_secret(self, update: Update, data: bytes, mime: str) -> bool:
        """True when a text file or a picture holds a secret: it is not kept, and the user is told."""
        if mime.startswith("image/"):
            return await self._picture_with_secret(update, data)
        if not mime.startswith(_TEXT_FILES):
            return False
        scan = find_secrets(data[:200_000].decode("utf-8", errors="replace"))
        if not scan.found:
            return False
        await _delete(update.effective_message)
        self._s.audit.append(update.effective_user.id, "secret_file_refused", self._s.clock(), what=scan.label)
        await update.effective_chat.send_message(secret_paste.FILE_NOTICE.format(kind=scan.label))
        return True


    async def _picture_with_secret(self, update: Update, data: bytes) -> bool:
        """A photo (or an image file) whose text shows a secret: deleted, not kept, and its caption goes on with a
        handle in the photo's place. The text read is only scanned: never kept, logged or shown."""
        text = await self._photos.text(data)
        scan = picture_secrets(text) if text else None
        if scan is None or not scan.found:
            return False
        message, user_id = update.effective_message, update.effective_user.id
        deleted = await _delete(message)
        self._s.audit.append(user_id, "secret_photo_deleted", self._s.clock(), what=scan.label, removed=deleted)
        lines = [secret_paste.deleted_notice(scan.label, deleted, what="photo")]
        caption = (message.caption or "").strip()
        goal = f"{caption}\n{secret_paste.photo_handle(scan.label)}" if _worth_a_goal(caption) else None
        lines.append(secret_paste.carrying_on(goal) if goal else secret_paste.PHOTO_AGAIN)
        service = secret_paste.vault_service(scan.kind or "", f"{caption}\n{scan.text}")
        if service is not None:
            token = self._s.links.create(user_id, update.effective_chat.id, service)
            lines.append(secret_paste.vault_offer(service, f"{self._s.connect_url}/connect/{token}"))
        await update.effective_chat.send_message("\n\n".join(lines))
        if goal is not None:
            await self._take_text(update, goal)
        return True


# "/start <code>", "/link <code>": Deputy's own one-time codes (an invitation, a deep link's payload, the code
# that joins a Telegram and a WhatsApp account), made to be sent in the chat.
_OWN_CODE = re.compile(r"^/(?:start|link)(?:@\w+)?\s+[\w-]{1,64}\s*$")


def without_secrets(update: dict) -> dict:
    """An update as it may be written down (kept to be handled again after a crash): secrets replaced by handles."""
    for kind in ("message", "edited_message"):
        message = update.get(kind)
        if not isinstance(message, dict):
            continue
        for field in ("text", "caption"):
            value = message.get(field)
            if isinstance(value, str) and not _OWN_CODE.match(value) and (scan := find_secrets(value)).found:
                message[field] = scan.redacted()
    return update
