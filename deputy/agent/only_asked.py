"""A question asks for an answer, not for a change.

"What's on my calendar tomorrow?" once made a small model *create* an event; "did Sam reply?" can
end in an email sent. When everything the user typed for a goal is a question, and none of it is
a request put as one ("could you add…", "can you send…", "please…"), a call that would change
something (a write, a message, a payment) goes back to the model once with that said. A call whose
effect is only Deputy's cautious guess (an MCP tool nobody marked, `Operation.effect_assumed`) is
not taken for a change: "what's the weather in Lisbon?" may well be answered by one. A model
that makes the same call again goes on to the guard as any call does: the user may have meant it.
Pure functions, in the languages Deputy speaks.
"""

from __future__ import annotations

import re
from typing import Any

_SENTENCES = re.compile(r"[^.!?\n]+[.!?]*")
# A request put as a question, or made politely, opens a sentence or stands anywhere in it ("please").
_REQUEST = re.compile(
    r"^\W*(?:(?:hey|hi|ok|okay|so|and|also|oh)\W+)*(?:can|could|would|will|wo)(?:n'?t)? (?:you|u)\b|^\W*(?:pls|plz|please|"
    r"kannst du|könntest du|können sie|könnten sie|würdest du|magst du|puedes|podrías|podria|puede|podría|"
    r"peux-tu|pourrais-tu|pouvez-vous|pourriez-vous|tu peux|tu pourrais|puoi|potresti|può|potrebbe|podes|poderias|"
    r"pode|poderia|você pode|kun je|kan je|kunt u|zou je|wil je|how about|what about|why not|why don't (?:you|we)|"
    r"wie wäre es|warum nicht|qué tal si|y si|et si|pourquoi pas|e se|perché non|e que tal|waarom niet)\b|"
    r"\b(?:(?:can|could|would)(?:n'?t)? (?:you|u)|(?:you|u) (?:can|could|would)) (?!(?:tell|say|explain)\b)|\b(?:please|pls|plz|bitte|por favor|"
    r"s'il (?:te|vous) pla[iî]t|per favore|por favor|alsjeblieft|alstublieft)\b",
    re.IGNORECASE)
# A question opens with a question word (a closed class in every language): "email Sam that I'm late?" is a
# request with a question mark, "did Sam reply?" a question.
_INTERROGATIVE = re.compile(
    r"^\W*(?:(?:hey|hi|ok|okay|so|and|also|oh|und|y|et|e|en|en dan)\W+)*(?:"
    r"what|what's|whats|when|when's|where|where's|who|who's|whom|whose|which|how|how's|why|did|do|does|didn't|"
    r"doesn't|don't|is|isn't|are|aren't|was|wasn't|were|have|has|haven't|hasn't|had|am|any|anything|has anyone|"
    r"wer|was|wann|wo|woher|wohin|wie|warum|wieso|welche[rsmn]?|hat|hast|habe|ist|sind|gibt|gab|"
    r"qué|que|cuándo|cuando|dónde|donde|quién|quien|quiénes|cómo|como|cuánto|cuánta|cuántos|cuántas|cuál|cuáles|"
    r"hay|tengo|tiene|tienes|es|está|están|hubo|ha|han|"
    r"qu'est-ce|qu'|quand|où|qui|comment|combien|est-ce|ai-je|as-tu|a-t-il|a-t-elle|y a-t-il|quel|quelle|quels|quelles|"
    r"cosa|che|quando|dove|chi|quanto|quanti|quante|quale|quali|ho|hai|c'è|ci sono|"
    r"o que|onde|quem|quanto|quantos|quantas|qual|quais|tenho|tens|há|houve|"
    r"wat|wanneer|waar|wie|hoe|hoeveel|welke|heb|hebben|zijn)\b", re.IGNORECASE)
_SENT_BACK = "not run: the user only asked a question"


def only_asks(words: list[str]) -> bool:
    """Whether every sentence the user typed is a question (a question word, a question mark) and none is a
    request put as one."""
    sentences = [s.strip() for text in words for s in _SENTENCES.findall(text) if s.strip(" \t¿¡")]
    if not sentences:
        return False
    return all(s.endswith("?") and _INTERROGATIVE.search(s.lstrip("¿¡ ")) and not _REQUEST.search(s.lstrip("¿¡ "))
               for s in sentences)


def told_before(messages: list[dict[str, Any]], told: str) -> bool:
    """Whether the model was already sent back with exactly these words in this goal."""
    return any(message.get("role") == "tool" and told in str(message.get("content", "")) for message in messages)


def correction(operation: str, question: str) -> str:
    """What the model is told instead of running a change (the same words for the same call)."""
    return (f"{_SENT_BACK} (“{question[:200]}”), and {operation} would change something. Answer the question from "
            f"what you read (read first if you have not); change nothing. If the user did ask for this, make the same "
            f"call again.")
