"""A reply to a page's request for a code: taken out of the chat and typed in by the executor.

When a page asked the user for a one-time code or a CAPTCHA's answer (a hand-off, see
`deputy.core.records.handoff`) and their next message is just that, the bot deletes the message, keeps
the code briefly under a one-time key and asks the executor to enter it. The code is not
logged, not audited and never becomes part of the goal: the model only hears that the step
was done. Anything else closes the question and goes to the goal as an ordinary answer.
"""

from __future__ import annotations

import logging

from telegram import Message
from telegram.error import TelegramError

from deputy.agent.goals import GoalStatus
from deputy.bot.services import BotServices
from deputy.core.records.handoff import HandOffStore, looks_like_code, normalised_code

log = logging.getLogger(__name__)


async def take_code_reply(services: BotServices, user_id: int, message: Message, text: str,
                          open_id: str | None) -> bool:
    """True when `text` was the answer to a page's request and is on its way to the page.

    `open_id`: the page waiting for this user, as the intake read it (None: no page is waiting)."""
    if open_id is None:
        return False
    store = HandOffStore(services.redis, services.clock)
    handoff = store.get(user_id, open_id)
    if handoff is None:
        return False
    goal = services.goals.get(handoff.goal_id)
    if goal is None or goal.status is not GoalStatus.waiting_user or not looks_like_code(text, handoff):
        store.close(user_id, handoff.id)
        return False
    store.put_code(handoff, normalised_code(text))
    try:
        await message.delete()
    except TelegramError:
        log.warning("could not delete a message with a code for a page")
    services.dispatch.handoff_code(user_id, handoff.id)
    services.audit.append(user_id, "handoff_answer_received", services.clock(), goal_id=handoff.goal_id,
                          site=handoff.site)
    await message.chat.send_message(
        f"Got it. I deleted your message and I'm entering it on {handoff.site} now; the AI model never sees it."
    )
    return True
