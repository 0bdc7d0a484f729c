"""Marking a connected API's operations from the chat: read, write, communicate, spend or account.

An imported operation is classified by its HTTP method (GET reads, anything else writes),
which says nothing of money or people: a booking POST should be `spend`. From
/connections the user opens a service's operations, picks one and a class. The mark is
kept with the connector (`CustomConnector.marks`), so the agent worker and the executor
build the same catalog from it, and the executor's classification is what Sentinel
trusts. A mark that makes an operation *less* risky than its method (or its current
class) implies must be confirmed with a second, explicit press.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from bot.presses_common import PressAnswer
from bot.services import BotServices
from connectors.base import EffectClass
from connectors.custom import CustomConnector, CustomConnectors, imported_api
from deputy.ids import new_id
from deputy.outbox import Button, Outbox, OutboxMessage

MARKABLE = (EffectClass.read, EffectClass.write, EffectClass.communicate, EffectClass.spend, EffectClass.account)
RISK = {EffectClass.read: 0, EffectClass.write: 1, EffectClass.communicate: 2, EffectClass.account: 3,
        EffectClass.spend: 3, EffectClass.credential: 4}
MAX_LISTED = 40
_CHOICE = "deputy:user:{uid}:opmark:{token}"
_CHOICE_TTL = 24 * 3600
CONSEQUENCE = {
    EffectClass.read: "Sentinel lets the agent use it without asking, like any read.",
    EffectClass.write: "Plain changes run; Sentinel asks when anything in it came from outside content.",
    EffectClass.communicate: "Sentinel asks you before each use: it speaks to someone for you.",
    EffectClass.spend: "Sentinel asks you before each use: it spends money.",
    EffectClass.account: "Sentinel asks you before each use: it changes an account.",
}


@dataclass(frozen=True)
class OperationView:
    tool: str
    method: str
    path: str
    implied: EffectClass
    """What its HTTP method makes it."""
    current: EffectClass

    def label(self) -> str:
        return f"{self.tool} ({self.method} {self.path})"


def operations_of(connector: CustomConnector) -> list[OperationView]:
    plain = imported_api(connector, with_marks=False)
    views = []
    for operation in plain.operations:
        call = plain.calls[operation.name]
        implied = operation.spec.effect
        views.append(OperationView(operation.name, call.method.upper(), call.path, implied,
                                   connector.marks.get(operation.name, implied)))
    return views


def needs_confirmation(view: OperationView, effect: EffectClass) -> bool:
    """Lowering the risk below what the method implies (or below the current mark) needs a second press."""
    return RISK[effect] < max(RISK[view.implied], RISK[view.current])


def operations_message(connector: CustomConnector, user_id: int, services: BotServices) -> OutboxMessage:
    views = operations_of(connector)
    lines, buttons = [], []
    for number, view in enumerate(views[:MAX_LISTED], 1):
        marked = "" if view.current == view.implied else f" (marked by you; its method says {view.implied.value})"
        lines.append(f"{number}. {view.label()}: {view.current.value}{marked}")
        token = _remember(services, user_id, {"service": connector.name, "tool": view.tool})
        buttons.append(Button(text=f"Mark {number}", sign=f"om:{token}"))
    more = f"\n…and {len(views) - MAX_LISTED} more." if len(views) > MAX_LISTED else ""
    text = (f"Operations of {connector.name}, as Sentinel classifies them:\n" + "\n".join(lines) + more
            + "\n\nMark one to change its class, e.g. a booking or an order as spend.")
    rows = [buttons[i : i + 4] for i in range(0, len(buttons), 4)]
    return OutboxMessage(chat_id=user_id, text=text, buttons=rows)


def press_operation_mark(services: BotServices, kind: str, ident: str, user_id: int) -> PressAnswer:
    store = CustomConnectors(services.redis)
    outbox = Outbox(services.redis)
    if kind == "oo":
        connector = store.get(user_id, ident)
        if connector is None or connector.kind != "openapi":
            return PressAnswer("That service isn't connected any more. /connections")
        outbox.put(operations_message(connector, user_id, services))
        return PressAnswer(f"The operations of {connector.name} are below.")
    choice = _recall(services, user_id, ident, once=kind in ("ok", "on"))
    if choice is None:
        return PressAnswer("That choice expired or was already made. Open /connections again.")
    connector = store.get(user_id, choice["service"])
    view = next((v for v in operations_of(connector) if v.tool == choice["tool"]), None) if connector else None
    if connector is None or view is None:
        return PressAnswer("That operation isn't there any more. /connections")
    if kind == "om":
        buttons = [Button(text=effect.value, sign=f"oc:{_remember(services, user_id, {**choice, 'effect': effect.value})}")
                   for effect in MARKABLE if effect != view.current]
        outbox.put(OutboxMessage(chat_id=user_id, text=f"{view.label()} is {view.current.value}. Mark it as:",
                                 buttons=[buttons]))
        return PressAnswer(f"Choose a class for {view.tool} below.")
    if kind == "on":
        return PressAnswer("Kept as it was.", f"Kept: {view.tool} stays {view.current.value}.")
    effect = EffectClass(choice["effect"])
    if kind == "oc" and needs_confirmation(view, effect):
        token = _remember(services, user_id, choice)
        outbox.put(OutboxMessage(
            chat_id=user_id,
            text=(f"⚠️ {view.label()} is {view.current.value}; marking it {effect.value} makes it less guarded. "
                  f"{CONSEQUENCE[effect]} Only do this if you are sure it never does more than that."),
            buttons=[[Button(text=f"Yes, mark it {effect.value}", sign=f"ok:{token}"),
                      Button(text="Cancel", sign=f"on:{token}")]],
        ))
        return PressAnswer("Please confirm below.", f"Waiting for you to confirm {effect.value} below.")
    _apply(services, store, user_id, connector, view, effect, confirmed=kind == "ok")
    return PressAnswer(f"{view.tool} is now {effect.value}.", f"✅ {view.tool} is now {effect.value}. "
                                                              f"{CONSEQUENCE[effect]}")


def _apply(services: BotServices, store: CustomConnectors, user_id: int, connector: CustomConnector,
           view: OperationView, effect: EffectClass, *, confirmed: bool) -> None:
    marks = dict(connector.marks)
    if effect == view.implied:
        marks.pop(view.tool, None)
    else:
        marks[view.tool] = effect
    store.add(user_id, connector.model_copy(update={"marks": marks}))
    services.audit.append(user_id, "operation_marked", services.clock(), service=connector.name,
                          operation=view.tool, effect=effect.value, previous=view.current.value, confirmed=confirmed)


def _remember(services: BotServices, user_id: int, choice: dict[str, str]) -> str:
    token = new_id("o")
    services.redis.set(_CHOICE.format(uid=user_id, token=token), json.dumps(choice), ex=_CHOICE_TTL)
    return token


def _recall(services: BotServices, user_id: int, token: str, *, once: bool) -> dict[str, str] | None:
    key = _CHOICE.format(uid=user_id, token=token)
    raw = services.redis.getdel(key) if once else services.redis.get(key)
    return json.loads(raw) if raw else None
