"""What only the user can answer: the counterpart's questions, and facts our messages would state.

A question is any sentence of theirs that asks for a fact or a term: one ending in “?”, one
opening like a question (“has it…”, “what…”), or a request (“tell me…”, “let me know…”,
“I need to know…”), with or without a question mark. It is about the deal itself (the price,
an offer, whether it is still available, whether we are an AI), which the mandate answers,
when nothing but the words of bargaining remains once amounts are set aside. Otherwise it is
answered only if the mandate's facts or the user's own words (the goal, what they told
Deputy to remember) speak to it; if not, it goes to the user.

The same test holds our side: a sentence of an outgoing message that states something
(“the timing belt was done last year”) with words neither the bargaining vocabulary, the
mandate's facts and subject, nor the user's own words account for is a fact nobody gave
the agent, so the message waits for the user. Pure: no IO.
"""

from __future__ import annotations

import re

from deputy.sentinel.negotiation.mandate import Mandate

# Function words: they carry no fact by themselves.
_STOP = frozenset("""
a an the is are was were be been being am has have had having do does did doing it its it's this that these those
there here what whats what's when where which who whom whose why how any anything some something your you yours
you're you've you'll you'd yourself my me mine i i'm i've i'll i'd we we're we've we'll us our ours they they're
their them he she his her him with for from about and or but if of to in on at by as so than then too very just
also can could would will shall should may might must not no yes ever still please tell know let get got go going
like really quite well ok okay sure hi hello hey dear thanks thank regards best cheers all one more much many
into out up down over again once only own same such both each few other further while because until before after
above below off under between through during against don't doesn't didn't can't won't isn't aren't wasn't weren't
haven't hasn't hadn't wouldn't couldn't shouldn't that's there's here's let's who's how's where's
""".split())

# The words of bargaining: what a negotiation itself answers, with nobody's facts needed.
_BARGAINING = frozenset("""
price prices priced pricing offer offers offered offering counter counteroffer counter-offer bid bids lowest highest
low high best deal deals discount discounts cheaper cheap less lower lowering reduce reduced reduction negotiable
firm final last word available availability sale sold selling sell buy buying bought take taking accept accepting
accepted agree agreed budget afford affordable much cost costs pay paying paid rate rates bill bills plan plans keep
keeping stay staying month monthly year yearly per amount number total money cash dollars dollar euros euro pounds
bucks come closer close closing meet middle split difference work works working worked good great fine fair
reasonable generous interest interested interesting consider considering think thought decide deciding decision
hour hours minute minutes today now soon quick quickly time respond response reply replying answer back check
checking need want wanted would happy glad sorry afraid apologies understand understood appreciate appreciated
right far away gap move moving step flexible room wiggle budge stretch go gone absolute maximum minimum max min
another other buyer buyers seller offer's customer customers loyal loyalty retention team desk system allows allow
assistant ai automated agent bot robot human person real speak talk someone acting behalf owner represent represents
message messages note reach contact writing write wrote question questions ask asking asked check confirm
still interested option options alternative alternatives match beat competitor competitors elsewhere
i'd we'd mind hear heard see seen look looking forward day days week weeks soon shortly later wait waiting
counter-offers counteroffers nothing something thing things way ways bit little lot lots enough getting get giving
give make making made try trying tried hope hoping sounds sound glad done doing going come coming keen open
start starting opening listed listing asking ask interest thanks thank understand appreciate patience
cancel cancelling canceling cancellation service subscription switch switching leave leaving terminate provider
told allowed sign signing papers deposit transfer pick pickup collect shake word promise honestly frankly
""".split())

_WORD = re.compile(r"[a-z][a-z'-]*[a-z]|[a-z]")
_OPENERS = re.compile(
    r"^(?:what|when|where|which|who|whose|why|how|is|are|was|were|does|do|did|has|have|had|can|could|would|will|"
    r"should|shall|may|any|anything|got)\b", re.IGNORECASE)
