"""Secrets pasted into the chat: what the bot says when it takes one out.

A password, card number or API key typed into a chat stays in the chat's history (and,
with real Telegram, on Telegram's servers), and a goal made of it would reach the model
provider and Redis. Deputy never needs one there: `/connect` takes credentials on a
private page straight into the vault. Finding them is `deputy.core.secret_scan`'s job; taking
them out of every way into the bot is `deputy.bot.secret_gate`'s.
"""

from __future__ import annotations

import re

from deputy.core.secret_scan import find_secrets

RELEASE_BUTTON = "It's not a secret: use it"
_VAULT_SERVICES = {"card": "card", "card_code": "card", "password": "web", "login": "web"}
_MAIL = re.compile(r"(?i)\b(?:e-?mail|gmail|outlook|imap|smtp|mailbox|inbox|mail)\b")


def pasted_secret(text: str) -> str | None:
    """What kind of secret `text` seems to contain ("a card number", "a password", ...), or None."""
    return find_secrets(text).label


def vault_service(kind: str, text: str) -> str | None:
    """The /connect form that keeps this kind of secret for good, if there is one."""
    service = _VAULT_SERVICES.get(kind)
    return "email" if service == "web" and _MAIL.search(text) else service


def deleted_notice(kind: str, deleted: bool = True, what: str = "message") -> str:
    """`what` was taken out: "message", or "photo" (a picture whose text showed a secret)."""
    shown = "showed" if what == "photo" else "contained"
    if deleted:
        opening = (f"I deleted your {what} because it looked like it {shown} {kind}, so it isn't kept in this "
                   "chat or shown to the AI model.")
    else:  # WhatsApp does not let a business delete what a user wrote
        opening = (f"Your {what} looked like it {shown} {kind}. I did not keep it and it was not shown to the AI "
                   "model, but this chat app does not let me delete it: you may want to delete it yourself.")
    return (f"{opening} Please don't send passwords, card details or keys here. To give me access to an account "
            "safely, use /connect: you type the details on a private page and they go straight into the encrypted "
            "vault, where I never see them.")


def carrying_on(redacted: str) -> str:
    return f"I'm carrying on without it: “{redacted}”"


def vault_offer(service: str, url: str) -> str:
    what = {"card": "paying with this card", "email": "your email", "web": "logging in to that site"}[service]
    return (f"I can store it for {what} in the vault: open this private link and type it there "
            f"(it works once, for 15 minutes):\n{url}")


def command_notice(command: str) -> str:
    if command == "/connect":
        return ("Please send /connect again without a password in the address. Connect the service by its plain "
                "address, then add its key on the private page: /connect key <name>.")
    return f"Please send {command} again without it."


WAITING_FOR_VALUE = ("I'll read that together with your next message. If it's a password, code or card number, "
                     "you don't need to send it here: /connect keeps it in the encrypted vault, where I never see "
                     "it. If you send it anyway, I'll delete it and carry on without it.")
PHOTO_AGAIN = "If the picture is needed for a goal, cover or crop the secret and send it again."


def photo_handle(kind: str) -> str:
    """What stands for a photo taken out, in the goal its caption starts."""
    return f"[a photo that showed {kind}, removed]"


RELEASED = "Thanks, I'm using your message as you wrote it."
RELEASE_GONE = "I no longer have that message (I keep it for 10 minutes only). Please send it again."
FILE_NOTICE = ("That file looked like it contained {kind}, so I didn't keep it. If it is needed for a goal, "
               "send it again without the secret, and use /connect for anything I should log in with.")
