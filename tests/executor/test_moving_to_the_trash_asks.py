"""Moving an email into the Trash is a delete: it always waits for the user's tap, as deleting does.
Moving it to the Archive is an ordinary change, shown and undoable. Through the real runner, guard and executor."""

from __future__ import annotations

from typing import Any

import pytest
from redis import Redis

from deputy.agent.model.testing import FunctionModel, text, tool_call
from deputy.connectors.default import default_catalog
from deputy.core.infrastructure.clock import ManualClock
from deputy.core.records.actions import Action
from deputy.core.records.effects import OperationResult, RiskTag
from deputy.testing.inline import InlineDeputy

USER = 7
LISTING = "1 email(s) in INBOX match, newest first:\n- INBOX/4 | Sat 5 Dec | newsletter@zalando.example | Up to 50% off"


def rig(redis: Redis, folder: str, moved: list[str]) -> InlineDeputy:
    def search(action: Action, key: str) -> OperationResult:
        return OperationResult(summary=LISTING, untrusted_origin="emails from newsletter@zalando.example")

    def move(action: Action, key: str) -> OperationResult:
        moved.append(action.arguments["folder"])
        return OperationResult(summary=f"Moved INBOX/4 to {action.arguments['folder']}.")

    script = [tool_call("search_email", **{"from": "zalando"}), tool_call("move_email", message_id="INBOX/4",
                                                                          folder=folder), text("Done.")]
    return InlineDeputy(redis, FunctionModel(lambda messages, tools: script.pop(0)), default_catalog(),
                        {"email.search_email": search, "email.move_email": move}, clock=ManualClock(1_765_000_000.0))


@pytest.mark.parametrize("folder", ["Trash", "Deleted Items", "Papierkorb"])
def test_a_move_into_the_trash_waits_for_the_users_tap(redis: Redis, folder: str) -> None:
    moved: list[str] = []
    deputy = rig(redis, folder, moved)
    deputy.start(USER, "get rid of the zalando newsletter")
    assert moved == [], "nothing was deleted before the user tapped"
    [card] = deputy.cards()
    assert "deletes" in card.text and "INBOX/4" in card.text
    [record] = [r for r in deputy.stored_actions(USER) if r.action.operation == "move_email"]
    assert RiskTag.delete in record.action.tags


def test_a_move_to_the_archive_goes_without_a_card(redis: Redis) -> None:
    moved: list[str] = []
    deputy = rig(redis, "Archive", moved)
    deputy.start(USER, "archive the zalando newsletter")
    assert moved == ["Archive"]
    assert not any("deletes" in card.text for card in deputy.cards())


def test_the_delete_is_read_from_the_folder_by_the_catalog_the_executor_reviews_with() -> None:
    operation = default_catalog().get("move_email")
    assert operation is not None
    assert RiskTag.delete in operation.risk_tags(operation.validate({"message_id": "INBOX/4", "folder": "Bin"}))
    assert operation.risk_tags(operation.validate({"message_id": "INBOX/4", "folder": "Receipts"})) == []
