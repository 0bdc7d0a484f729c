"""Marking a connected service's operations from the chat: what each one really does.

An imported operation is classified by what can be read of it safely (an API's GET reads,
its DELETE deletes; anything else, and any MCP tool, may speak to someone, so it is
`communicate`), which says nothing of money: a booking POST should be `spend`. From
/connections the user opens a service's operations, picks one and a kind (read, write,
communicate, spend, account, delete, share); for spend, the argument that holds the amount
and the currency (fixed, or the argument that holds it), so amount rules ("never spend more
than $50 without asking") see the money; for communicate, share, account, delete and write,
the arguments that name the recipients and the object acted on, which Deputy proposes from
the schema (`deputy.connectors.argument_roles`) and the user confirms, so the guard traces
them as it traces a built-in email's recipients. The mark is kept with the connector
(`CustomConnector.marks`), so the agent worker and the executor build the same catalog
from it, and the executor's classification is what Sentinel trusts. A mark that makes an
operation *less* guarded than it was (a lower class, or a dropped risk such as "may
delete") must be confirmed with a second, explicit press.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from deputy.bot.presses_common import PressAnswer
from deputy.bot.services import BotServices
from deputy.core.records.effects import EffectClass, RiskTag
from deputy.connectors.custom import CustomConnector, CustomConnectors, imported_api
from deputy.connectors.argument_roles import propose_roles
from deputy.connectors.marks import KINDS, OperationMark, argument_paths, kind_of, less_guarded
from deputy.connectors.mcp.operations import effect_of
from deputy.core.records.ids import new_id
from deputy.core.records.outbox import Button, Outbox, OutboxMessage

MAX_LISTED = 40
CURRENCIES = ("USD", "EUR", "GBP")
_CHOICE = "deputy:user:{uid}:opmark:{token}"
_CHOICE_TTL = 24 * 3600
CONSEQUENCE = {
    "read": "Sentinel lets the agent use it without asking, like any read.",
    "write": "Plain changes run; Sentinel asks when anything in it came from outside content.",
    "communicate": "Sentinel asks you before each use: it speaks to someone for you.",
    "spend": "Sentinel asks you before each use: it spends money, and your amount rules apply to it.",
    "account": "Sentinel asks you before each use: it changes an account.",
    "delete": "Sentinel asks you before each use: it deletes something.",
    "share": "Sentinel asks you before each use: it shares something with others.",
}


@dataclass(frozen=True)
class OperationView:
    tool: str
    method: str
    """The HTTP method, or "MCP" for a tool of an MCP server."""
    path: str
    implied: tuple[EffectClass, frozenset[RiskTag]]
    """What it is with no mark (its method; for an MCP tool, what Deputy believes of it)."""
    mark: OperationMark | None = None
    parameters: list[tuple[str, str]] = field(default_factory=list)
    """(dotted path, JSON type) of its scalar arguments, to say where an amount is."""
    schema: dict | None = None
    """Its input schema, to propose which arguments are its recipients and objects."""

    def label(self) -> str:
        return f"{self.tool} ({self.method} {self.path})"

    @property
    def implied_kind(self) -> str:
        return kind_of(*self.implied)

    def current(self) -> str:
        return self.mark.describe() if self.mark is not None else self.implied_kind

    def current_effect(self) -> tuple[EffectClass, frozenset[RiskTag]]:
        return self.mark.effect() if self.mark is not None else self.implied


def operations_of(connector: CustomConnector) -> list[OperationView]:
    if connector.kind == "mcp":
        toolset = connector.toolset
        if toolset is None:
            return []
        return [OperationView(tool.operation, "MCP", tool.name, effect_of(tool, toolset.trusted),
                              connector.marks.get(tool.operation), argument_paths(tool.input_schema),
                              tool.input_schema)
                for tool in toolset.tools]
    plain = imported_api(connector, with_marks=False)
    views = []
    for operation in plain.operations:
        call = plain.calls[operation.name]
        views.append(OperationView(operation.name, call.method.upper(), call.path,
                                   (operation.spec.effect, operation.spec.tags), connector.marks.get(operation.name),
                                   argument_paths(operation.schema), operation.schema))
    return views


def needs_confirmation(view: OperationView, mark: OperationMark) -> bool:
    """Lowering the guard below what the operation implies (or below its current mark) needs a second press."""
    return less_guarded(mark, view.implied, view.current_effect())


def operations_message(connector: CustomConnector, user_id: int, services: BotServices) -> OutboxMessage:
    views = operations_of(connector)
    lines, buttons = [], []
    for number, view in enumerate(views[:MAX_LISTED], 1):
        marked = "" if view.mark is None else f" (marked by you; unmarked it is {view.implied_kind})"
        lines.append(f"{number}. {view.label()}: {view.current()}{marked}")
        token = _remember(services, user_id, {"service": connector.name, "tool": view.tool})
        buttons.append(Button(text=f"Mark {number}", sign=f"om:{token}"))
    more = f"\n…and {len(views) - MAX_LISTED} more." if len(views) > MAX_LISTED else ""
    text = (f"Operations of {connector.name}, as Sentinel classifies them:\n" + "\n".join(lines) + more
            + "\n\nMark one to say what it really does, e.g. a booking or an order as spend, a post as communicate.")
    rows = [buttons[i : i + 4] for i in range(0, len(buttons), 4)]
    return OutboxMessage(chat_id=user_id, text=text, buttons=rows)


def press_operation_mark(services: BotServices, kind: str, ident: str, user_id: int) -> PressAnswer:
    store = CustomConnectors(services.redis)
    outbox = Outbox(services.redis)
    if kind == "oo":
        connector = store.get(user_id, ident)
        if connector is None:
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
        buttons = [Button(text=mark_kind, sign=f"oc:{_remember(services, user_id, {**choice, 'kind': mark_kind})}")
                   for mark_kind in KINDS if mark_kind != view.current()]
        outbox.put(OutboxMessage(chat_id=user_id, text=f"{view.label()} is {view.current()}. Mark it as:",
                                 buttons=[buttons[:4], buttons[4:]]))
        return PressAnswer(f"Choose what {view.tool} does below.")
    if kind == "on":
        return PressAnswer("Kept as it was.", f"Kept: {view.tool} stays {view.current()}.")
    if choice.get("kind") == "spend" and kind in ("oc", "oa", "oy"):
        asked = _ask_for_money(services, outbox, user_id, view, choice)
        if asked is not None:
            return asked
    if choice.get("kind") not in ("spend", "read") and kind == "oc":
        asked = _propose_roles(services, outbox, user_id, view, choice)
        if asked is not None:
            return asked
    if choice.get("kind") == "communicate" and kind in ("oc", "oq"):
        asked = _ask_for_channel(services, outbox, user_id, view, choice)
        if asked is not None:
            return asked
    try:
        mark = _mark_of(choice)
    except ValueError:
        return PressAnswer("That choice doesn't fit together. Open /connections again.")
    if kind != "ok" and needs_confirmation(view, mark):
        token = _remember(services, user_id, choice)
        outbox.put(OutboxMessage(
            chat_id=user_id,
            text=(f"⚠️ {view.label()} is {view.current()}; marking it {mark.describe()} makes it less guarded. "
                  f"{CONSEQUENCE[mark.kind]} Only do this if you are sure it never does more than that."),
            buttons=[[Button(text=f"Yes, mark it {mark.kind}", sign=f"ok:{token}"),
                      Button(text="Cancel", sign=f"on:{token}")]],
        ))
        return PressAnswer("Please confirm below.", f"Waiting for you to confirm {mark.kind} below.")
    _apply(services, store, user_id, connector, view, mark, confirmed=kind == "ok")
    return PressAnswer(f"{view.tool} is now {mark.describe()}.",
                       f"✅ {view.tool} is now {mark.describe()}. {CONSEQUENCE[mark.kind]}")


def _ask_for_money(services: BotServices, outbox: Outbox, user_id: int, view: OperationView,
                   choice: dict[str, str]) -> PressAnswer | None:
    """For a spend mark: ask where the amount is, then its currency; None once both are known."""
    if "amount" not in choice:
        numbers = [path for path, kind in view.parameters if kind in ("number", "integer", "string")]
        buttons = [Button(text=path, sign=f"oa:{_remember(services, user_id, {**choice, 'amount': path})}")
                   for path in numbers[:12]]
        buttons.append(Button(text="It doesn't say",
                              sign=f"oa:{_remember(services, user_id, {**choice, 'amount': ''})}"))
        outbox.put(OutboxMessage(
            chat_id=user_id,
            text=(f"Which argument of {view.tool} holds the amount it spends? With it, your amount rules "
                  "apply; without it, Sentinel treats the amount as unknown and asks every time."),
            buttons=[buttons[i : i + 3] for i in range(0, len(buttons), 3)],
        ))
        return PressAnswer("Choose where the amount is below.")
    if choice["amount"] and "currency" not in choice and "currency_field" not in choice:
        buttons = [Button(text=code, sign=f"oy:{_remember(services, user_id, {**choice, 'currency': code})}")
                   for code in CURRENCIES]
        buttons += [Button(text=path, sign=f"oy:{_remember(services, user_id, {**choice, 'currency_field': path})}")
                    for path, kind in view.parameters if kind == "string" and path != choice["amount"]][:9]
        outbox.put(OutboxMessage(
            chat_id=user_id,
            text=f"In which currency is {choice['amount']}? A fixed currency, or the argument that holds it:",
            buttons=[buttons[i : i + 3] for i in range(0, len(buttons), 3)],
        ))
        return PressAnswer("Choose the currency below.")
    return None


def _propose_roles(services: BotServices, outbox: Outbox, user_id: int, view: OperationView,
                   choice: dict[str, str]) -> PressAnswer | None:
    """Propose the arguments naming whom it reaches and what it acts on; None when the schema names none."""
    proposed = propose_roles(view.schema, choice["kind"])
    if not (proposed.recipients or proposed.objects):
        return None
    said = [f"{label}: {', '.join(paths)}" for label, paths in
            (("who receives it", proposed.recipients), ("what it acts on", proposed.objects)) if paths]
    use = _remember(services, user_id, {**choice, "recipients": " ".join(proposed.recipients),
                                        "objects": " ".join(proposed.objects)})
    neither = _remember(services, user_id, {**choice, "recipients": "", "objects": ""})
    outbox.put(OutboxMessage(
        chat_id=user_id,
        text=(f"From its arguments, {view.tool} seems to say " + "; ".join(said) + ". With these confirmed, "
              "Sentinel checks those values against your own words, as it does an email's recipients "
              "(a message to someone you named can then go without a card). Are they right?"),
        buttons=[[Button(text="Yes, use these", sign=f"oq:{use}"), Button(text="No", sign=f"oq:{neither}")]],
    ))
    return PressAnswer("Confirm the arguments below.")


def _ask_for_channel(services: BotServices, outbox: Outbox, user_id: int, view: OperationView,
                     choice: dict[str, str]) -> PressAnswer | None:
    """For a communicate mark: is it how Deputy writes to counterparts in a negotiation, and which argument
    holds the words? None when the operation has no text argument (or the user already answered)."""
    texts = [path for path, kind in view.parameters if kind == "string"
             and path not in choice.get("recipients", "").split()]
    if "message" in choice or not texts:
        return None
    buttons = [Button(text=path, sign=f"ot:{_remember(services, user_id, {**choice, 'message': path})}")
               for path in texts[:9]]
    buttons.append(Button(text="Not for negotiations",
                          sign=f"ot:{_remember(services, user_id, {**choice, 'message': ''})}"))
    outbox.put(OutboxMessage(
        chat_id=user_id,
        text=(f"Should a negotiation write to people on this service through {view.tool}? If so, which argument "
              "holds the message? Deputy's code then writes each offer, counter, acceptance or question itself "
              "and sends it there, checked against your mandate (the agent addresses them as "
              f"{choice['service']}:<recipient>); words the agent writes itself still wait for you."),
        buttons=[buttons[i : i + 3] for i in range(0, len(buttons), 3)],
    ))
    return PressAnswer("Choose below.")


def _mark_of(choice: dict[str, str]) -> OperationMark:
    return OperationMark(kind=choice["kind"], message=choice.get("message") or None,  # type: ignore[arg-type]
                         amount=choice.get("amount") or None,
                         currency=choice.get("currency"), currency_field=choice.get("currency_field"),
                         recipients=tuple(choice.get("recipients", "").split()),
                         objects=tuple(choice.get("objects", "").split()))


def _apply(services: BotServices, store: CustomConnectors, user_id: int, connector: CustomConnector,
           view: OperationView, mark: OperationMark, *, confirmed: bool) -> None:
    marks = dict(connector.marks)
    if mark == OperationMark(kind=view.implied_kind) and mark.effect() == view.implied:  # type: ignore[arg-type]
        marks.pop(view.tool, None)
    else:
        marks[view.tool] = mark
    store.add(user_id, connector.model_copy(update={"marks": marks}))
    services.audit.append(user_id, "operation_marked", services.clock(), service=connector.name,
                          operation=view.tool, effect=mark.kind, amount=mark.amount,
                          currency=mark.currency or mark.currency_field, previous=view.current(), confirmed=confirmed)


def _remember(services: BotServices, user_id: int, choice: dict[str, str]) -> str:
    token = new_id("o")
    services.redis.set(_CHOICE.format(uid=user_id, token=token), json.dumps(choice), ex=_CHOICE_TTL)
    return token


def _recall(services: BotServices, user_id: int, token: str, *, once: bool) -> dict[str, str] | None:
    key = _CHOICE.format(uid=user_id, token=token)
    raw = services.redis.getdel(key) if once else services.redis.get(key)
    return json.loads(raw) if raw else None
