"""Whom the user's own words send an action to: recipients the user named as recipients.

Reading the user's words generously is right for intent (a missed word only costs a card),
but an action the guard lets through without a card needs more: each of its targets must be
named by the user, in a sentence that asks for this kind of action, right after words that
make it the receiving end ("email alice@…", "reply to sam@…", "share it with carol@…",
"invite tom@… and ana@…"). Naming someone as a source does not make them a recipient:
"tell me what bob@… wants" or "the email from bob@…" asks nothing to be sent to Bob. A
website is named by its address in a sentence asking to post or fill something in. Someone
the user named by role ("email my accountant") is addressed when the user's own remembered
words say who that is ("my accountant is bob@…").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from deputy.sentinel.intent import Kind, kinds_in, referrals
from deputy.sentinel.provenance import domain_of

_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|\n")
# Words after which the next value receives something.
_RECIPIENT_MARKER = re.compile(
    r"\b(?:to|with|cc|bcc|email|e-mail|mail|message|text|tell|ask|invite|inform|notify|ping|contact|remind|"
    r"thank|answer|reply|forward|fwd|share|send)\s+(?:(?:my|our|the)\s+[\w-]+\s+)?[(<\"']?$",
    re.IGNORECASE)
# "post in #general", "drop a note in the team channel", "dm bob": where a message is placed is
# its receiving end too (the channel, with or without its "#"), only after a verb that places one.
_PLACED_MARKER = re.compile(
    r"\b(?:post|drop|leave|write|send|share|add|say|paste|pin)\b[^.!?;\n]{0,60}?\b(?:to|in|into|on|onto)\s+"
    r"(?:(?:my|our|the)\s+)?[#@]?$|\bdm\s+@?$", re.IGNORECASE)
# "alice@x.example, bob@y.example and " before a target: the marker may sit before the list.
_LISTED = re.compile(r"(?:[\w.+-]+@[\w.-]+\w|https?://\S+)[)>\"']?\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s+or\s+)$",
                     re.IGNORECASE)


# After a recipient marker: the role the user writes to ("email my accountant ...").
_ROLE = re.compile(
    r"\b(?:to|with|cc|bcc|email|e-mail|mail|message|text|tell|ask|invite|inform|notify|ping|contact|remind|"
    r"thank|answer|reply|forward|fwd|share)\s+(?:(?:my|our|the)\s+)?([a-z][\w-]{2,})", re.IGNORECASE)
_NOT_ROLES = frozenset({"remember", "that", "this", "the", "and", "his", "her", "their", "email", "mail", "address",
                        "from", "with", "you", "are", "was", "also", "please", "note", "know"})


def addressed_by_user(targets: list[str], kinds: frozenset[Kind], user_words: list[str],
                      remembered: Sequence[str] = ()) -> bool:
    """Every target is one the user named as the receiving end of this kind of action, in
    `user_words` (what they wrote for this goal), directly or by a role `remembered` (the
    user's own earlier words) ties to the target."""
    if not targets or not kinds:
        return False
    sentences = _sentences(user_words)
    asking = [s for s in sentences if kinds & kinds_in(s)]
    known = [s for s in _sentences(list(remembered)) if s not in sentences]  # what this goal's words say is above
    # "create #launch and post the plan to it": the channel named before the phrase that points back at it.
    referred = {r.channel.lower() for r in referrals(tuple(user_words)) if r.kind in kinds}
    return all(any(_names_as_recipient(sentence, target, kinds) for sentence in asking)
               or target.strip().lstrip("#").lower() in referred
               or _named_by_role(target, asking, known) for target in targets)


def _sentences(texts: list[str]) -> list[str]:
    return list(_split_sentences(tuple(texts)))


@lru_cache(maxsize=512)
def _split_sentences(texts: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(s for text in texts for s in _SENTENCE_END.split(text) if s.strip())


def _named_by_role(target: str, asking: list[str], known: list[str]) -> bool:
    own = set(re.findall(r"[a-z][\w-]{2,}", target.lower()))  # "evil" in collector@evil.example is no role
    roles = {word.lower() for sentence in known if _occurrences(sentence, target)
             for word in re.findall(r"[a-z][\w-]{2,}", sentence, re.IGNORECASE)} - _NOT_ROLES - own
    return any(match.group(1).lower() in roles for sentence in asking for match in _ROLE.finditer(sentence))


def _names_as_recipient(sentence: str, target: str, kinds: frozenset[Kind]) -> bool:
    site = "://" in target
    for start in _occurrences(sentence, target):
        if site and Kind.post in kinds:
            return True
        before = sentence[:start]
        while (listed := _LISTED.search(before)) is not None:
            before = before[:listed.start()]
        if _RECIPIENT_MARKER.search(before) or _PLACED_MARKER.search(before):
            return True
    return False


@lru_cache(maxsize=1024)
def _written(value: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.@-]){re.escape(value)}(?![\w@-]|\.\w)", re.IGNORECASE)


def _occurrences(sentence: str, target: str) -> list[int]:
    """Where the target is written in the sentence (a web target by its site)."""
    value = target.strip().lower()
    if "://" in value:
        value = domain_of(value) or value
    if not value:
        return []
    pattern = _written(value)
    starts = []
    for match in pattern.finditer(sentence):
        # A site is written with its scheme: point at the start of the whole address.
        scheme = re.search(r"\b[a-z][a-z0-9+.-]*://(?:www\.)?$", sentence[:match.start()], re.IGNORECASE)
        starts.append(scheme.start() if scheme else match.start())
    return starts
