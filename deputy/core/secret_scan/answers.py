"""Answers to security questions: a password made of ordinary words, known only by its context.

"the security question answer is Kiki", "security q: mother's maiden name -> Quaresma",
"Antwort auf die Sicherheitsfrage (Geburtsort der Mutter): Lecce", "réponse à la question
secrète : Kowalczyk". After the words naming the question (in seven languages), the question
itself may follow in brackets or quotes; the answer is what comes after the last "is" / ":" /
"->" of that clause, up to the next comma or full stop, at most five words.
"""

from __future__ import annotations

import re

from deputy.core.secret_scan.hits import Hit

QUESTION = re.compile(
    r"(?i)\b(?:security (?:question|answer|q)|secret (?:question|answer)|(?:answer|reply) to (?:the |my |your )?"
    r"(?:security )?question|answer to|mother'?s maiden name|maiden name|first pet|name of (?:my|your) first|"
    r"sicherheits(?:frage|antwort)|geheimfrage|antwort auf die (?:sicherheits)?frage|"
    r"pregunta (?:de seguridad|secreta)|respuesta (?:a la pregunta|de seguridad|secreta)|"
    r"question (?:secr[èe]te|de s[ée]curit[ée])|r[ée]ponse (?:[àa] la question|secr[èe]te)|"
    r"domanda (?:di sicurezza|segreta)|risposta (?:alla domanda|segreta|di sicurezza)|"
    r"pergunta (?:de seguran[çc]a|secreta)|resposta (?:da|[àa]) pergunta|resposta (?:secreta|de seguran[çc]a)|"
    r"beveiligingsvraag|geheime vraag|antwoord op de (?:beveiligings)?vraag)\b"
)
_SEPARATOR = re.compile(r"(?i)->|→|=>|:|=|\b(?:is|it'?s|it’s|was|ist|lautet|es|est|c'est|è|é|era)\b")
_ASIDE = re.compile(r"\([^)\n]*\)|'[^'\n]*'|\"[^\"\n]*\"|“[^”\n]*”|«[^»\n]*»")
_BREAK = re.compile(r"[,.;!?\n(]|\s[-–—]\s")
_NOT_AN_ANSWER = frozenset("""the a an my your same one that this it not wrong correct case-sensitive below above in on
what which who where when how der die das mein dein el la mi tu le mon ton il lo mio o a meu de het mijn""".split())


_HINTS = ("question", "answer", "frage", "antwort", "pregunta", "respuesta", "réponse", "reponse", "domanda",
          "risposta", "pergunta", "resposta", "vraag", "antwoord", "maiden", "first pet", "name of")


def answer_hits(text: str) -> list[Hit]:
    lowered = text.lower()
    if not any(hint in lowered for hint in _HINTS):
        return []
    found = []
    for label in QUESTION.finditer(text):
        start = label.end()
        window = text[start: start + 120]
        hidden = _ASIDE.sub(lambda m: " " * len(m.group(0)), window)  # "(first pet)", "'name of your first school'"
        separators = list(_SEPARATOR.finditer(hidden))
        if not separators:
            continue
        first = separators[0]
        clause_end = _BREAK.search(window, first.end())  # an aside after the answer ends it: "Mr Whiskers (capital M)"
        limit = clause_end.start() if clause_end else len(hidden)
        last = [s for s in separators if s.start() < limit][-1]
        answer = window[last.end(): limit]
        words = answer.split()
        if not words or len(words) > 5 or words[0].lower() in _NOT_AN_ANSWER:
            continue
        begin = start + last.end() + (len(answer) - len(answer.lstrip()))
        found.append(Hit("password", begin, begin + len(answer.strip())))
    return found