_REQUESTS = re.compile(
    r"\b(?:tell me|let me know|(?:need|want|like|have|wish) to (?:know|see|check|hear)|i wonder|wondering|"
    r"curious (?:about|whether|if)|can you (?:confirm|tell|send|share)|please (?:confirm|send|share|provide|describe|"
    r"explain|list)|need (?:the|your) (?:details|info|information)|send (?:me )?(?:the|some|a) (?:photos?|pictures?|"
    r"details|documents?|records?|papers?))\b", re.IGNORECASE)
_NUMBERS = re.compile(r"[$€£]?\d[\d,.\s]*(?:k\b|%)?")


def sentences(text: str) -> list[str]:
    """The sentences of `text`; an API's JSON around the messages (keys, quotes, brackets) is no part of one."""
    plain = re.sub(r'"[\w.-]+"\s*:', "\n", text.replace("’", "'"))
    plain = re.sub(r'[\[\]{}"]', "\n", plain)
    return [s.strip(" ,") for s in re.findall(r"[^.!?\n]+[.!?]*", plain) if s.strip(" .!?,")]


def is_question(sentence: str) -> bool:
    """A sentence that asks for a fact or a term, however it is phrased."""
    plain = sentence.strip()
    return plain.endswith("?") or bool(_OPENERS.match(plain) and len(plain.split()) > 2) or bool(
        _REQUESTS.search(plain))


def content_words(sentence: str, mandate: Mandate) -> set[str]:
    """The words that carry a fact: not function words, not bargaining, not amounts, not the deal's subject."""
    lowered = _NUMBERS.sub(" ", sentence.lower().replace("’", "'"))
    named = _words(f"{mandate.subject} {mandate.principal} {mandate.currency} {mandate.per or ''}")
    found = set()
    for word in _WORD.findall(lowered):
        word = word.removesuffix("'s").strip("'-")
        if len(word) > 2 and not ({word, _stem(word)} & (_STOP | _BARGAINING | named)):
            found.add(word)
    return found


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def answered_by(question: str, known: list[str]) -> bool:
    """The user's own words (the mandate's facts, what they told Deputy to remember) speak to the question:
    enough of its words appear in one of them."""
    words = {w for w in _WORD.findall(question.lower()) if len(w) > 2} - _STOP
    if not words:
        return False
    return any(len(words & _words(text)) >= max(1, (len(words) + 1) // 2) for text in known)


def _covered(words: set[str], known: list[str]) -> bool:
    """Every content word appears in something the user said (stems: “replaced” matches “replace”)."""
    vocabulary = set().union(*(_words(text) for text in known)) if known else set()
    stems = {_stem(w) for w in vocabulary}
    return all(w in vocabulary or _stem(w) in stems for w in words)


def _stem(word: str) -> str:
    return re.sub(r"(?:'s|ing|ed|es|s)$", "", word)


def known_texts(mandate: Mandate, user_words: list[str] | None = None) -> list[str]:
    """What the agent may state: the mandate's facts, its subject, and the user's own words."""
    return [f"{topic} {answer}" for topic, answer in mandate.facts.items()] + [mandate.subject, *(user_words or [])]


def open_questions(text: str, mandate: Mandate, user_words: list[str] | None = None) -> list[str]:
    """Questions in the counterpart's `text` that neither the deal itself, the mandate's facts nor the user's own
    words answer."""
    known = known_texts(mandate, user_words)
    unanswered = []
    for sentence in sentences(text):
        if not is_question(sentence):
            continue
        words = content_words(sentence, mandate)
        if not words:
            continue  # about the deal: the price, an offer, availability, who we are
        if answered_by(sentence, known) or _covered(words, known):
            continue
        unanswered.append(sentence[:200])
    return unanswered


def unsupported_claims(text: str, mandate: Mandate, user_words: list[str] | None = None) -> list[str]:
    """Sentences of our outgoing `text` that state something nobody gave the agent (see the module's note)."""
    known = known_texts(mandate, user_words)
    claims = []
    for sentence in sentences(text):
        if is_question(sentence):
            continue
        words = content_words(sentence, mandate)
        if words and not _covered(words, known):
            claims.append(sentence[:200])
    return claims
