"""Which marks need a confirmation, and how marks change the operations both worker and executor build."""

from __future__ import annotations

import json
from decimal import Decimal

from deputy.bot.operation_marks import OperationView, needs_confirmation, operations_of
from deputy.core.records.effects import EffectClass, RiskTag
from deputy.connectors.custom import CustomConnector, imported_api
from deputy.connectors.marks import OperationMark

DOCUMENT = json.dumps({
    "openapi": "3.0.3",
    "info": {"title": "Booking API", "version": "1"},
    "servers": [{"url": "https://booking.example"}],
    "paths": {
        "/slots": {"get": {"operationId": "listSlots", "responses": {"200": {"description": "ok"}}}},
        "/bookings": {"post": {"operationId": "book", "responses": {"201": {"description": "ok"}},
                               "requestBody": {"required": True, "content": {"application/json": {"schema": {
                                   "type": "object", "properties": {"price": {"type": "number"},
                                                                    "currency": {"type": "string"}}}}}}}},
    },
})
COMMUNICATE = (EffectClass.communicate, frozenset())
READ = (EffectClass.read, frozenset())


def _connector(**marks: object) -> CustomConnector:
    return CustomConnector(kind="openapi", name="booking", source="https://booking.example/openapi.json",
                           document=DOCUMENT, marks=marks)


def test_less_guarded_than_the_method_or_the_current_mark_needs_a_confirmation() -> None:
    post = OperationView("booking_book", "POST", "/bookings", COMMUNICATE)
    assert needs_confirmation(post, OperationMark(kind="read"))
    assert needs_confirmation(post, OperationMark(kind="write"))  # an unknown POST may speak to someone
    assert not needs_confirmation(post, OperationMark(kind="spend"))
    assert not needs_confirmation(post, OperationMark(kind="share"))
    marked = OperationView("booking_book", "POST", "/bookings", COMMUNICATE, OperationMark(kind="spend"))
    assert needs_confirmation(marked, OperationMark(kind="communicate"))  # undoing a spend mark lowers the guard too
    get = OperationView("booking_listslots", "GET", "/slots", READ)
    assert not any(needs_confirmation(get, OperationMark(kind=k)) for k in ("write", "spend", "account", "delete"))
    # An MCP tool that says it may destroy data: a mark that drops "may delete" is less guarded.
    tool = OperationView("srv_wipe", "MCP", "wipe", (EffectClass.communicate, frozenset({RiskTag.delete})))
    assert needs_confirmation(tool, OperationMark(kind="communicate"))
    assert not needs_confirmation(tool, OperationMark(kind="delete"))


def test_marks_change_the_catalog_and_marks_for_missing_operations_are_ignored() -> None:
    plain = {op.name.lower(): op.spec.effect for op in imported_api(_connector()).operations}
    assert plain == {"booking_listslots": EffectClass.read, "booking_book": EffectClass.communicate}
    tool = next(n for n in imported_api(_connector()).names() if n.lower() == "booking_book")
    spend = OperationMark(kind="spend", amount="body.price", currency_field="body.currency")
    marked = imported_api(_connector(**{tool: spend, "booking_gone": "read"}))
    book = next(op for op in marked.operations if op.name == tool)
    assert book.spec.effect is EffectClass.spend
    assert book.amount(book.validate({"body": {"price": 75, "currency": "usd"}})) == (Decimal("75"), "USD")
    views = {v.tool: v for v in operations_of(_connector(**{tool: spend}))}
    assert (views[tool].implied, views[tool].mark, views[tool].method) == (COMMUNICATE, spend, "POST")
    assert ("body.price", "number") in views[tool].parameters and ("body.currency", "string") in views[tool].parameters


def test_marks_stored_as_a_bare_class_by_an_earlier_version_still_apply() -> None:
    stored = _connector().model_dump(mode="json")
    stored["marks"] = {"booking_book": "spend"}
    connector = CustomConnector.model_validate_json(json.dumps(stored))
    assert connector.marks["booking_book"] == OperationMark(kind="spend")


