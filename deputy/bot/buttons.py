"""Signed button data for the bot's own buttons (rules), as opaque as approval buttons.

Data is `<kind>:<id>:<signature>`; the signature binds kind, id and the user who may
press it to DEPUTY_SECRET, so a button cannot be forged, altered or pressed by someone else.
Workers never hold the secret: they ask for a button by `kind:id` and the bot signs it
when it delivers the message (`OutboxConsumer`).
"""

from __future__ import annotations

import re

from deputy.core.infrastructure.button_mac import ButtonMac

_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
KINDS = {
    "rs": "save rule",
    "rc": "cancel rule",
    "rx": "remove rule",
    "dx": "disconnect",
    "ca": "change what a signed-in connection allows",
    "gc": "continue goal",
    "gx": "cancel goal",
    "gp": "pause goal",
    "gr": "resume goal",
    "ge": "edit goal",
    "gk": "keep a goal as it is (a change was offered)",
    "gdd": "send a goal's digest daily",
    "gdw": "send a goal's digest weekly",
    "gdo": "send no digest for a goal",
    "ma": "accept memory",
    "md": "discard memory",
    "mf": "forget memory",
    "me": "edit memory",
    "mu": "undo a memory change",
    "dd": "delete all my data",
    "ao": "show older audit entries",
    "an": "show newer audit entries",
    "oo": "show a service's operations",
    "om": "mark an operation",
    "oc": "choose an operation's class",
    "oa": "choose where a spending operation's amount is",
    "oy": "choose a spending operation's currency",
    "oq": "confirm which arguments name an operation's recipients and objects",
    "ot": "choose the argument a negotiation's messages go in",
    "ok": "confirm a less risky class",
    "on": "keep an operation's class",
    "cd": "pay with this card by default",
    "cm": "pay this shop with this card from now on",
    "nc": "confirm a negotiation mandate",
    "nx": "cancel a negotiation mandate",
    "np": "pause a negotiation",
    "nr": "resume a negotiation",
    "ns": "stop a negotiation",
    "na": "adjust a negotiation's mandate",
    "lk": "lock my confidential data now",
    "ap": "choose when a message waits for a card",
    "sr": "use a message taken for a secret as it was",
    "lr": "start a goal lost with Redis's data again",
    "su": "undo a message waiting to be sent",
    "sn": "send a waiting message now",
    "se": "correct a waiting message",
    "sf": "show a sent message in full",
    "uw": "undo a change made without asking",
    "ka": "check in after an event I mentioned",
    "kb": "remind me before an event I mentioned",
    "kn": "no check-in for an event I mentioned",
    "xa": "look out for an interest from my memories",
    "xb": "book a suggestion",
    "xn": "not interested in a suggestion",
    "xl": "fewer suggestions like this",
}


class InvalidButton(Exception):
    """Data that is not a valid button of this bot for this user."""


class ButtonSigner:
    def __init__(self, secret: str) -> None:
        self._mac = ButtonMac(secret, b"deputy-button", 12)

    def _sign(self, kind: str, ident: str, user_id: int) -> str:
        return self._mac.sign(kind, ident, user_id)

    def data(self, kind: str, ident: str, user_id: int) -> str:
        if kind not in KINDS or not _ID.match(ident):
            raise ValueError(f"bad button {kind}:{ident}")
        return f"{kind}:{ident}:{self._sign(kind, ident, user_id)}"

    def verify(self, data: str, user_id: int) -> tuple[str, str]:
        if not data.isascii():
            raise InvalidButton("not ASCII")
        parts = data.split(":")
        if len(parts) != 3 or parts[0] not in KINDS or not _ID.match(parts[1]):
            raise InvalidButton("malformed")
        kind, ident, signature = parts
        if not self._mac.verifies(signature, kind, ident, user_id):
            raise InvalidButton("signature does not verify")
        return kind, ident

    def is_ours(self, data: str) -> bool:
        return data.split(":", 1)[0] in KINDS
