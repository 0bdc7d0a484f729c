"""Provider keys and tokens, by the rules of gitleaks, a maintained secret scanner.

The rule set is gitleaks' own published configuration (`data/gitleaks.toml`, MIT, see
`data/README.md`): each rule has a regex, the keywords that must appear for it to be worth
running, an optional minimum Shannon entropy for the captured secret, and allowlists. The
keyword filter is what keeps this cheap: a chat message mentions few providers, so only a
handful of the ~220 rules ever run on it.

Gitleaks is written in Go, and a few of its regexes use Go syntax Python lacks (a flag group
in the middle of a pattern, `\\z`); they are translated on load. Its rules expect a key to
end at a quote, space, `;` or the end of a line (it reads source files); in a chat a key is
as often followed by a full stop or a comma, so those end a key too.
"""

from __future__ import annotations

import math
import re
import tomllib
import warnings
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from deputy.core.secret_scan.hits import Hit

_DATA = Path(__file__).parent / "data" / "gitleaks.toml"
_GO_END = r'''(?:[\x60'"\s;]|\\[nr]|$)'''
_CHAT_END = r'''(?:[\x60'"\s;.,!?)\]}>]|\\[nr]|$)'''
_PRIVATE = ("private-key", "pkcs12-file")


@dataclass(frozen=True)
class _Rule:
    id: str
    regex: re.Pattern[str]
    keywords: tuple[str, ...]
    entropy: float
    group: int
    allow_secret: tuple[re.Pattern[str], ...]
    allow_match: tuple[re.Pattern[str], ...]
    stopwords: "_StopWords | None"


class _StopWords:
    """Gitleaks' stop words of a rule (the generic rule has ~1,400), found in a secret by their first three
    letters: one look-up per character of the secret instead of one search per word."""

    def __init__(self, words: list[str]) -> None:
        self._by_start: dict[str, list[str]] = {}
        for word in {w.lower() for w in words if len(w) >= 3}:
            self._by_start.setdefault(word[:3], []).append(word)
        self._short = tuple({w.lower() for w in words if len(w) < 3})

    def found_in(self, secret: str) -> bool:
        by_start = self._by_start
        for index in range(len(secret) - 2):
            words = by_start.get(secret[index:index + 3])
            if words and any(secret.startswith(word, index) for word in words):
                return True
        return any(word in secret for word in self._short)


def shannon_entropy(value: str) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def go_to_python(pattern: str) -> str:
    """Go's `x(?i)y` applies the flag to the rest of the enclosing group; Python wants `(?i:y)`."""
    pattern = pattern.replace(r"\z", r"\Z").replace(_GO_END, _CHAT_END)
    out, depth_closers, i = [], [[]], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if char == "[":  # a character class: copy it whole (a `]` right after `[` or `[^` is literal)
            j = i + 1
            if j < len(pattern) and pattern[j] == "^":
                j += 1
            if j < len(pattern) and pattern[j] == "]":
                j += 1
            while j < len(pattern) and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            out.append(pattern[i:j + 1])
            i = j + 1
            continue
        flag = re.match(r"\(\?([a-z]+)\)", pattern[i:])
        if flag and out:
            out.append(f"(?{flag.group(1)}:")
            depth_closers[-1].append(")")
            i += flag.end()
            continue
        if char == "(":
            depth_closers.append([])
        elif char == ")":
            out.append("".join(depth_closers.pop()))
        out.append(char)
        i += 1
    out.append("".join(depth_closers[0]))
    return "".join(out)


# An allowlist pattern is only ever searched for (does it occur?), so a branch's leading "any run of these
# characters, as few as possible" changes nothing but the cost: Python's matcher, unlike Go's, retries it from
# every character, which on a 500-character token took milliseconds.
_LAZY_PREFIX = "[a-z0-9-]*?api[a-z0-9-]*?:jar:"


def _for_search(pattern: str) -> str:
    return pattern.replace(_LAZY_PREFIX, "api[a-z0-9-]*:jar:")


def _compile(pattern: str) -> re.Pattern[str] | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # Go's `[[` is a plain bracket
            return re.compile(go_to_python(pattern))
    except re.error:
        return None


