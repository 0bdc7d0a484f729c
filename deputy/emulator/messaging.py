"""Bot API methods that write to chats: send, edit, delete, answer, chat actions, files."""

from __future__ import annotations

import hashlib
import mimetypes
import posixpath
import secrets
from urllib.parse import urlparse

from deputy.emulator.audio import ogg_opus_seconds
from deputy.emulator.errors import bad_request
from deputy.emulator.formatting import check_text, format_text
from deputy.emulator.hub import Emulator
from deputy.emulator.images import image_info
from deputy.emulator.params import MethodTable, Params, UploadedFile
from deputy.emulator.records import Button, Chat, Document, Json, Media, Photo
from deputy.emulator.tgobjects import parse_inline_keyboard

METHODS = MethodTable()

#: Uploads above this are described (name, size) but their bytes are not kept.
KEEP_CONTENT_LIMIT = 20 * 1024 * 1024
#: Bots may download files of up to 20 MB (getFile answers "file is too big" above it).
DOWNLOAD_LIMIT = 20 * 1024 * 1024
#: Telegram's limits for photos: 10 MB, width + height at most 10000, sides at most 20:1.
PHOTO_MAX_BYTES = 10 * 1024 * 1024
PHOTO_MAX_SIDES = 10_000
PHOTO_MAX_RATIO = 20


def _chat(emu: Emulator, params: Params) -> Chat:
    """The chat the call writes to: 400 if there is none, 403 if its user blocked the bot."""
    if not params.has("chat_id"):
        raise bad_request("chat_id is empty")
    # "@username" or junk can never name a private chat here.
    chat_id = params.integer("chat_id", error="chat not found")
    assert chat_id is not None
    return emu.state.writable_chat(chat_id)


def _sending_chat(emu: Emulator, params: Params) -> Chat:
    """The chat a new message goes to, within Telegram's send rates (else 429 with retry_after)."""
    chat = _chat(emu, params)
    emu.check_send_rate(chat.user_id)
    return chat


def _message_id(params: Params) -> int:
    if params.has("inline_message_id") and not params.has("message_id"):
        raise bad_request("MESSAGE_ID_INVALID")  # no inline mode: no inline messages exist
    message_id = params.integer("message_id", error="message identifier is not specified")
    if message_id is None:
        raise bad_request("message identifier is not specified")
    return message_id


def _keyboard(params: Params) -> list[list[Button]]:
    markup = params.json_value("reply_markup", error="can't parse reply keyboard markup JSON object")
    return parse_inline_keyboard(markup)


def _formatted(params: Params, name: str, entities_name: str) -> tuple[str, list[Json]]:
    text = params.text(name) or ""
    return format_text(text, params.text("parse_mode"), params.values.get(entities_name))


def _reply_to(chat: Chat, params: Params) -> int | None:
    """reply_parameters (current API) or reply_to_message_id (older API)."""
    reply = params.json_value("reply_parameters", error="can't parse reply parameters JSON object")
    allow_missing = params.flag("allow_sending_without_reply")
    if isinstance(reply, dict):
        target, allow_missing = reply.get("message_id"), bool(reply.get("allow_sending_without_reply"))
    elif reply is not None:
        raise bad_request("can't parse reply parameters JSON object")
    else:
        target = params.integer("reply_to_message_id", error="message to be replied not found")
    if target is None:
        return None
    if isinstance(target, int) and target in chat.messages:
        return target
    if allow_missing:
        return None
    raise bad_request("message to be replied not found")


@METHODS.register("sendMessage")
async def send_message(emu: Emulator, params: Params) -> Json:
    """Send a text message, optionally formatted and with an inline keyboard."""
    chat = _sending_chat(emu, params)
    if not params.has("text"):
        raise bad_request("message text is empty")
    text, entities = _formatted(params, "text", "entities")
    check_text(text)
    keyboard = _keyboard(params)
    msg = emu.state.add_message(
        chat, "bot", text=text, entities=entities, keyboard=keyboard, reply_to=_reply_to(chat, params)
    )
    return emu.message_json(chat, msg)


