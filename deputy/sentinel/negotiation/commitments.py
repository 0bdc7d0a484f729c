"""Commitments in an outgoing message: an acceptance, a signature, a payment, a threat to cancel.

A commitment binds the user. The final acceptance always needs the user's tap; a threat to
cancel a service is allowed only when the mandate says so; a signature or a payment is never
sent from a negotiation. Negated forms ("no deal", "I can't accept that") commit to nothing.
"""

from __future__ import annotations

import re
from enum import Enum


class Commitment(str, Enum):
    accept = "accept"
    cancel = "cancel"
    sign = "sign"
    pay = "pay"


_NEGATION = r"(?<!\bno )(?<!\bnot )(?<!n't )(?<!\bnot a )(?<!\bcannot )(?<!\bcan not )(?<!\bnever )(?<!\bno real )"
_PATTERNS: dict[Commitment, re.Pattern[str]] = {
    Commitment.accept: re.compile(
        _NEGATION + r"\b(?:(?:it'?s |that'?s |you(?:'ve| have) (?:got )?(?:a |yourself a )?|we have a |a )deal\b|"
        r"deal\s*(?:[.!,;:—–-]|$)|(?:^|(?<=[.!?] ))deal\b|deal at\b|done deal|"
        r"i accept|we accept|i(?:'ll| will) accept|accepted|agreed\b|i agree|we agree|"
        r"sold\b|it'?s yours|i(?:'ll| will) take it|we(?:'ll| will) take it|let'?s do it|shake on it|"
        r"you have my word|i(?:'ll| will) hold it for you|consider it (?:done|sold)|sounds good,? (?:let'?s|deal)|"
        r"i(?:'ll| will) go with (?:that|your offer)|that works for (?:me|us)|i(?:'ll| will) sign up|"
        r"i(?:'ll| will) keep (?:the|my) (?:service|plan|contract) (?:at|for)|"
        # Acceptances without the word: "15,200 it is", "come pick it up", "you can have it".
        r"(?<=[\dk$€£] )it is\b|it'?s a go\b|you can have it|come (?:and )?(?:pick|get|collect) it|"
        r"pick it up (?:tomorrow|today|tonight|on|at|whenever)|we(?:'re| are) (?:agreed|settled)|"
        r"we have an agreement|settled at|(?:okay|ok|fine|alright),? (?:then,? )?(?:[$€£]?\d[\d,.]*k?|that) it is)",
        re.IGNORECASE | re.MULTILINE),
    Commitment.cancel: re.compile(
        _NEGATION + r"\b(?:i(?:'ll| will| am going to|'m going to)|we(?:'ll| will)|otherwise i|or i)\s+"
        r"(?:have to |need to |just )?(?:cancel|terminate|close|end|leave|switch|port)\b|"
        r"\b(?:please )?(?:cancel|terminate) (?:my|the|our) (?:service|plan|contract|subscription|account|line)|"
        r"\bconsider this (?:my|our) (?:notice|cancellation)",
        re.IGNORECASE),
    Commitment.sign: re.compile(_NEGATION + r"\b(?:i(?:'ll| will)? sign|signed|e-?sign|my signature|signing)\b",
                                re.IGNORECASE),
    Commitment.pay: re.compile(
        _NEGATION + r"\b(?:i(?:'ll| will)? (?:pay|send|transfer|wire)\b(?! you (?:an? )?(?:message|email|photos?|pictures?))|"
        r"payment (?:is |has been )?(?:sent|made|on its way)|deposit|card number|bank details|venmo|paypal|zelle|"
        r"wire transfer|off[- ](?:the )?(?:platform|app|site)|outside (?:the )?(?:app|platform|site|marketplace)|"
        r"(?:payment|pay|your|their|the) link|pay (?:there|through|via|on)\b)",
        re.IGNORECASE),
}


def commitments_in(text: str) -> list[Commitment]:
    """The commitments `text` makes, each once, in a fixed order."""
    flat = re.sub(r"\s+", " ", text.replace("’", "'"))
    return [kind for kind, pattern in _PATTERNS.items() if pattern.search(flat)]
