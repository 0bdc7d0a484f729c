"""Everything the bot says on its own, in one place."""

MAX_MESSAGE_CHARS = 4096

HELP = (
    "Text me a goal in plain words, for example “email alice@example.org that I'll be 10 minutes late”. "
    "I work on it in the background. A message soon after (“send it to Bob too”) follows up your previous "
    "request, and so does a reply to one of my messages. Spending, deleting and account changes always wait for your OK here; "
    "a message waits for it as you chose in /settings (by default, when you didn't name the recipient yourself).\n\n"
    "/goals – your recent goals and where they stand\n"
    "/activity – what is done, in progress and next\n"
    "/rules – your rules for what I may do without asking (add one: /rules never spend more than $50)\n"
    "/audit – recent decisions and why; /web – a private link to see it all in a browser (/web off ends it)\n"
    "/connect – connect your email or calendar safely; /connections – what is connected\n"
    "/quiet 22:00 07:00 – hold unprompted news at night\n"
    "/interests jazz, italian food – suggestions from what you like (opt-in)\n"
    "/memory – what I remember about you; /settings – my name, tone, language, time zone, when I ask\n"
    "/files – the files you sent and the ones I made for you (send a file with what to do with it)\n"
    "/confidential – encrypt your data with a passphrase only you know; /unlock, /lock\n"
    "/export – a file with all your data; /delete_me – erase it all\n"
    "/negotiate – sell, buy or lower a bill within limits you set (/negotiate shows how)\n"
    "/retry – try your last failed goal again\n"
    "/new – start afresh: your next message doesn't follow up the previous one\n"
    "/plan – your plan, what you have used and when it resets\n"
    "/link – use the same Deputy from Telegram and WhatsApp\n"
    "/help – this message"
)


def greeting(first_name: str, agent_name: str, *, choosing: bool = True) -> str:
    """`choosing`: the setting for messages is offered below (the first /start only)."""
    when = "below, choose when a message should" if choosing else \
        "when a message should is your choice in /settings"
    return (
        f"Hi {first_name}! I'm {agent_name}, your personal agent.\n"
        "Tell me what you want done and I'll work on it in the background. Spending, deleting and account "
        f"changes always wait for your OK; {when}. /help shows what I can do."
    )


def not_allowed(user_id: int) -> str:
    return (
        "Sorry, this Deputy is private and you're not on its list of users. "
        f"If you should be, ask its operator to add your user id {user_id} to DEPUTY_ALLOWED_USERS, "
        "or send /start followed by the invitation code they gave you."
    )


MAX_ALERT_CHARS = 200
"""Telegram's limit for the text of a button press's answer (a toast or an alert)."""


def not_allowed_alert(user_id: int) -> str:
    """The refusal as a press's alert: within Telegram's 200 characters, whatever the id's length."""
    return f"Sorry, this Deputy is private. Ask its operator to add your user id {user_id} to DEPUTY_ALLOWED_USERS."


def too_long(length: int) -> str:
    return (
        f"That message is {length:,} characters long; I can take up to {MAX_MESSAGE_CHARS:,}. "
        "Could you shorten it or send it in parts?"
    )


EMPTY = "That message was empty. Tell me what you'd like me to do."
NOT_TEXT = "I can't read that kind of message. Send text, a voice note, a photo, a PDF or a text file."
ACK_NEW_GOAL = "On it. I'll work on this in the background and come back here when I have news or need your OK."
STORAGE_DOWN = (
    "I can't reach my storage right now, so I couldn't save that. Nothing was started. "
    "Please try again in a minute."
)
INTERNAL_ERROR = "Something went wrong on my side while handling that. Please try again."


def unknown_command(command: str) -> str:
    return f"I don't know the command {command}. Send /help to see what I understand, or just text me a goal."


def continuing_from(goal_text: str) -> str:
    """Said with the acknowledgement of a goal that follows up an earlier one."""
    return f"Continuing from: “{shorten(goal_text)}” (/new starts afresh)."


def without_continuing(text: str) -> str:
    """`text` without the “Continuing from” line of a follow-up's acknowledgement."""
    return text.split("\nContinuing from: ", 1)[0]


def answer_received(goal_text: str) -> str:
    return f"Thanks, back to work on “{shorten(goal_text)}”."


def shorten(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


MAX_RULE_CHARS = 500
NO_RULES = (
    "You have no rules yet, so I ask before anything consequential. Add one in plain words, e.g.\n"
    "/rules never spend more than $50 without asking\n"
    "/rules you may email my contacts without asking"
)


def rule_too_long(length: int) -> str:
    return f"That rule is {length:,} characters long; keep it under {MAX_RULE_CHARS} and try again."

SETTINGS_USAGE = (
    "Change one with: /settings name Jarvis · /settings tone friendly|brief|formal · /settings language German · "
    "/settings timezone Europe/Berlin · /settings training on|off · /settings voice on|off · "
    "/settings send 30 (seconds a message waits for Undo; 0 sends at once) · /settings rate EUR 1.10 (US dollars for one euro, when a negotiation compares "
    "an offer in euros with your mandate; /settings rate EUR default for mine)"
)