@METHODS.register("editMessageText")
async def edit_message_text(emu: Emulator, params: Params) -> Json:
    """Replace a bot message's text; the keyboard becomes what this call sends (or none)."""
    chat = _chat(emu, params)
    message_id = _message_id(params)
    text, entities = _formatted(params, "text", "entities")
    check_text(text)
    msg = emu.state.edit_message(
        chat.user_id, message_id, text=text, entities=entities, keyboard=_keyboard(params)
    )
    return emu.message_json(chat, msg)


@METHODS.register("editMessageCaption")
async def edit_message_caption(emu: Emulator, params: Params) -> Json:
    """Replace a document's caption (and keyboard)."""
    chat = _chat(emu, params)
    message_id = _message_id(params)
    text, entities = _formatted(params, "caption", "caption_entities")
    check_text(text, caption=True)
    msg = emu.state.edit_message(
        chat.user_id, message_id, text=text, entities=entities, keyboard=_keyboard(params), caption=True
    )
    return emu.message_json(chat, msg)


@METHODS.register("editMessageReplyMarkup")
async def edit_message_reply_markup(emu: Emulator, params: Params) -> Json:
    """Replace (or, without reply_markup, remove) a message's inline keyboard."""
    chat = _chat(emu, params)
    message_id = _message_id(params)
    msg = emu.state.edit_message(chat.user_id, message_id, keyboard=_keyboard(params))
    return emu.message_json(chat, msg)


@METHODS.register("deleteMessage")
async def delete_message(emu: Emulator, params: Params) -> bool:
    """Delete one message of the chat."""
    chat = _chat(emu, params)
    emu.state.delete_message(chat.user_id, _message_id(params))
    return True


@METHODS.register("deleteMessages")
async def delete_messages(emu: Emulator, params: Params) -> bool:
    """Delete several messages; missing ones are skipped, as Telegram does."""
    chat = _chat(emu, params)
    ids = params.json_value("message_ids", error="can't parse message identifiers")
    if not isinstance(ids, list) or not ids:
        raise bad_request("message identifiers are not specified")
    for message_id in ids:
        if isinstance(message_id, int) and message_id in chat.messages:
            emu.state.delete_message(chat.user_id, message_id)
    return True


@METHODS.register("answerCallbackQuery")
async def answer_callback_query(emu: Emulator, params: Params) -> bool:
    """Answer a button press; the text shows as a toast (or an alert with show_alert)."""
    query_id = params.text("callback_query_id")
    if not query_id:
        raise bad_request("query is too old and response timeout expired or query ID is invalid")
    text = params.text("text") or ""
    if len(text) > 200:
        raise bad_request("MESSAGE_TOO_LONG")
    emu.state.answer_callback(query_id, text, params.flag("show_alert"), params.text("url"))
    return True


@METHODS.register("sendChatAction")
async def send_chat_action(emu: Emulator, params: Params) -> bool:
    """Show "typing…" (or another action) in the chat for a few seconds."""
    chat = _chat(emu, params)
    emu.state.record_action(chat.user_id, params.text("action") or "")
    return True


@METHODS.register("sendDocument")
async def send_document(emu: Emulator, params: Params) -> Json:
    """Send a file: a multipart upload, a file_id sent before, or any other string (URL)."""
    chat = _sending_chat(emu, params)
    return _send_captioned(emu, params, chat, document=_document(emu, params.file("document")))


@METHODS.register("sendPhoto")
async def send_photo(emu: Emulator, params: Params) -> Json:
    """Send a photo: a multipart upload (as PTB sends bytes) or the file_id of a photo sent before."""
    chat = _sending_chat(emu, params)
    return _send_captioned(emu, params, chat, photo=_photo(emu, params.file("photo")))


