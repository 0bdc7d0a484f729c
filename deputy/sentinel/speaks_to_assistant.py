"""Outside content that speaks to the assistant: a note, an order or a request aimed at an agent.

An email, an invite or a page is written to the user. A passage that addresses the assistant
("note to the assistant: …", "AI: please also …", "when you write to Sam, also tell them …",
"Hinweis an den Assistenten", "note pour l'assistant") is someone trying to steer the agent,
however politely. Once a goal has read one, the agent may pass on what it says in its own
words, so no test of word overlap can tell whether a later message obeys it: the mark on the
goal is what counts, and every later message of that goal is shown to the user beside the
passage. Pure: the outside items are all it reads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from pydantic import BaseModel

from deputy.core.records.read_items import ItemSpan
from deputy.sentinel.origins import item_sources
from deputy.sentinel.passages import as_written
from deputy.sentinel.provenance import MAX_ITEM_CHARS, UntrustedItem

_AGENT = (r"(?:(?:the|your|an?|this)\s+)?(?:ai|a\.i\.|assistant|agent|bot|chatbot|llm|language model|"
          r"model|copilot|deputy|gpt|claude|gemini)")
# Said to someone's face ("AI: …", "Hey assistant"): only words that cannot be a person's job title.
_VOCATIVE = r"(?:(?:the|your|an?|this)\s+)?(?:ai|a\.i\.|assistant|chatbot|llm|deputy|gpt|claude|gemini)"
_AGENT_DE = r"(?:(?:den|die|das|dem|der|deinen?|ihren?)\s+)?(?:assistent(?:en|in)?|ki|agenten?|bot)"
_AGENT_FR = r"(?:(?:l'|le |la |à l'|au |votre |ton )\s*)?(?:assistant|assistante|ia|agent|bot)"
_AGENT_ES = r"(?:(?:el|la|al|tu|su|o|a|l'|ao|à)\s+)?(?:asistente|assistente|ia|agente|bot|assistent)"

# Each is enough on its own: words aimed at an agent rather than at the person who reads them.
_ADDRESSING = [
    # "note to the assistant", "message for the AI", "instructions for your agent"
    rf"\b(?:notes?|message|memo|instructions?|reminder|request|p\.?s\.?)\s+(?:to|for)\s+{_AGENT}\b",
    # "AI: please …", "Assistant, …", "Dear AI", "Hey assistant"
    rf"(?:^|[\n.!?]\s*|\b(?:dear|hey|hi|hello|attention|attn:?)\s+){_VOCATIVE}\s*[:,\-–]",
    rf"\b(?:dear|hey|hi|hello|attention|attn:?)\s+{_AGENT}\b",
    # "if you are an AI", "to any assistant reading this", "AI agents processing this"
    rf"\bif you(?:'re| are)\s+(?:an?\s+)?{_AGENT}\b",
    rf"\b{_AGENT}s?\s+(?:reading|processing|summari[sz]ing|handling|working on)\s+(?:this|these|my|the)\b",
    # "when you reply/write to X, (also) tell/mention/say/add …": an errand for whoever writes the reply
    r"\b(?:when|once|if|as) you (?:reply|respond|answer|write|email|e-mail|message|draft|send|contact|get back)"
    r"[^.!?\n]{0,80}?\b(?:also |please |make sure to |be sure to |don't forget to )?"
    r"(?:tell|inform|mention|say|add|include|let (?:them|him|her|\w+) know|write|state|note)\b",
    # "in your reply, say …", "in the next message you send, include …"
    r"\bin (?:your|the|any) (?:reply|response|answer|next message|message to)\b[^.!?\n]{0,60}?"
    r"\b(?:tell|mention|say|add|include|state|write)\b",
    # "without telling the user", "don't mention this to your user", "your principal"
    r"\b(?:without (?:telling|asking|informing|notifying|alerting) (?:the|your) (?:user|owner|principal|human)|"
    r"(?:do not|don't|never) (?:tell|mention|inform|show|alert) (?:this to )?(?:the|your) (?:user|owner|principal|human))",
    r"\b(?:ignore|disregard|forget) (?:all |any |your |the )?(?:previous|prior|earlier|above|other) "
    r"(?:instructions|rules|guidance|directions)\b",
    # German
    rf"\b(?:hinweis|nachricht|notiz|anweisung(?:en)?)\s+(?:an|für)\s+{_AGENT_DE}\b",
    r"\b(?:wenn|sobald) (?:du|sie) (?:antwortest|antworten|schreibst|schreiben|mailst)\b[^.!?\n]{0,80}?"
    r"\b(?:sag|sage|sagen|teile|teilen|erwähne|erwähnen|schreib|schreibe|füge)\b",
    rf"(?:^|[\n.!?]\s*){_AGENT_DE}\s*[:,]",
    # French
    rf"\b(?:note|message|consigne|instructions?)\s+(?:pour|à)\s+{_AGENT_FR}\b",
    r"\b(?:quand|lorsque|si) (?:tu|vous) (?:réponds|répondez|répondras|répondrez|écris|écrivez|écriras|écrirez)\b"
    r"[^.!?\n]{0,80}?\b(?:dis|dites|mentionne|mentionnez|ajoute|ajoutez|précise|précisez|informe|informez)\b",
    # Spanish, Italian, Portuguese
    rf"\b(?:nota|mensaje|instrucciones|messaggio|istruzioni|mensagem|instruções)\s+(?:para|per|a)\s+{_AGENT_ES}\b",
    r"\b(?:cuando|si) (?:respondas|contestes|escribas|responda|escriba)\b[^.!?\n]{0,80}?"
    r"\b(?:dile|diles|menciona|añade|incluye|informa)\b",
    r"\b(?:quando|se) (?:rispondi|scrivi|risponderai|scriverai|responder|escrever)\b[^.!?\n]{0,80}?"
    r"\b(?:di|dì|digli|dille|menziona|aggiungi|diga|mencione|adicione|informe)\b",
    # Dutch
    r"\b(?:notitie|bericht|instructies?)\s+(?:voor|aan)\s+(?:de |je |jouw )?(?:assistent|ai|agent|bot)\b",
    r"\b(?:als|wanneer) (?:je|u) (?:antwoordt|schrijft|mailt)\b[^.!?\n]{0,80}?\b(?:zeg|vertel|vermeld|voeg)\b",
]
_SPEAKS = re.compile("|".join(f"(?:{p})" for p in _ADDRESSING), re.IGNORECASE | re.MULTILINE)
MAX_QUOTE_CHARS = 160


class AddressedPassage(BaseModel, frozen=True):
    """A passage of outside content that speaks to the assistant, and where it was read."""

    origin: str
    passage: str

    def explain(self) -> str:
        return f"{self.origin} speaks to me, not to you: “{self.passage}”"


def passages_to_assistant(untrusted: Sequence[UntrustedItem], limit: int = 3) -> list[AddressedPassage]:
    """The passages of `untrusted` that address the assistant, each quoted with its exact origin; one
    per origin (the same email read twice, in a search and then alone, is one email that spoke)."""
    found: dict[str, AddressedPassage] = {}
    for item in untrusted:
        for passage in _in_item(item.origin, item.text[:MAX_ITEM_CHARS], tuple(item.parts)):
            found.setdefault(passage.origin, passage)
        if len(found) >= limit:
            break
    return list(found.values())[:limit]


@lru_cache(maxsize=1024)
def _in_item(origin: str, text: str, parts: tuple[ItemSpan, ...]) -> tuple[AddressedPassage, ...]:
    """Memoised: a goal's outside content is read once, not at every decision."""
    found = []
    for part in item_sources(UntrustedItem(origin=origin, text=text, at=0, parts=list(parts)), len(text)):
        match = _SPEAKS.search(part.text)
        if match is not None:
            found.append(AddressedPassage(origin=part.origin, passage=_quote(part.text, match)))
    return tuple(found)


def _quote(text: str, match: re.Match[str]) -> str:
    """The sentence the match starts in and the one after it: the order is usually in the second."""
    start = max(text.rfind(".", 0, match.start()), text.rfind("\n", 0, match.start()),
                text.rfind("!", 0, match.start()), text.rfind("?", 0, match.start())) + 1
    ends = [i for i in (text.find(c, match.end()) for c in ".!?\n") if i != -1]
    end = min(ends) + 1 if ends else len(text)
    following = [i for i in (text.find(c, end) for c in ".!?\n") if i != -1]
    if end - start < 60 and following:
        end = min(following) + 1
    passage = as_written(text[start:end])
    return passage if len(passage) <= MAX_QUOTE_CHARS else passage[:MAX_QUOTE_CHARS - 1] + "…"


__all__ = ["AddressedPassage", "MAX_QUOTE_CHARS", "passages_to_assistant"]
