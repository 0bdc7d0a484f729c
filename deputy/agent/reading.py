"""What a goal reads: files sent with it, results of its actions, and stored long results.

Outside content is labelled for the model, recorded in the goal's ledger for the guard's
provenance checks, and scanned for injection attempts; large results are kept whole
aside and shown cut, with a handle to read more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

from deputy.agent.attachments import ATTACHMENT, IMAGE_TYPES, UnreadableFile, document_text, image_part
from deputy.agent.context import RESULT_CHARS, bounded_result
from deputy.agent.goals import Goal, GoalStore
from deputy.agent.model.chat_model import ToolCall
from deputy.agent.origins import Origin, labelled
from deputy.agent.prompt import untrusted
from deputy.agent.tools import parse_read_result
from deputy.core.records.deputy_notes import neutralise, shown_note, split_note
from deputy.core.records.read_items import clipped
from deputy.agent.uploads import Uploads
from deputy.sentinel.stores.action_store import ActionRecord
from deputy.sentinel.origins import item_sources
from deputy.sentinel.provenance import MAX_ITEM_CHARS, UntrustedItem
from deputy.workspace.files import Workspace, WorkspaceError

if TYPE_CHECKING:
    from deputy.sentinel.detectors import InjectionDetector


class ContentScanner(Protocol):
    """Injection detection on outside content (`deputy.sentinel.detectors`): reasons, or none."""

    def __call__(self, text: str, source: str) -> list[str]: ...


def injection_scanner(detector: "InjectionDetector") -> ContentScanner:
    """A `ContentScanner` from a detector: its reasons when it flags the content."""

    def scan(text: str, source: str) -> list[str]:
        detection = detector.scan(text, source)
        if not detection.flagged:
            return []
        return detection.reasons or ["it looks like instructions to an AI"]

    return scan


class Reading:
    def __init__(
        self, goals: GoalStore, scanner: ContentScanner | None, clock: Callable[[], float], uploads: Uploads,
        workspace: Workspace | None = None,
    ) -> None:
        self._goals = goals
        self._uploads = uploads
        self._workspace = workspace
        self._scanner = scanner
        self._clock = clock

    def read_attachments(self, goal: Goal) -> str | None:
        """Turn the files sent with the goal into labelled messages (once); a reason if one is unreadable."""
        for attachment in goal.attachments:
            origin = f"the file {attachment.name} you sent"
            try:
                # By the goal's own user: a file id of someone else's upload finds nothing.
                data = self._uploads.read(goal.user_id, attachment)
            except UnreadableFile as exc:
                return str(exc)
            kept = self._keep(goal, attachment.name, data)
            if attachment.mime_type in IMAGE_TYPES:
                content: Any = [{"type": "text", "text": f"(An image you sent: {attachment.name}){kept}"},
                                image_part(attachment, data)]
            else:
                try:
                    text = document_text(attachment, data)
                except UnreadableFile as exc:
                    return str(exc)
                goal.untrusted.append(UntrustedItem(origin=origin, text=text[:MAX_ITEM_CHARS], at=self._clock()))
                if self._scanner is not None:
                    goal.risk_notes.extend(f"{origin}: {reason}" for reason in self._scanner(text, origin))
                content = untrusted(origin, text) + kept
            goal.messages.append(labelled({"role": "user", "name": ATTACHMENT, "content": content}, Origin.outside))
        goal.attachments = []
        return None

    def _keep(self, goal: Goal, name: str, data: bytes) -> str:
        """The file in the user's workspace too, for code to work on; the note saying under which name."""
        if self._workspace is None:
            return ""
        try:
            stored = self._workspace.add_sent(goal.user_id, name, data)
        except WorkspaceError as exc:
            return f"\n(Not kept in your workspace: {exc})"
        return f"\n(Kept in your workspace as {stored.name}.)"

    def read_result(self, goal: Goal, call: ToolCall) -> str:
        args = parse_read_result(call)
        text = self._goals.result(goal.id, args.handle, goal.user_id)
        if text is None:
            return f"Error: there is no stored result {args.handle!r}."
        part = text[args.offset : args.offset + RESULT_CHARS]
        end = args.offset + len(part)
        more = f"\n[… {len(text) - end:,} more characters: offset {end}]" if end < len(text) else ""
        return part + more

    def observe(self, goal: Goal, record: ActionRecord) -> str:
        """The tool result for the model; outside content is labelled and remembered."""
        outcome, note = split_note(record.outcome or record.state.value)
        origin = record.untrusted_origin
        if origin is None:
            return self._bounded(goal, outcome) + shown_note(note)
        return self.outside(goal, origin, outcome, record.untrusted_items) + shown_note(note)

    def outside(self, goal: Goal, origin: str, text: str, items: list | None = None) -> str:
        """Content that came from outside the user's own words (a reply, a file, what code printed over
        files): kept whole when long, labelled for the model, remembered for the guard, scanned."""
        shown = self._bounded(goal, text)
        # Each email, event or record keeps its own origin, so a card can name the one a value came from.
        read = UntrustedItem(origin=origin, text=text[:MAX_ITEM_CHARS], at=self._clock(),
                             parts=clipped(items or [], min(len(text), MAX_ITEM_CHARS)))
        goal.untrusted.append(read)
        if self._scanner is not None:
            goal.risk_notes.extend(self._flagged(read, text))
        return untrusted(origin, neutralise(shown))

    def _flagged(self, read: UntrustedItem, text: str) -> list[str]:
        """The scanner's notes on outside content, each under the one email, event or record that
        spoke (the whole reading's name when no single item did, or it holds more than was kept)."""
        assert self._scanner is not None
        reasons = self._scanner(text, read.origin)
        if not reasons:
            return []
        sources = item_sources(read, MAX_ITEM_CHARS) if len(text) <= MAX_ITEM_CHARS else ()
        by_item = [f"{source.origin}: {reason}" for source in sources if source.origin != read.origin
                   for reason in self._scanner(source.text, source.origin)] if len(sources) > 1 else []
        return by_item or [f"{read.origin}: {reason}" for reason in reasons]

    def _bounded(self, goal: Goal, text: str) -> str:
        """The text, or its start with a handle to read on when it is long (the whole kept aside)."""
        handle = None
        if len(text) > RESULT_CHARS:
            goal.results_stored += 1
            handle = f"r{goal.results_stored}"
            self._goals.store_result(goal.id, handle, text, goal.user_id)
        return bounded_result(text, handle)
