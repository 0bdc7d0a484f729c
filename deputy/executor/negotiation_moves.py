"""The executor's side of negotiation moves: review a move, write its message, send it on the right channel.

A move (`deputy.connectors.negotiation`: offer, counter, accept, decline, ask, tell) is reviewed as a move
(`deputy.sentinel.negotiation.moves.review_move`): where it lands, which parsed offer of theirs it takes,
which fact it states. Its message is written by code (`compose`) and shown on the card when one is
needed; when it runs, the same words go to the counterpart over their channel: the marketplace
conversation, the retention desk's chat, an email to the desk's address, or the operation of a service the
user connected (an OpenAPI operation, an MCP tool) that they marked as its message channel: a move to
`<service>:<recipient>` is sent through it, the words and the recipient at the arguments the mark names.
"""

from __future__ import annotations

import importlib.util
from typing import Any, Callable, Mapping

from deputy.connectors.custom import MessageChannel
from deputy.core.records.effects import ConnectorError
from deputy.core.records.actions import Action
from deputy.memory.meaning import MODEL_PACKAGE, LazyEmbedder
from deputy.sentinel.negotiation.mandate import Mandate
from deputy.sentinel.negotiation.meaning import Embed
from deputy.sentinel.negotiation.moves import compose
from deputy.sentinel.negotiation.outgoing import move_of
from deputy.sentinel.negotiation.state import NegotiationState

Runner = Callable[[Action, str], Any]


Channels = Mapping[str, MessageChannel]
"""The user's imported message channels, by service name (`deputy.connectors.custom.message_channels`)."""


def imported_channel(to: str, channels: Channels) -> tuple[MessageChannel, str | None] | None:
    """The imported channel `to` (`<service>:<recipient>`, or `<service>` alone) is reached through, and the
    recipient; None for any other address."""
    service, _, recipient = to.partition(":")
    channel = channels.get(service.strip().lower())
    if channel is None or to.startswith(("market:", "provider:")):
        return None
    return channel, (recipient.strip() or None)


def _placed(path: str, value: str, into: dict[str, Any]) -> dict[str, Any]:
    """`into` with `value` at the dotted `path` (`body.text`)."""
    node = into
    *parents, last = path.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    return into


def channel_action(action: Action, text: str, mandate: Mandate, channels: Channels | None = None
                   ) -> tuple[str, Action]:
    """The channel operation that carries `text` to the move's counterpart, and the action for it
    (same id: what is delivered is traced to the move the user saw)."""
    to = str(action.arguments.get("to", "")).strip()
    imported = imported_channel(to, channels or {})
    if imported is not None:
        channel, recipient = imported
        arguments = _placed(channel.message, text, {})
        if channel.recipient and recipient:
            _placed(channel.recipient, recipient, arguments)
        return f"{channel.connector}.{channel.operation}", action.model_copy(update={
            "connector": channel.connector, "operation": channel.operation, "arguments": arguments})
    if to.startswith("market:"):
        name, arguments = "market.send_message", {"conversation_id": to.split(":", 1)[1], "text": text}
    elif to.startswith("provider:"):
        name, arguments = "provider.send_chat", {"text": text}
    else:
        name, arguments = "email.send_email", {"to": [to], "subject": f"About {mandate.subject}", "body": text}
    connector, operation = name.split(".", 1)
    return name, action.model_copy(update={"connector": connector, "operation": operation, "arguments": arguments})


def move_runner(action: Action, runners: Mapping[str, Runner], found: tuple[Mandate, NegotiationState] | None,
                channels: Channels | None = None, user_runner: Callable[[Action], Runner | None] | None = None
                ) -> Runner | None:
    """A runner that sends the move's composed message, or None when `action` is no move. A counterpart behind
    an imported operation (`channels`) is written to through that operation's own runner (`user_runner`)."""
    move = move_of(action)
    if move is None:
        return None

    def run(runnable: Action, key: str) -> Any:
        if found is None:
            raise ValueError("This goal has no negotiation mandate; a move can't be sent.")
        mandate, state = found
        text = compose(move, mandate, state.thread(move.to))
        name, carried = channel_action(runnable, text, mandate, channels)
        runner = runners.get(name) or (user_runner(carried) if user_runner is not None else None)
        if runner is None:
            raise ConnectorError(f"The channel for {move.to} is not set up on this Deputy: for a service you "
                                 "connected, mark the operation that sends its messages in /connections.")
        return runner(carried, key)

    return run


def sentence_meaning() -> Embed | None:
    """The memory's small sentence model, loaded on first use, for matching walk-away conditions and private
    items by meaning; None when its package is not installed (the normalised words still match)."""
    if importlib.util.find_spec(MODEL_PACKAGE) is None:
        return None
    return LazyEmbedder().embed