def _mcp_connector(**marks: object) -> CustomConnector:
    from deputy.connectors.mcp.config import McpServerConfig
    from deputy.connectors.mcp.tools import McpTool, McpToolset

    schema = {"type": "object", "properties": {"to": {"type": "string"}, "total": {"type": "number"},
                                               "memo": {"type": "string"}}}
    tools = [McpTool(server="pay", name="send_money", operation="pay_send_money", description="Send money",
                     input_schema=schema, read_only=False, destructive=False),
             McpTool(server="pay", name="balance", operation="pay_balance", description="Balance",
                     input_schema={"type": "object"}, read_only=True)]
    server = McpServerConfig(name="pay", transport="http", url="https://pay.example/mcp")
    return CustomConnector(kind="mcp", name="pay", source="https://pay.example/mcp", server=server,
                           toolset=McpToolset(server="pay", trusted=False, tools=tools), marks=marks)


def test_an_mcp_servers_tools_are_listed_and_their_marks_reach_the_catalog(redis) -> None:  # type: ignore[no-untyped-def]
    from deputy.connectors.catalog import Catalog
    from deputy.connectors.custom import CustomConnectors, UserCatalogs

    views = {v.tool: v for v in operations_of(_mcp_connector())}
    # Neither the "not destructive" nor the "read-only" claim of an untrusted server is believed.
    assert views["pay_send_money"].current() == "communicate" and views["pay_balance"].current() == "communicate"
    assert views["pay_send_money"].method == "MCP" and ("total", "number") in views["pay_send_money"].parameters

    spend = OperationMark(kind="spend", amount="total", currency="EUR")
    store = CustomConnectors(redis)
    store.add(7, _mcp_connector(pay_send_money=spend))
    catalog = UserCatalogs(Catalog(), store).for_user(7)
    send = catalog.find("mcp", "pay_send_money")
    assert send.spec.effect is EffectClass.spend
    assert send.amount(send.validate({"to": "bob", "total": 80})) == (Decimal("80"), "EUR")
    assert catalog.find("mcp", "pay_balance").spec.effect is EffectClass.communicate


def test_a_mark_naming_the_recipient_argument_reaches_the_executors_catalog(redis) -> None:  # type: ignore[no-untyped-def]
    """Stored with the connector, the recipient path makes the catalog's targets the recipient."""
    from deputy.connectors.catalog import Catalog
    from deputy.connectors.custom import CustomConnectors, UserCatalogs

    view = {v.tool: v for v in operations_of(_mcp_connector())}["pay_send_money"]
    assert view.schema is not None and "to" in view.schema["properties"]
    store = CustomConnectors(redis)
    store.add(7, _mcp_connector(pay_send_money=OperationMark(kind="communicate", recipients=("to",))))
    send = UserCatalogs(Catalog(), store).for_user(7).find("mcp", "pay_send_money")
    assert send.targets(send.validate({"to": "bob", "total": 80})) == ["bob"]


def test_the_user_marks_an_operation_as_the_message_channel_of_negotiations_from_the_chat(redis) -> None:  # type: ignore[no-untyped-def]
    """communicate → the recipient argument → which argument holds the words: the mark a negotiation's moves use."""
    from deputy.bot.operation_marks import press_operation_mark
    from deputy.bot.services import BotServices
    from deputy.connectors.custom import CustomConnectors, message_channels
    from deputy.core.records.outbox import OUTBOX_STREAM, OutboxMessage

    services = BotServices.create(redis, "secret", None)
    store = CustomConnectors(redis)
    store.add(7, _mcp_connector(pay_send_money=OperationMark(kind="spend")))

    def latest() -> OutboxMessage:
        return OutboxMessage.model_validate_json(redis.xrevrange(OUTBOX_STREAM, count=1)[0][1][b"json"])

    def press(label: str) -> str:
        sign = next(b.sign for row in latest().buttons for b in row if b.text == label or b.text.startswith(label))
        kind, token = sign.split(":", 1)
        return press_operation_mark(services, kind, token, 7).toast

    press_operation_mark(services, "oo", "pay", 7)
    number = next(i for i, line in enumerate(latest().text.splitlines()) if "pay_send_money" in line)
    press(f"Mark {number}")
    press("communicate")
    assert "who receives it: to" in latest().text
    press("Yes, use these")
    asked = latest()
    assert "Should a negotiation write to people on this service through pay_send_money" in asked.text
    assert "pay:<recipient>" in asked.text and "to" not in [b.text for row in asked.buttons for b in row]
    press("memo")
    press("Yes, mark it communicate")  # from spend: less guarded, so confirmed with a second press
    mark = store.get(7, "pay").marks["pay_send_money"]
    assert (mark.kind, mark.recipients, mark.message) == ("communicate", ("to",), "memo")
    assert message_channels(store.list(7))["pay"].operation == "pay_send_money"
    assert "negotiation messages in memo" in mark.describe()