@METHODS.register("sendVoice")
async def send_voice(emu: Emulator, params: Params) -> Json:
    """Send a voice note: an upload of an OGG file with Opus audio, its length read from the file.

    Telegram shows other formats as a file or refuses them; a bot that means a voice note sends OGG/Opus."""
    chat = _sending_chat(emu, params)
    given = params.file("voice")
    if not isinstance(given, UploadedFile):
        raise bad_request("there is no voice in the request")
    seconds = ogg_opus_seconds(given.content)
    if seconds is None:
        raise bad_request("VOICE_INVALID: a voice note must be an OGG file with Opus audio")
    caption, entities = _formatted(params, "caption", "caption_entities")
    check_text(caption, caption=True)
    keep = given.content if len(given.content) <= KEEP_CONTENT_LIMIT else None
    media = Media("voice", new_document(given.filename or "voice.ogg", len(given.content), "audio/ogg", keep),
                  duration=max(1, round(seconds)))
    msg = emu.state.add_message(chat, "bot", text=caption, entities=entities, reply_to=_reply_to(chat, params),
                                media=media)
    return emu.message_json(chat, msg)


def _send_captioned(emu: Emulator, params: Params, chat: Chat, **media: Document | Photo) -> Json:
    """A file message (document or photo) with its optional caption, keyboard and reply."""
    caption, entities = _formatted(params, "caption", "caption_entities")
    check_text(caption, caption=True)
    msg = emu.state.add_message(
        chat, "bot", text=caption, entities=entities, keyboard=_keyboard(params), reply_to=_reply_to(chat, params),
        **media,
    )
    return emu.message_json(chat, msg)


def _photo(emu: Emulator, given: UploadedFile | str | None) -> Photo:
    if isinstance(given, UploadedFile):
        if len(given.content) > PHOTO_MAX_BYTES:
            raise bad_request("PHOTO_SAVE_FILE_INVALID")
        info = image_info(given.content)
        if info is None:
            raise bad_request("IMAGE_PROCESS_FAILED")
        mime, width, height = info
        if width < 1 or height < 1 or width + height > PHOTO_MAX_SIDES or max(width, height) > PHOTO_MAX_RATIO * min(
            width, height
        ):
            raise bad_request("PHOTO_INVALID_DIMENSIONS")
        extension = mimetypes.guess_extension(mime) or ".jpg"
        name = posixpath.basename(given.filename or "") or f"photo{extension}"
        return Photo(new_document(name, len(given.content), mime, given.content), width, height)
    if not given:
        raise bad_request("there is no photo in the request")
    known = emu.state.files.get(given)
    if known is not None and known.content is not None:
        info = image_info(known.content)
        if info is not None:
            return Photo(known, info[1], info[2])
    if known is not None:
        raise bad_request("type of file mismatch")
    # The emulator has no internet to fetch a URL from, and ids it never issued are wrong.
    raise bad_request("wrong remote file identifier specified: can't unserialize it. Wrong last symbol")


def _document(emu: Emulator, given: UploadedFile | str | None) -> Document:
    if isinstance(given, UploadedFile):
        mime = given.content_type
        if not mime or mime == "application/octet-stream":
            mime = mimetypes.guess_type(given.filename)[0] or "application/octet-stream"
        keep = given.content if len(given.content) <= KEEP_CONTENT_LIMIT else None
        return new_document(given.filename, len(given.content), mime, keep)
    if not given:
        raise bad_request("there is no document in the request")
    known = emu.state.files.get(given)
    if known is not None:
        return known
    # A URL (or an id we never issued): Telegram would fetch it; we only record its name.
    name = posixpath.basename(urlparse(given).path) or "document"
    return new_document(name, 0, mimetypes.guess_type(name)[0] or "application/octet-stream", None)


def new_document(name: str, size: int, mime: str, content: bytes | None) -> Document:
    file_id = "BQACAgIAAxkBAAI" + secrets.token_urlsafe(24)
    unique = hashlib.sha1(file_id.encode()).hexdigest()[:16]
    return Document(file_id, "AgAD" + unique, name, size, mime, content)


@METHODS.register("getFile")
async def get_file(emu: Emulator, params: Params) -> Json:
    """Describe a stored file; its bytes are served under /file/bot<token>/<file_path>."""
    doc = emu.state.files.get(params.text("file_id") or "")
    if doc is None:
        raise bad_request("wrong file_id or the file is temporarily unavailable")
    if doc.file_size > DOWNLOAD_LIMIT:
        raise bad_request("file is too big")
    return {
        "file_id": doc.file_id,
        "file_unique_id": doc.file_unique_id,
        "file_size": doc.file_size,
        "file_path": f"documents/{doc.file_id}/{doc.file_name}",
    }
