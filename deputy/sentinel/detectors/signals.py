"""The evidence the heuristic detector looks for, each with a weight and a plain reason.

Patterns run on `normalize`d text: lowercase, accents and look-alike letters folded,
entities decoded, HTML tags removed, whitespace collapsed. Weights are combined with a
noisy-OR and a detection is flagged at 0.5, so a weight of 0.5 or more flags on its own
(an unambiguous attack phrase) and smaller ones need company (a password-reset email
mentions passwords; it does not also address an AI and ask for secrecy).

Each row is (name, weight, reason, anchors, pattern). Anchors are words of which at least
one occurs, whole, in any match: the detector only tries a pattern just before them. A
pattern that starts with a literal has instead literal markers ("<|") or "*" (always
scan; CPython finds a literal prefix fast). Every gap is bounded, so hostile input cannot
cause catastrophic backtracking. `HeuristicDetector(exhaustive=True)` ignores anchors; a
test checks that both modes agree on the whole corpus, which catches a missing anchor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deputy.sentinel.detectors.vocabulary import (
    AI,
    AI_WORDS,
    IMPERATIVE,
    OVERRIDE_WORDS,
    QUALIFIER,
    RULES,
    SECRET,
    SENSITIVE,
    VERB_OVERRIDE,
    gap,
)


@dataclass(frozen=True)
class Signal:
    """One kind of evidence: a compiled pattern, how much it counts, and why."""

    name: str
    weight: float
    reason: str
    anchors: frozenset[str]
    pattern: re.Pattern[str]
    before: int = 40  # how far a match may start before its anchor word
    near: re.Pattern[str] | None = None  # `pattern` preceded by a lazy gap of up to `before` chars

    @property
    def scans_everything(self) -> bool:
        """No anchor words: the pattern starts with a literal, so a full scan is cheap."""
        return not any(anchor.isalnum() for anchor in self.anchors)

    def worth_scanning(self, text: str) -> bool:
        """For a signal without anchor words: does any of its literal markers occur ("*": always)?"""
        return "*" in self.anchors or any(anchor in text for anchor in self.anchors)


def _signal(name: str, weight: float, reason: str, anchors: str, pattern: str) -> Signal:
    before = _BEFORE.get(name, 40)
    # A lazy prefix makes `near.match(text, at - before)` try only the start positions
    # up to the anchor, inside the regex engine, instead of every position of a window.
    near = re.compile(rf"(?s:.{{0,{before}}}?)({pattern})")
    return Signal(name, weight, reason, frozenset(anchors.split()), re.compile(pattern), before, near)


# Signals whose anchor word can sit far into the match.
_BEFORE = {"prompt_leak": 100, "stored_payment": 80, "pay_to_account": 150, "account_takeover": 60}

# Not multiline: "^" never matters here, and newlines survive normalisation on purpose.
SIGNALS: tuple[Signal, ...] = tuple(
    _signal(*row)
    for row in [
        # --- attempts to override the agent's instructions ---------------------------------
        ("override", 0.8, "asks to ignore previous instructions",
         OVERRIDE_WORDS,
         rf"\b(?:{VERB_OVERRIDE})\b{gap(4)}(?:{QUALIFIER})\W+(?:\w+\W+){{0,2}}?(?:{RULES})\b"),
        ("forget_everything", 0.6, "asks to forget everything it was told",
         "forget ignore disregard",
         r"\b(?:forget|ignore|disregard)\W+(?:everything|all|anything)\W+(?:above|before this|previously|prior|"
         r"you (?:were|have been|'ve been) told|that came before)"),
        ("override_de", 0.8, "asks to ignore previous instructions (German)",
         "ignoriere ignorier ignorieren vergiss vergessen missachte missachten ubergehe",
         rf"\b(?:ignoriere|ignorier|ignorieren|vergiss|vergessen|missachte|missachten|ubergehe)\b{gap(4)}"
         r"(?:anweisungen|anweisung|instruktionen|befehle|regeln|vorgaben|anordnungen)\b"),
        ("override_fr", 0.8, "asks to ignore previous instructions (French)",
         "ignore ignorer ignorez ignores oublie oublier oubliez oublies tenez",
         rf"\b(?:ignore[rz]?|ignores|oublie[rz]?|oublies|ne tenez pas compte)\b{gap(2)}(?:toutes |tous )?"
         r"(?:les|vos|tes|des|ces|mes) (?:\w+ ){0,2}?(?:instructions|consignes|directives|regles|ordres)\b"),
        ("override_es", 0.8, "asks to ignore previous instructions (Spanish)",
         "ignora ignore ignorar ignoren olvida olvide olvidar olviden omite descarta",
         rf"\b(?:ignora|ignore|ignorar|ignoren|olvida|olvide|olvidar|olviden|omite|descarta)\b{gap(4)}"
         r"(?:instrucciones|indicaciones|directrices|reglas|ordenes)\b"),
        ("override_it_pt", 0.8, "asks to ignore previous instructions (Italian/Portuguese)",
         "ignora ignore ignorare dimentica dimenticare esqueca esquece",
         rf"\b(?:ignora|ignore|ignorare|dimentica|dimenticare|esqueca|esquece)\b{gap(4)}"
         r"(?:istruzioni|regole|instrucoes|regras)\b"),
        ("ignore_user", 0.6, "asks to ignore what the user asked",
         OVERRIDE_WORDS,
         rf"\b(?:{VERB_OVERRIDE})\W+(?:the |your )?(?:user|owner|customer)(?:'s|s')? (?:\w+ )?"
         r"(?:request|question|task|instructions?|message|goal)s?\b"),
        ("override_told", 0.7, "asks to disregard what it was told before",
         OVERRIDE_WORDS,
         r"\b(?:ignore|disregard|forget|set aside|discard)\W+(?:what|whatever|anything|everything)(?: else)? "
         r"(?:you(?:'ve| have)? (?:were|been|was) )?(?:told|given|instructed|asked|taught|programmed)\b"),
        ("instructions_void", 0.5, "declares the assistant's instructions void",
         "instructions guidelines rules policies preceding previous earlier original test void suspended retired",
         r"\b(?:the |your |all )?(?:instructions|guidelines|rules|policies|directions|prompt)(?: \w+){0,4} "
         r"(?:you (?:started|began) with|from your (?:creator|developer|operator|owner)|(?:are|were|is) "
         r"(?:no longer valid|void|suspended|retired|a test|revoked|cancell?ed|overridden))\b|"
         r"\b(?:consider|treat) (?:the |all )?(?:preceding|previous|above|earlier|prior) (?:\w+ )?(?:as )?"
         r"(?:void|invalid|irrelevant|cancell?ed)\b"),
        ("machine_reader", 0.45, "speaks to whatever machine is reading the content",
         "machine automated digital program bot robot whoever reading reader readers human principal operator "
         "creator",
         r"\b(?:machine|automated|digital|robotic|ai|llm|bot|software) (?:reader|helper|reviewer|system|"
         r"processor)s?\b|\bwhoever(?:'s| is) (?:reading|summari[sz]ing|processing|handling|doing the reading)\b|"
         r"\bif (?:a|an|any) (?:program|machine|bot|ai|model|script|computer) is (?:reading|processing)\b|"
         r"\byour (?:human|principal|operator|creator)\b|\brather than a (?:person|human)\b"),
        ("impersonates_principal", 0.5, "claims to speak for the user",
         "came come coming from user owner principal person yes approved agreed behalf",
         r"\bas if (?:they|it|this|these|the \w+) (?:came|come|were coming) (?:directly )?from (?:your |the )"
         r"(?:user|owner|principal|account owner|boss)\b|\b(?:treat|consider) (?:this|these|it|them|the \w+(?: \w+)?)"
         r" as (?:(?:coming|sent) )?(?:directly )?from (?:the|your) (?:user|owner|principal|account owner)\b|"
         r"\b(?:the person you work for|your (?:user|owner|principal|boss)) (?:has )?already (?:said yes|agreed|"
         r"approved|authori[sz]ed|confirmed)\b"),
        ("new_instructions", 0.45, "announces new instructions",
         "instruction instructions directive directives orders task job goal purpose assignment mission anweisung "
         "anweisungen consignes instrucciones istruzioni",
         r"\b(?:new|updated|revised|real|actual|true|additional|hidden|secret) (?:system )?"
         r"(?:instructions?|directives?|orders)\b|\byour (?:new|real|actual|true) (?:task|job|goal|purpose|"
         r"assignment|mission) (?:is|now|:)|\bneue anweisung|"
         r"\bnouvelles? (?:instructions|consignes)|\bnuevas? instrucciones|\bnuove istruzioni"),
        ("you_are_now", 0.45, "tries to give the assistant a new identity",
         "now maintenant jetzt nun ahora",
         r"\byou are now (?:a |an |the |in |my |operating |acting |called |named |known as )?(?:\w+ )?"
         r"(?:mode|dan|unrestricted|unfiltered|jailbroken|uncensored|assistant|ai|bot|model|agent|admin|"
         r"administrator|operating|without|no longer|free)\b|\bfrom now on,? you (?:are|will|must|shall|take|only)\b|"
         r"\b(?:vous etes|tu es) maintenant\b|\bdu bist (?:jetzt|nun)\b|\bahora eres\b"),
        ("act_as", 0.35, "asks the assistant to play a role",
         "act behave respond pretend",
         r"\b(?:please |now |you (?:will |must |should |shall |can |are to )?)(?:act|behave|respond|pretend) "
         r"(?:as|like)\b(?: if you (?:were|are))?(?: an?| my| the)?(?: \w+){0,3}? "
         r"(?:ai|assistant|admin\w*|model|bot|dan|hacker|root|system|gpt|freebot)\b"),
        ("mode_switch", 0.3, "mentions a special mode (developer/admin/jailbreak)",
         "mode",
         r"\b(?:developer|god|admin|debug|maintenance|jailbreak|dan|unrestricted|sudo|root) mode\b"),
        ("jailbreak", 0.35, "mentions jailbreaking",
         "jailbreak jailbroken jailbreaking anything",
         r"\bjailbr(?:eak|oken|eaking)\b|\bdo anything now\b"),
        ("prompt_leak", 0.7, "asks to reveal the system prompt",
         "prompt message instructions",
         rf"\b(?:reveal|print|show|output|repeat|leak|disclose|display|dump|share|send|tell me|give me|include)\b"
         rf"{gap(3)}(?:your|the) (?:full |entire |original |initial |hidden |secret )?(?:system prompt|"
         r"system message|initial instructions|hidden instructions|original instructions)\b"),
        ("system_prompt_mention", 0.1, "mentions a system prompt",
         "prompt", r"\bsystem[ _]prompt"),
        ("no_restrictions", 0.3, "claims the assistant has no restrictions",
         "restrictions rules limits filters guardrails censorship restricciones einschrankungen",
         r"\b(?:no|without|free of|with no|sans|sin|ohne) (?:any )?(?:restrictions|rules|limits|filters|guardrails|"
         r"censorship|restricciones|einschrankungen)\b"),
        ("privilege_claim", 0.5, "claims elevated privileges or a system override",
         "override privilege privileges elevated granted filter filters guardrails checks",
         r"\b(?:system|safety|security) override\b|\bprivileges? (?:elevated|escalated|granted)\b|"
         r"\b(?:content |safety )?(?:filters?|guardrails|safety checks) (?:is |are )?(?:offline|disabled|off|"
         r"suspended)\b|"
         r"\belevated (?:permissions|privileges|access)\b|\badmin(?:istrator)? (?:access|privileges|rights) granted\b|"
         r"\boverride (?:safety|security) (?:checks|rules|settings)\b"),
        # --- fake conversation structure -----------------------------------------------------
        ("chat_token", 0.45, "contains chat-template control tokens",
         "<| inst] sys>>",
         r"[<\[](?:\|(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|start_header_id|"
         r"end_header_id|eot_id)\|>|/?inst\]|</?sys>>)"),
        ("fake_boundary", 0.55, "fakes the end of untrusted content or a system tag",
         "*",
         r"</?(?:untrusted[\w-]*|tool_(?:result|output|response)s?|function_results?|search_results|external[\w-]*|"
         r"user_data|context|instructions?|system|admin|end_of_\w+)>"),
        ("fake_boundary_text", 0.55, "fakes the end of untrusted content",
         "end",
         r"\bend of (?:untrusted|tool|email|document|user) (?:content|data|output|input|message)\b"),
        ("instruction_header", 0.45, "contains a fake instruction header",
         "instruction instructions system",
         r"(?:^|\n) *#{2,4} *(?:instruction|instructions|system|system prompt|new instructions) *:?"),
        ("role_line", 0.3, "contains a fake role marker (system:/assistant:)",
         "system assistant",
         r"(?:^|\n|[\"'>]) *(?:system|assistant|ai assistant)\s*:"),
        ("system_label", 0.35, "pretends to be a system message",
         "system admin automated",
         r"\[(?:system|admin|automated message for the (?:assistant|ai))[^\]\n]{0,40}\]|"
         r"\b(?:important )?system (?:notice|override|instruction)s?\b"),
        # --- instructions aimed at an AI agent ---------------------------------------------------
        ("addresses_ai", 0.45, "addresses an AI assistant directly",
         AI_WORDS,
         rf"\b(?:note to|note for|message for|instructions? for|ps for|p\.s\. for|dear|hey|hello|hi|attention|"
         rf"attn)\W+(?:the |any |all |every )?(?:{AI})s?\b(?! manager| director| editor| coach| card)|"
         rf"\bto (?:the |any |all |every )?(?:{AI})s? ?[:,]|"
         rf"\b(?:if you are|if you're|as|any|all) an? (?:{AI})s?\b(?! manager| director| editor| coach)|"
         rf"\b(?:{AI})s? (?:reading|processing|handling|summari[sz]ing|that reads?) (?:this|the)\b|"
         r"(?:^|\n|[\"'>]) *(?:ai agents?|ai assistants?|agents? helping \w+)[^\n]{0,20}[:,]|"
         r"\bki-?assistent|\bassistant (?:task|instructions?)\b|"
         rf"\byou(?:'re| are) (?:just |only |an? |the )+(?:{AI})\b(?! manager| director| editor| coach)"),
        ("ai_command", 0.5, "gives an AI assistant a direct order",
         AI_WORDS,
         rf"\b(?:{AI})s?\b(?! manager| director| editor| coach)[ \w'-]{{0,40}}?\W{{0,2}}[:,] *(?:please |also |now |"
         rf"kindly )*(?:{IMPERATIVE})\b"),
        ("ai_must", 0.4, "tells the assistant what it must do",
         AI_WORDS,
         rf"\b(?:the|an?|any|all|automated|this)\W+(?:{AI})s?\b(?! manager| director| editor| coach){gap(5)}"
         r"(?:must|should|shall|needs? to|has to|is (?:required|instructed|expected) to|are required to|will now|"
         r"doit|muss|debe)\b"),
        ("conceal", 0.55, "asks to keep the action from the user",
         "tell telling inform informing notify notifying alert mention mentioning show reveal disclose let keep "
         "knowing "
         "noticing knowledge informer ohne sin",
         r"\b(?:do not|don't|dont|never|without) (?:tell|telling|inform|informing|notify|notifying|alert|mention|"
         r"mentioning|show|reveal|disclose|let)\b(?:\W+\w+){0,3}?\W+(?:the user|the owner|your (?:user|owner|boss)|"
         r"the human|him|her|them|anyone|it|this (?:note|message|instruction|email))\b|\btell no one\b|"
         r"\bkeep (?:this|it) (?:between us|confidential|from (?:the user|them))\b|\bwithout the user(?:'s)? "
         r"(?:knowing|noticing|knowledge)\b|\bsans (?:en )?informer|\bohne (?:den nutzer|es) zu|"
         r"\bsin (?:avisar|decir)"),
        ("skip_approval", 0.4, "asks to act without the user's approval",
         "without approval permission confirmation consent need approved preapproved authorized authorised "
         "preguntar",
         r"\bwithout (?:asking|confirmation|confirming|approval|permission|(?:the )?user(?:'s)? (?:approval|consent|"
         r"permission))\b|\b(?:not|never|don't|do not) (?:seek|ask for|request|wait for|need) (?:the )?"
         r"(?:user(?:'s)? )?(?:approval|permission|confirmation|consent)\b|\b(?:no need|don't need|do not need) to "
         r"(?:ask|check|confirm|seek|verify)\b|\b(?:has|have) (?:already )?(?:pre-?approved|authori[sz]ed)\b|"
         r"\bsin preguntar\b"),
        ("stealth_word", 0.15, "asks for secrecy",
         "silently secretly quietly covertly discreetly", r"\b(?:silently|secretly|quietly|covertly|discreetly)\b"),
        # --- exfiltration --------------------------------------------------------------------
        ("reply_with_secret", 0.45, "asks to reply with secrets or personal data",
         "reply respond answer confirm write",
         rf"\b(?:reply|respond|answer|confirm|write back)\b(?:\W+\w+){{0,6}}?\W+with (?:\w+ ){{0,4}}?(?:{SECRET})\b"),
        ("stored_payment", 0.3, "asks to pay with the stored card",
         "saved stored default file",
         r"\b(?:charge|pay|bill|use)\b(?:\W+\w+){0,5}?\W+(?:the |your |their )?(?:saved|stored|default) "
         r"(?:card|credit card|payment method)|\b(?:card|payment method) on file\b"),
        ("markdown_image_exfil", 0.75, "embeds an image or link whose URL carries data placeholders",
         "*",
         r"!\[[^\]\n]{0,100}\]\(\s*(?:https?:)?//[^)\s]{0,300}?(?:\{[^}\s]{1,60}\}|\$\{|%7b|<[a-z_]{1,40}>|"
         r"\[[a-z_ ]{1,40}\])"),
        ("url_placeholder", 0.4, "links to a URL with a placeholder for your data",
         "*",
         r"https?://[^\s\"'<>]{0,300}?[?&][\w-]{1,30}=(?:\{[^}\s]{1,60}\}|\$\{|<[a-z_]{1,40}>)"),
        ("third_party_user_data", 0.4, "asks for the user's private data",
         "user owner customer client",
         rf"\b(?:the|this) (?:user|owner|account owner|customer|client)(?:'s|s') (?:\w+ ){{0,3}}?(?:{SENSITIVE})\b"),
        # --- account takeover and payment redirection --------------------------------------
        ("account_takeover", 0.4, "asks to change account security settings",
         "recovery backup secondary alternate factor 2fa mfa step authenticator forwarding filter rule grant "
         "password",
         r"\b(?:change|update|set|replace|reset|modify)\b(?:\W+\w+){0,3}?\W+(?:recovery|backup|secondary|alternate) "
         r"(?:email|e-mail|phone|number|address)\b|\b(?:disable|turn off|deactivate|remove|switch off|bypass)\b"
         r"(?:\W+\w+){0,2}?\W+(?:two[- ]factor|2fa|mfa|two[- ]step|multi[- ]factor|2-step|authenticator)\b|"
         r"\b(?:create|add|set up|setup|make)\b(?:\W+\w+){0,3}?\W+(?:forwarding rule|filter|inbox rule|rule)\b"
         r"(?:\W+\w+){0,2}?\W+(?:that )?(?:forwards?|redirects?)\b|\bgrant\b(?:\W+\w+){0,4}?\W+(?:edit |admin |full )"
         r"?(?:access|permissions?|rights)\b|\b(?:reset|change|set)\b(?:\W+\w+){0,4}?\W+password to\b"),
        ("bank_change_mention", 0.25, "mentions new bank details",
         "bank banking payment remittance wire",
         r"\b(?:new|updated|changed|different) (?:supplier )?(?:bank|banking|payment|remittance|wire) "
         r"(?:details|information|info|account|instructions)\b"),
        ("bank_change", 0.45, "announces new bank details",
         "details information account bankverbindung kontoverbindung bankdaten konto cuenta banco datos "
         "coordonnees compte rib",
         r"\b(?:our|my|the|these) (?:bank|banking|account|payment) (?:details|information) (?:have|has) "
         r"(?:changed|been (?:updated|changed))\b|\b(?:our|my) new (?:\w+ )?(?:bank )?(?:account|bank details)\b|"
         r"\bnew (?:supplier )?bank(?:ing)? details\s*:|"
         r"\b(?:bankverbindung|kontoverbindung|bankdaten) (?:hat|haben) sich (?:geandert|geaendert)|"
         r"\bneue[sn]? (?:konto|bankverbindung)\b|\bnueva cuenta\b|\bcambiado de banco\b|\bnuevos datos bancarios\b|"
         r"\bnouvelles? coordonnees bancaires\b|\bnouveau (?:compte|rib)\b"),
        ("pay_to_account", 0.3, "asks to send money to an account",
         "iban account konto cuenta compte",
         r"\b(?:pay|transfer|transfiere|transfiera|wire|remit|uberweisen|virement|process (?:a |the )?payment)\b"
         r"[^\n]{0,120}?\b(?:iban|account|konto|cuenta|compte)\b"),
        ("gift_cards", 0.45, "asks to buy gift cards",
         "gift giftcard giftcards",
         r"\b(?:buy|purchase|get|order)\b(?:\W+\w+){0,3}?\W+gift ?cards?\b"),
        ("discourage_verification", 0.35, "discourages verifying the request",
         "confirm verify",
         r"\b(?:do not|don't|no need to) (?:call|phone|contact \w+) (?:to |and )?(?:confirm|verify)\b"),
        ("urgency", 0.1, "creates urgency",
         "urgent urgently immediately asap away sensitive within dringend urgente suite",
         r"\b(?:urgent|urgently|immediately|asap|right away|time[- ]sensitive|within (?:the next )?\d+ "
         r"(?:hours?|minutes?)|dringend|urgente|tout de suite)\b"),
        ("authority", 0.1, "invokes authority (CEO, security team)",
         "ceo cfo chief managing security department compliance legal desk",
         r"\b(?:ceo|cfo|chief executive|managing director|security team|it department|compliance (?:team|department)|"
         r"legal department|from the desk of)\b"),
    ]
)
