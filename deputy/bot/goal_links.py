"""The "See the whole goal" link that a goal's chat messages carry to its page in the web view.

Producers (the executor's approval cards, a goal's last message) only mark an outbox message
with `goal_link`; the chat front end, which knows where the web view is served, adds the link
on delivery: a URL button under the message's own buttons on Telegram, the link in the text where
a URL button cannot go (WhatsApp's buttons are replies only; Telegram refuses a URL whose host
has no dot, such as `localhost`). With the web view off nothing is added. The link grants
nothing: the page still needs the session a `/web` link opens.
"""

from __future__ import annotations

from urllib.parse import urlparse

from deputy.core.records.outbox import Button, OutboxMessage

LINK_TEXT = "🔎 See the whole goal"


def goal_url(web_url: str, goal_id: str) -> str | None:
    """Where the goal's page is, or None when no web view is served."""
    return f"{web_url.rstrip('/')}/web/goal/{goal_id}" if web_url else None


def url_button_ok(url: str) -> bool:
    """Whether Telegram takes `url` on a button: http(s), and a host with a dot in it."""
    parsed = urlparse(url)
    return parsed.scheme in ("http", "https") and "." in (parsed.hostname or "")


def with_goal_link(message: OutboxMessage, web_url: str) -> OutboxMessage:
    """`message` with its goal's link added (as a button row, else in the text); as it is if it asks for none."""
    url = goal_url(web_url, message.goal_id) if message.goal_link and message.goal_id else None
    if url is None:
        return message
    linked = message.model_copy(update={"goal_link": False,
                                        "buttons": [*message.buttons, [Button(text=LINK_TEXT, url=url)]]})
    return linked if url_button_ok(url) else links_in_text(linked)


def links_in_text(message: OutboxMessage) -> OutboxMessage:
    """The message with its URL buttons moved into its text (for a chat that refused them)."""
    links = [b for row in message.buttons for b in row if b.url]
    if not links:
        return message
    rows = [[b for b in row if not b.url] for row in message.buttons]
    text = "\n\n".join([message.text, *(f"{b.text}: {b.url}" for b in links)])
    return message.model_copy(update={"text": text, "buttons": [row for row in rows if row]})


__all__ = ["LINK_TEXT", "goal_url", "links_in_text", "url_button_ok", "with_goal_link"]
