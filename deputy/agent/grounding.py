"""Answers rest on what was read: the facts in an answer are checked against the goal's evidence.

A small model asked "how much was my order?" may answer with an order number that exists
nowhere, or "did Sam reply?" with a reply nobody wrote. The prompt cannot prevent that, so
code checks the answer: every specific it states (amounts and other numbers, times,
addresses, identifiers, names, quoted passages) must appear in the evidence, which is what
the user typed, what the goal read (tool results, files, the outside content in its ledger),
the memories the model was shown and Deputy's own lines. Comparisons are normalised
(Unicode forms, case, number formats, times written as "15:00", "3 pm" or inside an ISO
instant in another zone), so a backed answer is not refused for its wording.

Which specifics count depends on what the goal did. A goal that read nothing answers from
general knowledge, so only the things no general answer needs are checked (an e-mail
address, an identifier, nothing quoted as if read); a goal that read the user's data must
back every number, time and name it states. All functions are pure.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from decimal import Decimal, InvalidOperation
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field

__all__ = ["OWN_DATA", "Claim", "Evidence", "unbacked_claims"]

OWN_DATA = "own data"
"""A claim's kind: a statement about what the user's own mail, calendar or orders hold, in a goal that read none."""

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_QUOTED = re.compile(r"[“\"«„]([^”\"»“]{3,300})[”\"»“]")
_TIME_24 = re.compile(r"(?<![\d.:])([01]?\d|2[0-3])[:.h]([0-5]\d)(?![\d])")
_TIME_12 = re.compile(r"(?<![\d:])(1[0-2]|0?[1-9])(?::([0-5]\d))?\s*([ap])\.?\s*m\b", re.IGNORECASE)
_ISO_INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})")
_NUMBER = re.compile(r"(?<![\w.,])(?:[$€£¥]\s?)?\d(?:[\d,.' ]*\d)?(?:\s?(?:[$€£¥]|usd|eur|gbp|chf|cad|aud|kr))?",
                     re.IGNORECASE)
# Domains reserved for examples (RFC 2606): an address there is an illustration, not a fact.
_ILLUSTRATIVE = re.compile(r"@(?:[\w-]+\.)*(?:example(?:\.(?:com|org|net))?|test|invalid|localhost)$", re.IGNORECASE)
_CURRENCY = re.compile(r"[$€£¥]|usd|eur|gbp|chf|cad|aud|kr", re.IGNORECASE)
_IDENTIFIER = re.compile(r"(?<![\w@.-])#?(?=[\w-]*\d)(?=[\w-]*[A-Za-z#])[A-Za-z0-9][\w-]{2,}|#\d{3,}")
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
# What is (or is not) in the user's own mail, calendar or orders, said to them: "you have no new emails", "Sam
# replied", "your calendar is free tomorrow", "no tienes citas". True only of what was read, so an answer of a goal
# that read nothing cannot say it. The nouns and the ways of saying "you have", "there are no new", "your
# calendar" are listed for the languages Deputy speaks; a noun must follow them directly, so general knowledge
# passes ("there is no way to unsend an email", "there were events that led to the war").
_DATA_NOUNS = (r"(?:e-?mails?|mails?|messages?|replies|events?|meetings?|appointments?|orders?(?! of)|"
               r"nachrichten|termine?|bestellungen?|correos?|mensajes?|citas?|eventos?|reuniones|pedidos?|courriels?|"
               r"rendez-vous|événements?|réunions?|commandes?|messaggi|appuntament[io]|eventi|riunion[ie]|ordini|"
               r"mensagens|compromissos?|reuniões|berichten|afspraken|afspraak|evenementen|vergaderingen|bestellingen)\b")
_SOME = (r"(?:(?:no|not any|any|a|an|one|two|three|several|some|\d+|new|unread|upcoming|more|keine[nm]?|kein|eine[nm]?|"
         r"neuen?|ungelesenen?|weitere|ningún|ninguna|ningunos?|nuevos?|nuevas?|un|una|pas de|aucune?|de|nouveaux|"
         r"nouvelles?|nessun[ao]?|nuov[ie]|nenhum|nenhuma|nov[oa]s?|um|uma|geen|een|nieuwe)\s+)*")
_NEW = r"(?:(?:no|any|keine|ningún|ninguna|pas de|aucun|aucune|nessun[ao]?|nenhum|nenhuma|geen)\s+)?(?:new|unread|upcoming|neuen?|ungelesenen?|nuevos?|nuevas?|nouveaux|nouvelles?|nuov[ie]|nov[oa]s|nieuwe)\s+"
_OWN_DATA = re.compile(
    r"\b(?:you (?:have|'ve got|got|don't have|do not have|haven't got|received)|du hast|sie haben|(?:no )?tienes|"
    r"tu (?:as|n'as)|vous (?:avez|n'avez)|(?:non )?hai|(?:não )?tens|você tem|je hebt|u hebt|u heeft)\s+"
    + _SOME + _DATA_NOUNS
    + r"|\b(?:there (?:are|is|were|was|'s)|es gibt|(?:no )?hay|il (?:y a|n'y a)|(?:non )?ci sono|c'è|(?:não )?há|"
    r"er (?:zijn|is))\s+" + _NEW + _DATA_NOUNS
    + r"|^\W*(?:no|keine|ningún|ninguna|aucun|aucune|nessun[ao]?|nenhum|nenhuma|geen)\s+(?:" + _NEW + r")?" + _DATA_NOUNS
    + r"|\byour (?:inbox|calendar|schedule|mailbox|agenda) (?:is|are|has|shows|looks|contains|was)\b"
    r"|\b(?:on|in) your (?:calendar|inbox|mailbox|schedule|agenda)\b"
    r"|\b(?:dein(?:em|e)?|ihr(?:em)?) (?:kalender|posteingang|postfach)\b|\btu (?:calendario|bandeja|agenda)\b"
    r"|\b(?:ton|votre) (?:calendrier|agenda)\b|\b(?:il tuo|nel tuo) (?:calendario|agenda)\b"
    r"|\b(?:o teu|no teu|a tua|na tua) (?:calendário|agenda|caixa)\b|\b(?:je|jouw) (?:agenda|inbox|kalender)\b"
    r"|\b(?:has|have|hasn't|haven't|did not|didn't|just)?\s*(?:replied|responded|written back|wrote back)\b"
    r"|\b(?:hat|haben) (?:nicht |noch nicht )?(?:geantwortet|zurückgeschrieben)\b|\b(?:ha|han) (?:respondido|contestado)\b"
    r"|\ba répondu\b|\bha risposto\b|\b(?:respondeu|heeft geantwoord)\b",
    re.IGNORECASE | re.MULTILINE)
_SENTENCE_END = re.compile(r"[.!?:;\n]\s*$")

# Capitalised words that are not names: sentence openers and the calendar's own words, in the
# languages Deputy's users write in.
_NOT_NAMES = frozenset("""
i i'm i've i'll i'd ok okay hi hello hey dear yes no the a an your you my we it this that these there here
deputy please thanks thank sorry note done sure also and but or so if when then however unfortunately
monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday
january february march april may june july august september october november december
montag dienstag mittwoch donnerstag freitag samstag sonntag januar februar märz mai juni juli oktober dezember
lunes martes miércoles jueves viernes sábado domingo enero febrero marzo abril mayo junio julio agosto
septiembre octubre noviembre diciembre
lundi mardi mercredi jeudi vendredi samedi dimanche janvier février mars avril juin juillet août septembre
octobre novembre décembre
mon tue tues wed thu thur thurs fri sat sun jan feb mar apr jun jul aug sep sept oct nov dec
mo di mi do fr sa so lun mar mié jue vie sáb dom mer jeu ven sam
am pm utc cet cest est edt pst pdt gmt bst usd eur gbp chf cad aud jpy
""".split())


_GERMAN = frozenset("der die das und ist nicht ein eine mit für auf den dem im um sie ich zu von uhr bitte".split())


class Claim(BaseModel):
    """A specific the answer states as a fact: what kind it is and how it was written."""

    kind: str = Field(description="email, quote, identifier, amount, number, time, name or own data")
    text: str


class Evidence(BaseModel):
    """Everything an answer may rest on, by who provided it."""

    user_words: list[str] = Field(default_factory=list, description="What the user typed for this goal.")
    reads: list[str] = Field(default_factory=list, description="Tool results, files and outside content read.")
    known: list[str] = Field(default_factory=list,
                             description="Memories shown to the model and Deputy's own lines (dates, confirmations).")
    looked_up: bool = Field(default=False, description="The goal used a tool that reads the user's data or the web.")
    zone: str = "UTC"

    @property
    def read_anything(self) -> bool:
        return self.looked_up or any(text.strip() for text in self.reads)


def unbacked_claims(answer: str, evidence: Evidence) -> list[Claim]:
    """The specifics in `answer` that nothing in `evidence` supports (empty when it is backed)."""
    sources = [*evidence.user_words, *evidence.reads, *evidence.known]
    index = _Index(sources, evidence.zone)
    text = _normal(answer)
    claims: list[Claim] = []
    for email in _EMAIL.findall(text):
        if email.lower().rstrip(".") in index.emails:
            continue
        if not evidence.read_anything and _ILLUSTRATIVE.search(email):
            continue  # an example in a general answer ("email alice@example.org that …") names nobody
        claims.append(Claim(kind="email", text=email))
    without_emails = _EMAIL.sub(" ", text)
    for identifier in _IDENTIFIER.findall(without_emails):
        if _alnum(identifier) not in index.alnum:
            claims.append(Claim(kind="identifier", text=identifier))
    if not evidence.read_anything:
        return [*claims, *_own_data_claims(text, evidence)]
    for quoted in _QUOTED.findall(without_emails):
        if len(quoted.split()) >= 3 and _squash(quoted) not in index.squashed:
            claims.append(Claim(kind="quote", text=quoted))
    claims.extend(_time_claims(without_emails, index))
    claims.extend(_number_claims(_TIME_12.sub(" ", _TIME_24.sub(" ", without_emails)), index))
    claims.extend(_name_claims(without_emails, index))
    return _distinct(claims)


def _own_data_claims(text: str, evidence: Evidence) -> list[Claim]:
    """Statements about the user's own mail, calendar or orders in a goal that read none of them; one the
    memories shown to the model back (a remembered appointment) is not one."""
    remembered = _normal(" ".join(evidence.known))
    claims = []
    for said in _OWN_DATA.finditer(text):
        words = _WORD.findall(said.group(0))
        if words and _stem(words[-1]) in remembered:
            continue
        claims.append(Claim(kind=OWN_DATA, text=said.group(0).strip()))
    return claims[:4]


def _stem(word: str) -> str:
    return word[:5] if len(word) > 5 else word


# -- what the evidence holds ------------------------------------------------------------------


class _Index:
    """The evidence, normalised once for each kind of comparison."""

    def __init__(self, sources: list[str], zone: str) -> None:
        texts = [_normal(source) for source in sources]
        joined = "\n".join(texts)
        self.emails = {email.lower().rstrip(".") for email in _EMAIL.findall(joined)}
        self.alnum = _alnum(joined)
        self.squashed = _squash(joined)
        self.words = {word.lower().strip("'’-") for word in _WORD.findall(joined)}
        self.times = _times_in(joined, zone)
        self.numbers = {value for token in _NUMBER.findall(joined) for value in _values(token)}


def _times_in(text: str, zone: str) -> set[str]:
    times = {f"{int(h):02d}:{m}" for h, m in _TIME_24.findall(text)}
    times |= {_twelve(h, m, half) for h, m, half in _TIME_12.findall(text)}
    try:
        local = ZoneInfo(zone)
    except Exception:  # noqa: BLE001 - an unknown zone only loses the conversion
        local = ZoneInfo("UTC")
    for instant in _ISO_INSTANT.findall(text):
        try:
            moment = datetime.fromisoformat(instant.replace(" ", "T").replace("Z", "+00:00"))
        except ValueError:
            continue
        times.add(moment.astimezone(local).strftime("%H:%M"))
    return times


# -- the answer's specifics -------------------------------------------------------------------


def _time_claims(text: str, index: _Index) -> list[Claim]:
    claims = [Claim(kind="time", text=f"{h}:{m}") for h, m in _TIME_24.findall(text)
              if f"{int(h):02d}:{m}" not in index.times]
    for match in _TIME_12.finditer(text):
        if _twelve(*match.groups()) not in index.times:
            claims.append(Claim(kind="time", text=match.group(0)))
    return claims


def _number_claims(text: str, index: _Index) -> list[Claim]:
    claims = []
    for token in _NUMBER.findall(text):
        values = _values(token)
        if not values or values & index.numbers:
            continue
        money = bool(_CURRENCY.search(token))
        plain = token.strip()
        # Small whole numbers are counts and days the model may work out ("3 meetings", "the 12th");
        # an amount of money, a decimal or a larger number must have been read.
        if not money and "." not in plain and "," not in plain and all(v < 32 for v in values):
            continue
        claims.append(Claim(kind="amount" if money else "number", text=plain))
    return claims


def _name_claims(text: str, index: _Index) -> list[Claim]:
    words = list(re.finditer(r"\S+", text))
    # German capitalises every noun, so case says nothing about names there.
    if len({m.group(0).lower().strip(".,;:!?") for m in words} & _GERMAN) >= 2:
        return []
    claims = []
    for position, match in enumerate(words):
        token = match.group(0)
        word = _WORD.match(token)
        if word is None or word.start() != 0 or not token[:1].isupper():
            continue
        name = word.group(0).strip("'’-")
        lowered = name.lower()
        if lowered in _NOT_NAMES or len(name) < 2 or lowered in index.words or (name.isupper() and len(name) <= 4):
            continue
        if _possessive_base(lowered) in index.words:
            continue
        if position == 0 or _starts_sentence(text, match.start()):
            # Any word may open a sentence; a name there is caught by its other part ("John Doe").
            continue
        claims.append(Claim(kind="name", text=name))
    return claims


# -- normalising --------------------------------------------------------------------------------


def _normal(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    return text.replace("\u00a0", " ").replace("’", "'")


def _alnum(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _squash(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _twelve(hour: str, minute: str | None, half: str) -> str:
    value = int(hour) % 12 + (12 if half.lower() == "p" else 0)
    return f"{value:02d}:{minute or '00'}"


def _values(token: str) -> set[Decimal]:
    """Every value `token` can mean: "1,250.00", "1.250,00" and "1250" are the same amount."""
    digits = re.sub(r"[^\d,.' ]", "", token).strip().replace("'", "").replace(" ", "")
    if not digits:
        return set()
    readings = {digits.replace(",", ""), digits.replace(".", "").replace(",", ".")}
    if digits.count(",") == 1 and digits.count(".") == 0:
        readings.add(digits.replace(",", "."))
    values = set()
    for reading in readings:
        try:
            values.add(Decimal(reading).normalize())
        except InvalidOperation:
            continue
    return values


def _starts_sentence(text: str, start: int) -> bool:
    return start == 0 or bool(_SENTENCE_END.search(text[max(0, start - 3):start]))


def _possessive_base(word: str) -> str:
    return word.removesuffix("'s").removesuffix("s'")


def _distinct(claims: list[Claim]) -> list[Claim]:
    seen: set[tuple[str, str]] = set()
    out = []
    for claim in claims:
        key = (claim.kind, claim.text.lower())
        if key not in seen:
            seen.add(key)
            out.append(claim)
    return out
