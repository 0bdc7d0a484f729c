"""Word lists shared by the injection patterns (see `signals`), kept apart for readability.

Every list is a regex alternation over *normalised* text: lowercase, accents stripped.
"""

from __future__ import annotations


def gap(words: int) -> str:
    """Up to `words` intervening words (lazy), then a separator."""
    return rf"(?:\W+\w+){{0,{words}}}?\W+"


VERB_OVERRIDE = (
    r"ignore|ignoring|disregard|disregarding|forget|override|overriding|bypass|skip|discard|abandon|drop|neglect|"
    r"set aside"
)
OVERRIDE_WORDS = (
    "ignore ignoring disregard disregarding forget override overriding bypass skip discard abandon drop neglect aside"
)
QUALIFIER = (
    r"previous|prior|above|earlier|preceding|former|original|initial|existing|all|any|every|your|these|those|other|"
    r"system|safety|conflicting|usual|standing"
)
RULES = (
    r"instructions?|directions?|directives?|rules?|guidelines?|guidance|prompts?|commands?|orders|constraints|"
    r"guardrails|programming|restrictions|policies|criteria|rubric|context"
)
AI = (
    r"ai|a\.i\.|llm|gpt|chatbot|language model|ai model|ai assistant|ai agent|ai system|ai tool|assistant|agent|bot|"
    r"model|deputy|automated (?:helper|system|assistant|agent|reviewer|tool)|screening tool|reviewer"
)
AI_WORDS = (
    "ai ais llm llms gpt chatbot chatbots model models assistant assistants agent agents bot bots deputy automated "
    "screening reviewer reviewers ki assistent assistenten"
)
IMPERATIVE = (
    r"send|forward|email|reply|delete|cancel|transfer|pay|buy|purchase|book|upload|post|share|export|open|visit|"
    r"click|run|execute|call|create|add|change|reset|disable|grant|accept|approve|confirm|tell|ignore|forget|"
    r"disregard|rate|move|include|print|reveal|subscribe|complete|charge|rsvp|remove|wire|download|install|"
    r"collect|list|give|provide|insert|append|copy|mark|archive|invite|remember|store|save"
)
SECRET = (
    r"passwords?|passcodes?|pass codes?|one-time (?:passcodes?|codes?|passwords?)|codes?|otps?|credentials?|"
    r"api[ _-]?keys?|tokens?|secrets?|(?:\w+ )?numbers?|home address|address|date of birth|ssn|card details"
)
SENSITIVE = (
    r"passwords?|passcodes?|pass codes?|credentials?|login details|api[ _-]?keys?|access keys?|secrets?|"
    r"secret_access_key|tokens?|private keys?|ssh keys?|id_rsa|recovery codes?|verification codes?|"
    r"one-time (?:passcodes?|codes?|passwords?)|otps?|2fa codes?|session cookies?|cookies|credit card(?: number)?|"
    r"card (?:number|details)|cvv|bank statements?|statements|ssn|social security(?: number)?|passport(?: number)?|"
    r"date of birth|home address|phone number|contacts|contact list|address book|email address(?:es)?|"
    r"conversation(?: history| so far)?|chat history|chat log|history|all (?:the )?(?:emails|messages|mail)|"
    r"emails|inbox|attachments|files|documents?|folder|tax return|calendar|availability|location|"
    r"user data|personal data|private data|saved passwords|secrets?|"
    r"[a-z0-9_]*(?:secret_access_key|api_key|_token|_secret|_password)\b"
)
