"""The agent's workspace tools: list, read, write and delete files, run Python over them, send one.

These are internal steps, like remembering: nothing leaves Deputy through them. Code runs
confined (`deputy.workspace.confined_run`): no network, no view outside a copy of the user's
files, limits on time, memory, processes and output. What a file holds and what code printed
over the files came from outside the user's own words (a forwarded invoice, a page saved
earlier), so the agent reads it labelled as untrusted and the guard remembers it, exactly as it
does an email. Sending a file goes to the user's own chat only.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from deputy.agent.goals import Goal
from deputy.agent.model.chat_model import ToolCall
from deputy.core.records.outbox import Outbox
from deputy.workspace.confined_run import ConfinementUnavailable, RunLimits, RunResult, run_confined
from deputy.workspace.files import Workspace, WorkspaceError, WorkspaceFile, files_listing, size_words

MAX_READ_CHARS = 20_000
SCRATCH_ROOT = "/tmp"
"""Where a run's copy of the files is written: every parent must let the sandbox's unprivileged uid pass,
which a TMPDIR set to a private directory may not."""
MAX_WRITE_CHARS = 200_000

Outside = Callable[[Goal, str, str], str]
"""Labels outside content for the model and remembers it for the guard: (goal, origin, text) -> shown."""
Run = Callable[[Path, str, RunLimits], RunResult]


class FileArgs(BaseModel):
    name: str = Field(min_length=1, max_length=200)


class ReadFileArgs(FileArgs):
    offset: int = Field(default=0, ge=0)


class WriteFileArgs(FileArgs):
    text: str = Field(max_length=MAX_WRITE_CHARS)


class RunPythonArgs(BaseModel):
    code: str = Field(min_length=1, max_length=50_000)


class SendFileArgs(FileArgs):
    caption: str = Field(default="", max_length=500)


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required}}}


_NAME = {"type": "string", "description": "The file's name in the workspace, e.g. sales.csv"}
WORKSPACE_TOOLS: list[dict[str, Any]] = [
    _tool("list_files", "List the files in the user's workspace: the files they sent and the ones you made.", {}, []),
    _tool("read_file", "Read a text file from the workspace (long files in parts, from offset).",
          {"name": _NAME, "offset": {"type": "integer", "minimum": 0}}, ["name"]),
    _tool("write_file", "Create or replace a text file in the workspace.",
          {"name": _NAME, "text": {"type": "string"}}, ["name", "text"]),
    _tool("delete_file", "Delete a file from the workspace (the user asked you to, or it is your own scratch).",
          {"name": _NAME}, ["name"]),
    _tool("run_python", "Run Python 3 code in the user's workspace, with their files in the current directory. "
          "Use it to calculate, count, sum by month, convert or merge files: print the answer. Files the code "
          "writes are kept. No internet, no installing packages; the standard library (csv, json, datetime, "
          "statistics, zipfile…) is there.",
          {"code": {"type": "string", "description": "The whole program; print what you need to see."}}, ["code"]),
    _tool("send_file", "Send a file from the workspace to the user in this chat.",
          {"name": _NAME, "caption": {"type": "string"}}, ["name"]),
]
WORKSPACE_TOOL_NAMES = frozenset(tool["function"]["name"] for tool in WORKSPACE_TOOLS)


def run_report(result: RunResult, written: list[WorkspaceFile], removed: list[str]) -> str:
    """What the code printed and what it changed, plainly."""
    if result.timed_out:
        head = "The code was stopped: it ran past the time limit."
    elif result.killed_reason:
        head = f"The code was stopped: {result.killed_reason}."
    elif result.exit_code == 0:
        head = "The code ran."
    else:
        head = f"The code failed (exit code {result.exit_code})."
    parts = [head]
    if result.stdout.strip():
        parts.append("Output:\n" + result.stdout.rstrip())
    if result.stderr.strip():
        parts.append("Errors:\n" + result.stderr.rstrip()[-4000:])
    if result.truncated:
        parts.append("(The output was cut: print less.)")
    if written:
        parts.append("Files written: " + ", ".join(f"{f.name} ({size_words(f.size)})" for f in written))
    if removed:
        parts.append("Files deleted: " + ", ".join(removed))
    return "\n".join(parts)


class WorkspaceTools:
    def __init__(self, workspace: Workspace, outbox: Outbox, outside: Outside,
                 limits: RunLimits = RunLimits(), run: Run = run_confined) -> None:
        self._workspace = workspace
        self._outbox = outbox
        self._outside = outside
        self._limits = limits
        self._run = run

    def handle(self, goal: Goal, call: ToolCall, arguments: dict[str, Any]) -> str:
        """The tool result for the model (errors start with "Error:" and say what to do)."""
        try:
            return self._handle(goal, call.name, arguments)
        except WorkspaceError as exc:
            return f"Error: {exc}"
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()[:3])
            return f"Error: {call.name} needs {problems}."
        except ConfinementUnavailable as exc:
            return f"Error: code cannot run on this Deputy: {exc}"

    def _handle(self, goal: Goal, name: str, arguments: dict[str, Any]) -> str:
        user = goal.user_id
        if name == "list_files":
            return files_listing(self._workspace.list(user), self._workspace.quota_bytes)
        if name == "read_file":
            args = ReadFileArgs.model_validate(arguments)
            return self._read(goal, args)
        if name == "write_file":
            args_w = WriteFileArgs.model_validate(arguments)
            written = self._workspace.write(user, args_w.name, args_w.text.encode())
            return f"Saved {written.name} ({size_words(written.size)})."
        if name == "delete_file":
            args_d = FileArgs.model_validate(arguments)
            gone = self._workspace.delete(user, args_d.name)
            return f"Deleted {args_d.name}." if gone else f"Error: there is no file named {args_d.name!r}."
        if name == "run_python":
            return self._run_code(goal, RunPythonArgs.model_validate(arguments).code)
        if name == "send_file":
            args_s = SendFileArgs.model_validate(arguments)
            data = self._workspace.read(user, args_s.name)
            try:
                self._outbox.send_document(goal.chat_id, args_s.name.rsplit("/", 1)[-1], data,
                                           args_s.caption or args_s.name,
                                           dedupe_key=f"{goal.id}:{goal.step}:file:{args_s.name}")
            except ValueError as exc:
                return f"Error: {exc}."
            return f"Sent {args_s.name} to the user's chat."
        raise WorkspaceError(f"there is no workspace tool named {name!r}")

    def _read(self, goal: Goal, args: ReadFileArgs) -> str:
        data = self._workspace.read(goal.user_id, args.name)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return (f"Error: {args.name} is not a text file ({size_words(len(data))}). Use run_python to read it "
                    "(for example with zipfile or json), or send_file to give it to the user.")
        part = text[args.offset: args.offset + MAX_READ_CHARS]
        end = args.offset + len(part)
        more = f"\n[… {len(text) - end:,} more characters: read_file with offset {end}]" if end < len(text) else ""
        return self._outside(goal, f"the file {args.name} in your workspace", part + more)

    def _run_code(self, goal: Goal, code: str) -> str:
        with tempfile.TemporaryDirectory(prefix="deputy-run-", dir=SCRATCH_ROOT) as scratch:
            directory = Path(scratch)
            before = self._workspace.materialise(goal.user_id, directory)
            result = self._run(directory, code, self._limits)
            written, removed = self._workspace.collect(goal.user_id, directory, before)
        report = run_report(result, written, removed)
        if not before and not result.stdout.strip():
            return report  # nothing from outside went in, and nothing came out
        return self._outside(goal, "the output of code run over your workspace files", report)
