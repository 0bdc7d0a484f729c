"""Which espeak-ng voice says a reply: the one of the language the reply is written in.

A spoken reply in German read by the English voice is hard to follow ("Ihr Termin" said as English
letters). The model answers in the user's language, so the words decide, not the language the note
was heard in: a reply the model wrote in English is read in English whatever was spoken.

The guess counts short function words (articles, pronouns, prepositions, auxiliaries), which every
sentence has and which differ between the languages Deputy reads dates and times in; a text with
too few of them (a bare name, a number) keeps the default voice.
"""

from __future__ import annotations

import re

DEFAULT_VOICE = "en-us"

# Words frequent in one language and rare as whole words in the others (no shared ones such as "a", "de", "en").
_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en-us": frozenset("the and is are you your it this that for with on at to of have has will was be "
                       "i we they my not from by what when there here".split()),
    "de": frozenset("der die das und ist sind nicht ich sie wir ihr ihre ihren dein deine mit für auf "
                    "ein eine einen dem den im um zu von hat habe wird bei noch auch am".split()),
    "es": frozenset("el la los las y es son que no yo tu tus su sus con para por una un del al está "
                    "están hay mañana muy también lo le".split()),
    "fr-fr": frozenset("le la les et est sont je tu vous votre vos nous pas avec pour sur une un des du au "
                       "aux il elle ce cette demain ai avez".split()),
    "it": frozenset("il lo la gli le e è sono non io tu tuo tua suo sua con per su una un del della "
                    "alle al ho hai domani anche che".split()),
    "pt": frozenset("o a os as e é são não eu você seu sua com para por uma um do da dos das no na ao "
                    "está amanhã também que".split()),
    "nl": frozenset("de het een en is zijn niet ik jij je jouw u uw wij we met voor op van bij naar "
                    "morgen ook dat er heb heeft".split()),
}
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
MIN_EVIDENCE = 2  # function words needed before the default voice gives way


def voice_for(text: str) -> str:
    """The espeak-ng voice for `text`: its language's, or English when the words do not tell."""
    words = [w.lower() for w in _WORD.findall(text)]
    scores = {voice: sum(1 for w in words if w in vocabulary) for voice, vocabulary in _FUNCTION_WORDS.items()}
    best = max(scores, key=lambda voice: (scores[voice], voice == DEFAULT_VOICE))
    ties = [voice for voice, score in scores.items() if score == scores[best]]
    if scores[best] < MIN_EVIDENCE or len(ties) > 1:
        return DEFAULT_VOICE
    return best


__all__ = ["DEFAULT_VOICE", "voice_for"]