@cache
def rules() -> tuple[_Rule, ...]:
    loaded = []
    for raw in tomllib.loads(_DATA.read_text(encoding="utf-8"))["rules"]:
        pattern = raw.get("regex")
        if raw["id"] == "generic-api-key" and pattern and pattern.startswith("(?i)[\\w.-]{0,50}?"):
            # Its name part may start anywhere in a run of word characters; starting only where a run
            # starts finds the same keys without trying (and backtracking over a long token) at every one.
            pattern = "(?i)(?<![\\w.-])" + pattern[len("(?i)"):]
        regex = _compile(pattern) if pattern else None
        if regex is None:
            continue  # a rule on file paths only, or one Python cannot express
        allow_secret, allow_match, stopwords = [], [], []
        for allow in raw.get("allowlists", ()):
            if allow.get("condition") == "AND" or allow.get("paths"):
                continue  # tied to file paths, which a chat message has none of
            target = allow_match if allow.get("regexTarget") in ("match", "line") else allow_secret
            target.extend(p for p in map(_compile, map(_for_search, allow.get("regexes", ()))) if p is not None)
            stopwords.extend(allow.get("stopwords", ()))
        loaded.append(_Rule(
            id=raw["id"], regex=regex, keywords=tuple(k.lower() for k in raw.get("keywords", ())),
            entropy=float(raw.get("entropy", 0)), group=int(raw.get("secretGroup", 0)),
            allow_secret=tuple(allow_secret), allow_match=tuple(allow_match),
            stopwords=_StopWords(stopwords) if stopwords else None,
        ))
    return tuple(loaded)


def _secret_span(match: re.Match[str], group: int) -> tuple[int, int]:
    if group:
        return match.span(group)
    for index in range(1, (match.re.groups or 0) + 1):
        if match.group(index):
            return match.span(index)
    return match.span()


_WINDOW = 200  # a key's name, its separator and a value of up to 150 characters


def _matches(rule: _Rule, text: str, lowered: str):
    """The generic rule backtracks at every character of a long token: it reads only around its keywords."""
    if rule.id != "generic-api-key":
        yield from rule.regex.finditer(text)
        return
    windows: list[list[int]] = []
    for keyword in rule.keywords:
        start = lowered.find(keyword)
        while start != -1:
            windows.append([max(0, start - 60), min(len(text), start + len(keyword) + _WINDOW)])
            start = lowered.find(keyword, start + 1)
    windows.sort()
    merged: list[list[int]] = []
    for window in windows:
        if merged and window[0] <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], window[1])
        else:
            merged.append(window)
    for start, end in merged:
        line_end = text.find("\n", start, end)
        yield from rule.regex.finditer(text, start, end if line_end == -1 else line_end)


@cache
def _by_keyword() -> tuple[tuple[_Rule, ...], dict[str, tuple[int, ...]]]:
    """The rules without keywords (always run), and each keyword with the rules it lets run."""
    index: dict[str, list[int]] = {}
    for position, rule in enumerate(rules()):
        for keyword in rule.keywords:
            index.setdefault(keyword, []).append(position)
    return tuple(r for r in rules() if not r.keywords), {k: tuple(v) for k, v in index.items()}


def _rules_for(lowered: str) -> list[_Rule]:
    always, index = _by_keyword()
    every = rules()
    wanted = sorted({position for keyword, positions in index.items() if keyword in lowered for position in positions})
    return [*always, *(every[position] for position in wanted)]


def vendor_key_hits(text: str, lowered: str) -> list[Hit]:
    found = []
    for rule in _rules_for(lowered):
        for match in _matches(rule, text, lowered):
            start, end = _secret_span(match, rule.group)
            secret = text[start:end]
            if rule.entropy and shannon_entropy(secret) < rule.entropy:
                continue
            if any(p.search(secret) for p in rule.allow_secret) or any(p.search(match.group(0)) for p in rule.allow_match):
                continue
            if rule.stopwords is not None and rule.stopwords.found_in(secret.lower()):
                continue
            kind = "private_key" if rule.id in _PRIVATE else "access_key"
            found.append(Hit(kind, start, end) if kind == "access_key" else Hit(kind, *match.span()))
    return found
