"""Whether a message of ours accepts their offer: read from the exchange's structure, not from a phrase list.

People accept in endless ways: "Yes.", "See you Saturday with the title", "Thank you so much 🙏", "Buying
it now", "行，没问题", 🚗🔑💵. What they have in common is not their words but where they stand: a deal
is on the table (their last message names a price, or agrees to or presupposes one), and our reply leaves
it standing. So the question is turned around: with a deal on the table, a reply is an acceptance unless
it visibly does something else: says no (in any of the languages counterparts write in), puts it off
("I'll think it over"), names another figure (a counter), or only asks about the offer. The small word
lists below name those few *kinds* of move (refusing, deferring, asking), which are closed classes in
every language, not the open class of ways to say yes. When unsure, it is an acceptance: the user taps.
Pure: no IO.
"""

from __future__ import annotations

import re
from decimal import Decimal

from deputy.sentinel.negotiation.amounts import normalise, read_amounts

# Phrases that contain a negative word yet agree ("no problem", "can't wait"): taken out before looking for a no.
_AGREEING_NEGATIVES = re.compile(
    r"\b(?:no (?:problem|prob|worries|doubt)|not a problem|can'?t wait|why not|no (?:hay )?problema|sin problema|"
    r"pas de (?:probl[eè]me|souci)|kein problem|nessun problema|n[aã]o (?:tem )?problema|geen probleem)\b|"
    r"没问题|沒問題|問題ない|問題ありません|大丈夫", re.IGNORECASE)
_NO = re.compile(
    r"\b(?:no|nope|nah|not|never|none|nothing|n't|cannot|can'?t|won'?t|wouldn'?t|couldn'?t|don'?t|doesn'?t|"
    r"unfortunately|sorry|afraid|too (?:low|high|much|little|steep|expensive)|pass|decline|instead|rather|"
    r"however|unless|only if|nein|nicht|kein\w*|leider|zu (?:hoch|niedrig|wenig|viel|teuer)|non|pas|d[ée]sol[ée]|"
    r"trop|todav[ií]a|lo siento|demasiado|purtroppo|troppo|n[aã]o|infelizmente|demais|nee|niet|geen|helaas|"
    r"нет|не)\b|'t\b|いいえ|できません|難しい|無理|ちょっと|不|没法|太贵|太低|不行",
    re.IGNORECASE)
_LATER = re.compile(
    r"\b(?:think (?:it )?over|think about|thinking|get back|come back to you|let (?:me|you) (?:know|check|see|"
    r"think|consider|review|look|sleep)|sleep on|consider|review|mull|need (?:some )?time|(?:pass|share|forward|run|"
    r"take) (?:it|this|that|your \w+) (?:to|by|with|past)|check with|talk to|ask (?:my|the)|"
    r"pensarlo|lo pienso|te (?:digo|aviso)|r[ée]fl[ée]chi\w*|reviens vers|[üu]berleg\w*|melde mich|denke? dr[üu]ber|"
    r"ci penso|pensarci|ti faccio sapere|vou pensar|denk erover|laat (?:het )?(?:je )?weten)\b|考え|検討|考虑|想想",
    re.IGNORECASE)
_WANTS_DEAL = re.compile(
    r"\b(?:deal|agree[ds]?|settled?|confirm\w*|done|we good|good to go|ok(?:ay)?\??$|works?|fine|accept\w*|"
    r"pick(?:ing)? (?:it )?up|collect|come (?:by|over|and get)|bring|cash|pay|send (?:the|you|over)|buy|take it|"
    r"it is|sign|start|go ahead|processing|process it|unless)\b", re.IGNORECASE)
_QUESTION = re.compile(r"[?？]\s*$")
_SAYS_SOMETHING = re.compile(r"\w", re.UNICODE)


def _plain(text: str) -> str:
    return _AGREEING_NEGATIVES.sub(" ", re.sub(r"\s+", " ", normalise(text).replace("’", "'")))


def refuses(text: str) -> bool:
    """It says no to something, in any language a counterpart writes in."""
    return bool(_NO.search(_plain(text)))


