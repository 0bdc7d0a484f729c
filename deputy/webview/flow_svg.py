"""The "where each value came from" diagram of one action, as SVG drawn on the server.

Sources on the left (the user's words, each piece of outside content, the model's text), the
action's fields on the right (recipient, amount, body...), an arrow from each source into each
field it fed. Colours from the Okabe–Ito palette (told apart with colour-blindness too), and
never colour alone: each source box says in words what it is, outside content is drawn dashed,
and the SVG has a title and a description for screen readers.
"""

from __future__ import annotations

from html import escape

from deputy.sentinel.value_sources import SOURCE_WORDS, Flow, Source

COLOURS = {Source.user: "#0072B2", Source.outside: "#D55E00", Source.model: "#6A3D9A"}
FILLS = {Source.user: "#E3F0FA", Source.outside: "#FBE9DF", Source.model: "#EFE8F6"}
_WIDTH, _BOX_W, _BOX_H, _GAP, _TOP = 640, 250, 72, 14, 36


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _lines(text: str, width: int = 33, count: int = 2) -> list[str]:
    """`text` in at most `count` lines of about `width` characters, the last one cut with an ellipsis."""
    words, lines = " ".join(text.split()).split(" "), [""]
    for word in words:
        if lines[-1] and len(lines[-1]) + 1 + len(word) > width:
            if len(lines) == count:
                lines[-1] = _short(lines[-1] + " " + word, width)
                break
            lines.append("")
        lines[-1] = f"{lines[-1]} {word}".strip()
    return [_short(line, width) for line in lines]


def flow_svg(flows: list[Flow], key: str = "f", title: str = "Where each value came from") -> str:
    """The diagram for `flows` (empty string when there is nothing to draw); `key` keeps its ids apart from
    other diagrams on the page."""
    if not flows:
        return ""
    sources: list[tuple[Source, str]] = list(dict.fromkeys((f.source, f.origin) for f in flows))
    fields: list[str] = list(dict.fromkeys(f.field for f in flows))
    rows = max(len(sources), len(fields))
    height = _TOP + rows * (_BOX_H + _GAP) + 8
    right = _WIDTH - _BOX_W - 4

    def y_of(index: int, count: int) -> float:
        offset = (rows - count) * (_BOX_H + _GAP) / 2
        return _TOP + offset + index * (_BOX_H + _GAP)

    desc = "; ".join(f"the {f.field} “{_short(f.value, 60)}” "
                     + (f"was {f.origin}" if f.source is Source.model else f"came from {f.origin}") for f in flows)
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {_WIDTH} {height}' width='100%' role='img' "
             f"class='flow' aria-labelledby='{key}-t {key}-d'><title id='{key}-t'>{escape(title)}</title><desc id='{key}-d'>{escape(desc)}"
             "</desc><defs>"]
    for source, colour in COLOURS.items():
        parts.append(f"<marker id='{key}-arrow-{source.value}' viewBox='0 0 10 10' refX='9' refY='5' markerWidth='7' "
                     f"markerHeight='7' orient='auto'><path d='M0,0 L10,5 L0,10 z' fill='{colour}'/></marker>")
    parts.append("</defs>")
    parts.append("<text x='4' y='20' class='head'>Came from</text>"
                 f"<text x='{right}' y='20' class='head'>Went into</text>")
    for index, (source, origin) in enumerate(sources):
        y = y_of(index, len(sources))
        dash = " stroke-dasharray='6 3'" if source is Source.outside else ""
        parts.append(
            f"<g class='source {source.value}'><rect x='4' y='{y}' width='{_BOX_W}' height='{_BOX_H}' rx='8' "
            f"fill='{FILLS[source]}' stroke='{COLOURS[source]}' stroke-width='2'{dash}/>"
            f"<text x='14' y='{y + 21}' class='kind' fill='{COLOURS[source]}'>{escape(SOURCE_WORDS[source])}</text>"
            + "".join(f"<text x='14' y='{y + 40 + 17 * n}' class='origin'>{escape(line)}</text>"
                      for n, line in enumerate(_lines(origin))) + "</g>")
    for index, field in enumerate(fields):
        y = y_of(index, len(fields))
        value = next(f.value for f in flows if f.field == field)
        parts.append(
            f"<g class='field'><rect x='{right}' y='{y}' width='{_BOX_W}' height='{_BOX_H}' rx='8' fill='#fff' "
            f"stroke='#444' stroke-width='1.5'/><text x='{right + 10}' y='{y + 21}' class='kind'>"
            f"{escape(field.capitalize())}</text><text x='{right + 10}' y='{y + 41}' class='origin'>"
            f"{escape(_short(value, 34))}</text></g>")
    for flow in flows:
        s = sources.index((flow.source, flow.origin))
        f = fields.index(flow.field)
        y1 = y_of(s, len(sources)) + _BOX_H / 2
        y2 = y_of(f, len(fields)) + _BOX_H / 2
        x1, x2 = 4 + _BOX_W, right - 2
        mid = (x1 + x2) / 2
        dash = " stroke-dasharray='6 3'" if flow.source is Source.outside else ""
        parts.append(
            f"<path class='arrow {flow.source.value}' d='M{x1},{y1} C{mid},{y1} {mid},{y2} {x2},{y2}' fill='none' "
            f"stroke='{COLOURS[flow.source]}' stroke-width='2.5'{dash} marker-end='url(#{key}-arrow-{flow.source.value})'>"
            f"<title>{escape(flow.field)} ← {escape(flow.origin)}</title></path>")
    parts.append("</svg>")
    return "".join(parts)


def legend() -> str:
    """The key to the diagram's colours, as HTML."""
    return "<ul class='legend'>" + "".join(
        f"<li><span class='swatch {s.value}' style='border-color:{COLOURS[s]};background:{FILLS[s]}'></span>"
        f"{escape(SOURCE_WORDS[s])}</li>" for s in Source) + "</ul>"
