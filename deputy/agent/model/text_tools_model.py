"""`TextToolsChatModel`: a blocking `ChatModel` wrapper that makes small models usable by the runner.

The policy (fewer tools, reading calls written as text, one corrected retry, then a question
to the user) lives in `deputy.agent.model.text_tools` as pure functions; this only drives it.
"""

from __future__ import annotations

from typing import Any

from deputy.agent.model.async_model import AsyncChatModel
from deputy.agent.model.chat_model import ChatModel, ModelReply
from deputy.agent.model.text_tools import TextToolsOptions, complete_async, drive_sync, text_tools_turn


class TextToolsChatModel:
    """Wraps `inner` (any `ChatModel`); see `deputy.agent.model.text_tools` for what it adds."""

    def __init__(self, inner: ChatModel, options: TextToolsOptions | None = None) -> None:
        self._inner = inner
        self.options = options or TextToolsOptions()
        if self.options.max_tools is not None and self.options.max_tools < 1:
            raise ValueError("max_tools must be at least 1")

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        """One runner turn: at most two model calls; raises `ModelError` like the inner model."""
        return drive_sync(text_tools_turn(messages, tools, self.options), self._inner.complete)


class AsyncTextToolsChatModel:
    """The same wrapper around an `AsyncChatModel` (the model gateway's client)."""

    def __init__(self, inner: AsyncChatModel, options: TextToolsOptions | None = None) -> None:
        self._inner = inner
        self.options = options or TextToolsOptions()

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        return await complete_async(self._inner.complete, messages, tools, self.options)
