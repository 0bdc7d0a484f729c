"""What the user's words ask for, where a small model's choice of tool goes wrong: pure word tests.

Each answers one question about the user's own words, in English and the six other languages the
time resolver reads (`deputy.agent.time.foreign_time_words`), so the offer of tools can leave out the
one a small model would wrongly pick:
- `asks_for_draft`: "drop a line to ann@…" saved as a draft leaves the user thinking it went;
- `names_people`: "dentist tuesday 4:30" is the user's own event, an invitation to nobody;
- `asks_to_answer`: "answer the plumber's email" read the email, then the model wrote a new email to
  the address the email was sent *to* (the user's own) instead of replying to its sender.
"""

from __future__ import annotations

import re

DRAFT = re.compile(r"\bdrafts?\b|\b(?:don'?t|do not|not yet|without) send|\bentwurf\b|\bnicht (?:ab)?senden\b|"
                   r"\bborrador\b|\bno (?:lo )?envíes\b|\bbrouillon\b|\bn'envoie pas\b|\bbozza\b|\brascunho\b|"
                   r"\bconcept\b", re.IGNORECASE)

_WITH_PEOPLE = re.compile(
    r"@|\binvit|\bwith\b|\bmit\b|\bcon\b|\bavec\b|\bmet\b|\bcom\b|\beinlad|\bconvid|\bmeeting\b|\bmeet\b|"
    r"\btreffen\b|\breuni[oó]n\b|\br[ée]union\b|\briunione\b|\bvergadering\b|\breuni[ãa]o\b", re.IGNORECASE)

_VERB_ANSWER = (
    r"(?:repl(?:y|ies)|answer|respond|write back|get back to|"
    r"antworte|antworten|beantworte|beantworten|"         # German
    r"responde|respóndele|respondele|contesta|contéstale|contestale|responda|responder|"  # Spanish, Portuguese
    r"réponds|répondre|répondez|reponds|repondre|"         # French
    r"rispondi|rispondere|"                                # Italian
    r"antwoord|beantwoord)\b")                             # Dutch
_ANSWER = re.compile(
    # Asked, not mentioned: the verb opens the request or one of its clauses ("tell Ann I'll answer tomorrow" is
    # news for Ann, not an email to answer).
    r"(?:^|[,;:.!?]\s*|\b(?:and|then|und|dann|y|luego|et|puis|e|poi|depois|en|dan)\s+)"
    r"(?:(?:please|pls|can you|could you|would you|kindly|bitte|por favor|s'il te plaît|per favore|alsjeblieft)[,\s]+)*"
    + _VERB_ANSWER, re.IGNORECASE)
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def asks_for_draft(text: str) -> bool:
    """The user asked for a draft (or not to send yet): otherwise writing to someone means sending it."""
    return bool(DRAFT.search(text))


def names_people(text: str) -> bool:
    """The user's words bring someone in (an address, "with Bo", "invite", a meeting): otherwise a new event is the
    user's own, and a meeting invitation would make the model invent whom to send it to."""
    return bool(_WITH_PEOPLE.search(text))


def asks_to_answer(text: str) -> bool:
    """The user asked to answer an email they have, and named no new address: the answer is a reply to its
    sender, never a new email (whose recipient the model would have to pick from what it read)."""
    return bool(_ANSWER.search(text)) and not _ADDRESS.search(text)