def defers(text: str) -> bool:
    """It puts the decision off: to think, to check, to pass it on."""
    return bool(_LATER.search(_plain(text)))


_NOT_PRICE = re.compile(
    r"(?:\b(?:at|around|by|before|after|from|until|til)\s+\d{1,2}(?:[:.h]\d{2})?(?:\s*(?:am|pm|o'?clock|uhr|h))?\b)|"
    r"\b\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|o'?clock|uhr)\b|\b\d{1,2}:\d{2}\b|"
    r"\b(?:19|20)\d{2}\b(?!\s*(?:[$€£]|usd|eur|dollars?|euros?))|"
    r"\b\d[\d,.]*\s*(?:%|percent|miles?|mi\b|km|years?|months?|weeks?|days?|hours?|minutes?|cycles?|gb|tb|w\b|mbps)",
    re.IGNORECASE)
_NUMBER = re.compile(r"\d{1,3}(?:[,.\u00a0 ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?")


def _amounts(text: str, scale: Decimal | None) -> set[Decimal]:
    """The figures in `text` that could be a price in this negotiation: ours read as the mandate reads them;
    theirs, any number of the negotiation's size that is not a time, a year or a quantity."""
    reading = read_amounts(text, scale=scale)
    found = {a.value for a in reading.amounts if not a.relative}
    plain = _NOT_PRICE.sub(" ", normalise(text))
    for raw in _NUMBER.findall(plain):
        digits = re.sub(r"[,.\u00a0 ](?=\d{3}\b)", "", raw).replace(",", ".")
        try:
            value = Decimal(digits)
        except ArithmeticError:
            continue
        short = re.search(re.escape(raw) + r"\s*(?:k|grand)\b", plain, re.IGNORECASE)
        value = value * 1000 if short else value
        if scale is None or scale / 25 <= value <= scale * 25:
            found.add(value)
    return found


def deal_on_table(their_last: str | None, our_last: Decimal | None, scale: Decimal | None,
                  standing: bool = True) -> bool:
    """Their last message leaves a deal for us to take: it names a price that is theirs (not merely ours
    quoted back while they think), or it agrees to a deal or presupposes one (a pickup, a payment)."""
    if not their_last or not their_last.strip():
        return False
    if defers(their_last):
        return False
    priced = _amounts(their_last, scale)
    if not priced and refuses(their_last) and not _WANTS_DEAL.search(their_last):
        return False  # a no of theirs, with no figure of their own: nothing to take
    if priced:
        ours_only = our_last is not None and _amounts(their_last, scale) == {our_last}
        return not ours_only or bool(_WANTS_DEAL.search(their_last))
    # No figure: a deal is on the table only if there is one to take (an offer of theirs or ours standing).
    return standing and bool(_WANTS_DEAL.search(their_last))


def accepts_their_deal(text: str, their_last: str | None, our_last: Decimal | None = None,
                       scale: Decimal | None = None, standing: bool = True) -> bool:
    """With a deal on the table, our `text` takes it unless it says no, puts it off, names another figure or
    only asks a question about it. A bare gesture (an emoji, a thumbs-up) is taken as a yes, unless negative."""
    if not deal_on_table(their_last, our_last, scale, standing):
        return False
    if refuses(text) or defers(text) or re.search(r"[👎❌🚫🙅✋⛔]", text):
        return False
    ours = _amounts(text, scale)
    theirs = _amounts(their_last or "", scale)
    if ours and not ours <= theirs:
        return False  # another figure: a counter, read as one by the mandate's own checks
    if _QUESTION.search(text.strip()) and not ours:
        # Only a question: a clarification leaves the deal open; one that already arranges the deal takes it.
        return bool(re.search(r"\b(?:when|where|what time|which day|address|start|begin|pick|collect|deliver|"
                              r"send|ship|quando|cuándo|cuando|quand|wann|wanneer|いつ|什么时候|何時)\b",
                              _plain(text), re.IGNORECASE)) and len(text) < 160 or not _SAYS_SOMETHING.search(text)
    return True