def _drive_connector(**marks: object) -> CustomConnector:
    from deputy.connectors.mcp.config import McpServerConfig
    from deputy.connectors.mcp.tools import McpTool, McpToolset

    text = {"type": "string"}
    tools = [McpTool(server="drive", name="share_file", operation="drive_share_file", description="Share a file",
                     input_schema={"type": "object", "properties": {"file_id": text, "email": text}}),
             McpTool(server="drive", name="remove", operation="drive_remove", description="Remove a file",
                     input_schema={"type": "object", "properties": {"file_id": text}})]
    server = McpServerConfig(name="drive", transport="http", url="https://drive.example/mcp")
    return CustomConnector(kind="mcp", name="drive", source="https://drive.example/mcp", server=server,
                           toolset=McpToolset(server="drive", trusted=False, tools=tools), marks=marks)


def test_the_user_confirms_or_turns_down_the_proposed_recipient_and_object_arguments_in_the_chat(redis) -> None:  # type: ignore[no-untyped-def]
    """Marking a tool share: Deputy proposes which arguments say whom it reaches and what it acts on; "Yes, use
    these" keeps them with the mark, so the executor's actions name the person and the file (the guard traces
    them to the user's words); "No" keeps a mark without them, and the action names only the server's tool."""
    from deputy.bot.operation_marks import press_operation_mark
    from deputy.bot.services import BotServices
    from deputy.connectors.catalog import Catalog
    from deputy.connectors.custom import CustomConnectors, UserCatalogs
    from deputy.core.records.outbox import OUTBOX_STREAM, OutboxMessage

    services = BotServices.create(redis, "secret", None)
    store = CustomConnectors(redis)
    store.add(8, _drive_connector())

    def latest() -> OutboxMessage:
        return OutboxMessage.model_validate_json(redis.xrevrange(OUTBOX_STREAM, count=1)[0][1][b"json"])

    def press(label: str) -> str:
        sign = next(b.sign for row in latest().buttons for b in row if b.text == label or b.text.startswith(label))
        kind, token = sign.split(":", 1)
        return press_operation_mark(services, kind, token, 8).toast

    def mark(tool: str, kind: str, answer: str, proposed: str) -> str:
        press_operation_mark(services, "oo", "drive", 8)
        number = next(i for i, line in enumerate(latest().text.splitlines()) if tool in line)
        press(f"Mark {number}")
        press(kind)
        proposal = latest()
        assert proposal.text.startswith(f"From its arguments, {tool} seems to say {proposed}.")
        assert [b.text for row in proposal.buttons for b in row] == ["Yes, use these", "No"]
        toast = press(answer)
        if "less guarded" in latest().text and latest().text != proposal.text:
            toast = press(f"Yes, mark it {kind}")
        return toast

    assert store.get(8, "drive").marks == {}
    done = mark("drive_share_file", "share", "Yes, use these", "who receives it: email; what it acts on: file_id")
    assert done == "drive_share_file is now share (recipients in email; acting on in file_id)."
    shared = store.get(8, "drive").marks["drive_share_file"]
    assert (shared.kind, shared.recipients, shared.objects) == ("share", ("email",), ("file_id",))
    mark("drive_remove", "delete", "No", "what it acts on: file_id")
    removed = store.get(8, "drive").marks["drive_remove"]
    assert (removed.kind, removed.recipients, removed.objects) == ("delete", (), ())

    catalog = UserCatalogs(Catalog(), store).for_user(8)
    share = catalog.find("mcp", "drive_share_file")
    assert share.targets(share.validate({"file_id": "13", "email": "carol@example.net"})) == [
        "carol@example.net", "13"]
    remove = catalog.find("mcp", "drive_remove")
    assert remove.targets(remove.validate({"file_id": "13"})) == ["drive", "remove"]
