"""The agent's workspace tools over a real Redis and real confinement: what the model reads back,
what is kept, and the plain errors when something cannot be done."""

from __future__ import annotations

import functools
from pathlib import Path

from redis import Redis

from deputy.agent.goals import Goal
from deputy.agent.model.chat_model import ToolCall
from deputy.agent.workspace_tools import WorkspaceTools
from deputy.core.records.outbox import OUTBOX_STREAM, Outbox, OutboxMessage
from deputy.workspace.confined_run import RunLimits, run_confined
from deputy.workspace.files import Workspace, WorkspaceLimits

USER = 7301


def goal() -> Goal:
    return Goal(id="g_files", user_id=USER, chat_id=USER, text="work on my files", created_at=0, updated_at=0)


class Labels:
    """Stands in for the goal's reading: records what was labelled as outside content."""

    def __init__(self) -> None:
        self.origins: list[str] = []

    def __call__(self, goal: Goal, origin: str, text: str) -> str:
        self.origins.append(origin)
        return f"<untrusted {origin}>{text}</untrusted>"


def call(tools: WorkspaceTools, tool: str, /, **arguments: object) -> str:
    return tools.handle(goal(), ToolCall(id="c1", name=tool, arguments="{}"), arguments)


def test_a_file_read_is_labelled_as_outside_content_and_long_ones_come_in_parts(redis: Redis) -> None:
    workspace, labels = Workspace(redis), Labels()
    tools = WorkspaceTools(workspace, Outbox(redis), labels)
    workspace.write(USER, "invoice.txt", ("Total due: 120 EUR. " * 2000).encode(), made_by="you")
    shown = call(tools, "read_file", name="invoice.txt")
    assert labels.origins == ["the file invoice.txt in your workspace"]
    assert "read_file with offset 20000" in shown
    assert "not a text file" in call(tools, "read_file", name=workspace.write(USER, "a.bin", b"\xff\xfe\x00").name)


def test_code_over_the_files_writes_results_back_and_its_output_is_labelled(redis: Redis) -> None:
    workspace, labels = Workspace(redis), Labels()
    tools = WorkspaceTools(workspace, Outbox(redis), labels, RunLimits(cpu_seconds=5, wall_seconds=15))
    workspace.write(USER, "numbers.txt", b"3\n4\n5\n", made_by="you")
    code = "n = [int(x) for x in open('numbers.txt')]\nopen('sum.txt', 'w').write(str(sum(n)))\nprint('sum', sum(n))"
    report = call(tools, "run_python", code=code)
    assert "sum 12" in report and "Files written: sum.txt" in report
    assert workspace.read(USER, "sum.txt") == b"12"
    assert labels.origins == ["the output of code run over your workspace files"]


def test_a_run_that_would_pass_the_quota_keeps_nothing_of_it_and_says_what_to_do(redis: Redis) -> None:
    workspace = Workspace(redis, limits=WorkspaceLimits(quota_bytes=10_000))
    tools = WorkspaceTools(workspace, Outbox(redis), Labels(), RunLimits(cpu_seconds=5, wall_seconds=15))
    workspace.write(USER, "keep.txt", b"important")
    report = call(tools, "run_python", code="open('big.bin', 'wb').write(b'x' * 50_000)\nopen('keep.txt', 'w').write('')")
    assert report.startswith("Error:") and "quota" in report and "Delete files" in report
    assert workspace.read(USER, "keep.txt") == b"important", "nothing of the refused run is kept"
    assert [f.name for f in workspace.list(USER)] == ["keep.txt"]


def test_without_bubblewrap_code_does_not_run_and_the_model_is_told_why(redis: Redis, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    unconfined = functools.partial(run_confined, bwrap=Path("/nonexistent/bwrap"))
    tools = WorkspaceTools(Workspace(redis), Outbox(redis), Labels(), run=unconfined)
    report = call(tools, "run_python", code=f"open({str(marker)!r}, 'w').write('x')")
    assert report.startswith("Error: code cannot run on this Deputy") and "bubblewrap" in report
    assert not marker.exists()


def test_a_file_is_sent_to_the_users_own_chat_as_a_document(redis: Redis) -> None:
    workspace = Workspace(redis)
    tools = WorkspaceTools(workspace, Outbox(redis), Labels())
    workspace.write(USER, "reports/totals.csv", b"month,total\n")
    assert call(tools, "send_file", name="reports/totals.csv") == "Sent reports/totals.csv to the user's chat."
    [(_id, fields)] = redis.xrange(OUTBOX_STREAM)
    message = OutboxMessage.model_validate_json(fields[b"json"])
    assert (message.chat_id, message.document_name) == (USER, "totals.csv")
    assert redis.get(message.photo or "") == b"month,total\n"
    assert call(tools, "send_file", name="missing.csv").startswith("Error: There is no file named")


def test_bad_arguments_and_names_get_a_plain_error(redis: Redis) -> None:
    tools = WorkspaceTools(Workspace(redis), Outbox(redis), Labels())
    assert call(tools, "write_file", name="notes.txt").startswith("Error: write_file needs text")
    assert "not a file name I can use" in call(tools, "write_file", name="../../etc/passwd", text="x")
    assert call(tools, "delete_file", name="nothing.txt").startswith("Error: there is no file")
