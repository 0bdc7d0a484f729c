"""Readable text from a `PageSnapshot`: the main content, its links, its forms, within a bound.

Pure, no browser and no network. Like a reader view: navigation, headers, footers and
sidebars are dropped; when the page marks its main content (<main>, <article>) and that
holds real text, only it is kept; hidden text never appears (only how many pieces were
left out). Links stay inline as `[text](url)` so the agent can follow them; forms are
described with the names the form operations take.
"""

from __future__ import annotations

from collections.abc import Sequence

from deputy.connectors.web.forms import form_label, is_sensitive
from deputy.connectors.web.snapshot import Block, FormInfo, PageSnapshot

MAX_CHARS = 12_000
"""Most characters of page text handed to the agent."""
MAX_FORM_CHARS = 4_000
"""Most characters of form descriptions (on top of the page text)."""
_MAIN_ENOUGH = 200
"""Characters of text a <main>/<article> must hold to be trusted as the whole content."""


def readable_blocks(snapshot: PageSnapshot) -> list[Block]:
    """The blocks a reader view would show, in page order."""
    content = [b for b in snapshot.blocks if b.region != "boilerplate"]
    main = [b for b in content if b.region == "main"]
    if sum(len(b.text) for b in main) >= _MAIN_ENOUGH:
        return main
    return content


def render_blocks(blocks: list[Block]) -> str:
    lines = []
    for block in blocks:
        if block.kind == "heading":
            lines.append("#" * max(block.level, 1) + " " + block.text)
        elif block.kind == "item":
            lines.append("- " + block.text)
        elif block.kind == "quote":
            lines.append("> " + block.text)
        elif block.kind == "pre":
            lines.append("```\n" + block.text + "\n```")
        else:
            lines.append(block.text)
    return "\n".join(lines)


def describe_form(form: FormInfo, page_url: str) -> str:
    """One form: where it sends, which operation submits it, its fields and buttons."""
    head = form_label(form)
    if form.index == 0:
        lines = [f"{head} (fill with fill_form; there is no form to submit)"]
    else:
        operation = "submit_sensitive_form" if is_sensitive(form, page_url) else "submit_form"
        lines = [f"{head}: sends {form.method.upper()} to {form.action} (submit with {operation}, action_url as shown)"]
    for field in form.fields:
        if not field.visible or not field.key():
            continue
        facts = [field.type]
        if field.label:
            facts.append(f'label "{field.label}"')
        if field.required:
            facts.append("required")
        if field.options:
            facts.append("options: " + ", ".join(field.options))
        lines.append(f"  - {field.key()} ({'; '.join(facts)})")
    buttons = [b.text for b in form.buttons if b.text]
    if buttons:
        lines.append("  buttons: " + ", ".join(buttons))
    return "\n".join(lines)


def render_page(snapshot: PageSnapshot, *, notes: Sequence[str] = (), max_chars: int = MAX_CHARS) -> str:
    """The page as compact text for the agent, with notes (blocked requests, status) at the end."""
    body = render_blocks(readable_blocks(snapshot))
    extra: list[str] = []
    if len(body) > max_chars:
        extra.append(f"The page text was cut at {max_chars:,} of {len(body):,} characters.")
        body = body[:max_chars].rstrip() + " …"
    elif snapshot.truncated:
        extra.append("The page is longer than what I read; only its beginning is shown.")
    if snapshot.hidden_texts:
        extra.append(f"Left out {snapshot.hidden_texts} piece(s) of hidden text that the page does not show.")
    parts = [f"Title: {snapshot.title or '(none)'}", f"Address: {snapshot.url}", "", body or "(no readable text)"]
    forms = [describe_form(f, snapshot.url) for f in snapshot.forms if any(x.visible for x in f.fields)]
    if forms:
        described = "\n".join(forms)
        if len(described) > MAX_FORM_CHARS:
            described = described[:MAX_FORM_CHARS].rstrip() + " …"
            extra.append("The form descriptions were cut short.")
        parts += ["", "Forms:", described]
    every_note = [*notes, *extra]
    if every_note:
        parts += ["", "Notes:", *(f"- {n}" for n in every_note)]
    return "\n".join(parts)
