"""`/web`: a private link to the user's web view of goals, actions, the audit trail and money.

The link works once, for a few minutes, and opens a browser session for the user who asked;
`/web off` ends every session and unused link at once (a lost phone, a shared computer).
"""

from __future__ import annotations

from telegram import LinkPreviewOptions, Update
from telegram.ext import ContextTypes

from deputy.bot.services import BotServices
from deputy.core.accounts.web_sessions import LINK_SECONDS, SESSION_SECONDS, WebSessions

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
"""A link preview would fetch the page: the link is the user's to open."""


def goal_link(services: BotServices, goal_id: str) -> str | None:
    """Where a goal's page is in the web view ("see the whole goal"); None when none is served."""
    return f"{services.web_url}/web/goal/{goal_id}" if services.web_url else None


class WebHandlers:
    def __init__(self, services: BotServices) -> None:
        self._s = services
        self._sessions = WebSessions(services.redis)

    async def web(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        user_id = update.effective_user.id
        if context.args and context.args[0].lower() in ("off", "stop", "revoke"):
            ended = self._sessions.revoke(user_id)
            self._s.audit.append(user_id, "web_sessions_ended", self._s.clock(), count=ended)
            await update.effective_message.reply_text(
                "🔒 Done: every web view session and unused link of yours has ended. /web gives a new link.")
            return
        if not self._s.web_url:
            await update.effective_message.reply_text("The web view is not running on this Deputy.")
            return
        token = self._sessions.create_link(user_id)
        self._s.audit.append(user_id, "web_link_issued", self._s.clock())
        await update.effective_message.reply_text(
            f"🌐 Your private web view (goals, what was read, every action and why, the audit trail, money). "
            f"The link works once, within {LINK_SECONDS // 60} minutes, and the page stays open for "
            f"{SESSION_SECONDS // 3600} hours. Don't share it.\n{self._s.web_url}/web/open/{token}\n"
            "/web off ends every session.", link_preview_options=NO_PREVIEW)
