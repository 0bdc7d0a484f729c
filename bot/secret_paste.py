"""Spotting secrets pasted into the chat, so the bot can delete them at once.

A password, card number or API key typed into a chat stays in the chat's history (and,
with real Telegram, on Telegram's servers), and a goal made of it would reach the model
provider and Redis. Deputy never needs one there: `/connect` takes credentials on a
private page straight into the vault.

People type secrets casually, so this looks for the ways they actually do: a card number
in any grouping (passing Luhn, with a card's first digit) even when its expiry and security
code follow on the same line; a password after "password", "pw", "pwd", "pass", "pword"...
and a verb or a colon ("the wifi password's hunter2", "pw: hunter2"), or before "is my
password"; a login written as "name / password" or "user:pass"; a card's security code or
a PIN; a recovery phrase; and the keys of common providers. It stays quiet on what merely
resembles them: order, phone, tracking and ISBN numbers, dates, prices, and talk about
passwords without one ("I forgot my password", "the password is wrong"). One-time codes are
not treated as secrets here: a code a page asked for is taken by the hand-off
(`bot.handoff_reply`), and one given in passing is useless minutes later.
"""

from __future__ import annotations

import re
from itertools import islice

from core.card_numbers import luhn_valid

# -- card numbers ------------------------------------------------------------------------
_DIGIT_RUN = re.compile(r"(?<![\d.,/])\d+(?:[ \-.]\d+)*")
_CARD_LENGTHS = range(13, 20)

# -- passwords ---------------------------------------------------------------------------
_WORD = r"(?:pass(?:word|wort|wd|phrase|code)?|pword|pwd?|p/w|mot de passe|contrase[ñn]a|kennwort|pin)"
_KEYWORD = re.compile(rf"(?i)(?<![A-Za-z]){_WORD}")
_VALUE = r"(?P<value>[\"'“‘]?[^\s\"'”’]{3,128})"
# After the word: maybe "for the office printer", then a verb or a separator (or several: "is:").
_EXPLICIT = re.compile(
    r"(?i)(?:\s+(?:for|to|of|on)\s+(?:[\w.@-]+\s+){0,3}?[\w.@-]+)?"
    r"(?:\s*(?:'s|’s|\bis(?:\s+now)?\b|\bwas\b|\bwill be\b|\bshould be\b|\bist\b|\best\b|\bes\b|:|=|-|–|→|->))+"
    rf"\s*{_VALUE}"
)
_SPACED = re.compile(rf"\s+{_VALUE}")
# Values start at a word's start and are bounded, so a long run of text is never rescanned from every offset.
_BEFORE = re.compile(r"(?i)(?<![^\s\"'“‘])(?P<value>[^\s\"'“”]{4,128})[\"'”’]?\s+(?:is|was|as)\s+(?:my|the|our|your)\s+"
                     r"(?:\w+\s+)?(?:password|passcode|pin|pw|pwd)\b")
_USE_AS = re.compile(r"(?i)\buse\s+[\"'“‘]?(?P<value>[^\s\"'”’]{4,128})[\"'”’]?\s+as\s+(?:the|my|a)\s+(?:\w+\s+)?"
                     r"(?:password|passcode|pin)\b")
_NOT_PASSWORD_PREFIX = re.compile(
    r"(?i)(?:boarding|bus|train|rail|day|season|ski|mountain|hall|press|free|back|by|festival|guest|gate|"
    r"park|museum|transit|travel|weekly|monthly|annual|all-access|backstage)[\s-]*$"
)
# What follows "password is ..." when nobody is saying the password.
_STATE_WORDS = frozenset("""
is was be been being the a an my your his her their our its this that these those it them there here
on in at of for to from with by into onto under over about as not no none n/a na nil null empty blank
wrong incorrect correct right invalid valid weak strong short long expired expiring old new same different
saved stored reset changed updated required needed missing lost forgotten locked blocked secure insecure
compromised leaked case-sensitive sensitive too very really still also just only now already ok okay fine
good bad hard easy simple complex somewhere something someone anything nothing written attached below above
protected manager managers policy rules requirements reset. field box prompt hint change changes update
please pls thanks thank what which where when why how who whose and or but so if then because reset? wrong.
used using shared same. set unset needed. required. ignored accepted rejected working broken again asked
asking sent sending enough mandatory optional saved. below: above: here: correct. invalid. expired. mine
yours different. case protection protect strength length recovery request requests link links email
emails screen page form number digits characters letters symbols through fail yes button flow issue issues
problem problems error errors see process details info system portal method options test tests hint hints
""".split())

# -- logins ------------------------------------------------------------------------------
_LOGIN = re.compile(
    r"(?i)\b(?P<trigger>(?:log\s?in|logon|sign[\s-]?in|credentials|creds|u/p|user/pass)\b"
    r"(?:\s+for\s+(?:[\w.@-]+\s+){0,3}?[\w.@-]+(?=\s*[:=]))?\s*(?:is|:|=|-|details:?|info:?|with|as|using)?"
    r"|(?:user(?:name)?|user id|e-?mail)\b\s*(?:is\b|:|=)?)"
    r"\s*[\"']?(?P<name>[\w.+@-]{2,128})[\"']?\s*(?:/|\||:|,|\s)\s*"
    r"(?:(?:pw|pwd|pass(?:word)?|p)\b\s*[:=]?\s*)?[\"']?(?P<value>[^\s\"']{4,128})"
)
_EMAIL_PASS = re.compile(
    r"(?<![\w.+/=-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,6}(?:\s*/\s*|:|\s*\|\s*)"
    r"(?P<value>[^\s/@]{4,128})(?![^\s/]*@)"
)
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b")
_URL_USERINFO = re.compile(r"(?i)\b[a-z][a-z0-9+.-]{0,15}://[^/\s:@]{1,128}:(?P<value>[^/\s@]{3,128})@")

# -- card security codes, PINs and recovery phrases -------------------------------------
_CVC = re.compile(r"(?i)\b(?:cvv2?|cvc2?|csc|cid|security code|sec code|card code)\b\s*(?:is|:|=|-)?\s*\d{3,4}\b")
_SEED = re.compile(r"(?i)\b(?:seed|recovery|backup|secret|mnemonic)\s+(?:phrase|words)\b\s*(?:is|:|=|-)?\s*"
                   r"(?:[a-z]{3,8}[\s,]+){11,23}[a-z]{3,8}\b")

# -- keys of common providers ------------------------------------------------------------
_API_KEY = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"sk-(?:proj-|ant-(?:api\d\d-)?|svcacct-)?[A-Za-z0-9_-]{20,}"  # OpenAI, Anthropic
    r"|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"  # Stripe secret and restricted keys
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}"  # GitHub
    r"|glpat-[A-Za-z0-9_-]{20,}"  # GitLab
    r"|xox[abprse]-[A-Za-z0-9-]{10,}"  # Slack tokens
    r"|hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]{16,}"  # Slack webhooks
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"  # AWS access key ids
    r"|AIza[0-9A-Za-z_-]{35}"  # Google API keys
    r"|ya29\.[0-9A-Za-z_-]{20,}"  # Google OAuth access tokens
    r"|\d{8,10}:AA[A-Za-z0-9_-]{33}"  # Telegram bot tokens
    r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"  # SendGrid
    r"|SK[0-9a-f]{32}"  # Twilio API keys
    r"|key-[0-9a-f]{32}"  # Mailgun
    r"|npm_[A-Za-z0-9]{36}"  # npm
    r"|pypi-AgE[A-Za-z0-9_-]{20,}"  # PyPI
    r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face
    r"|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"  # Shopify
    r"|dop_v1_[a-f0-9]{64}"  # DigitalOcean
    r"|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}"  # Square
    r"|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"  # JSON web tokens
    r")"
)
_NAMED_KEY = re.compile(
    r"(?i)\b(?:api[\s_-]?key|api[\s_-]?secret|secret[\s_-]?key|access[\s_-]?key|auth[\s_-]?token|access[\s_-]?token"
    r"|bearer|token|client[\s_-]?secret|aws_secret_access_key|private[\s_-]?key)\b\s*(?:is|:|=)?\s*[\"']?"
    r"(?P<value>(?=[A-Za-z0-9_\-+/=.]*\d)(?=[A-Za-z0-9_\-+/=.]*[A-Za-z])[A-Za-z0-9_\-+/=.]{20,})"
)
_PEM = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")


def _card_in(text: str) -> bool:
    """A 13-19 digit card number, in any grouping, even with more digits (expiry, code) after it."""
    for run in _DIGIT_RUN.finditer(_IBAN.sub(" ", text)):  # an IBAN is shared to be paid: not a card
        groups = re.split(r"[ \-.]", run.group(0))
        # A card starts a run of digit groups; its expiry or code may follow in the same run.
        digits = ""
        for group in groups:
            digits += group
            if len(digits) > 19:
                break
            if len(digits) in _CARD_LENGTHS and digits[0] in "23456" and luhn_valid(digits):
                return True
    return False


def _is_value(value: str) -> bool:
    value = value.strip("\"'“”‘’.,;:!?)(")
    if len(value) < 3 or value.lower() in _STATE_WORDS or not value.strip("*•·x."):
        return False  # talk about a password, or one shown masked
    return not value.lower().startswith(("http://", "https://"))


def _password_in(text: str) -> bool:
    for keyword in islice(_KEYWORD.finditer(text), 64):  # a chat message says a password once or twice
        word, before = keyword.group(0).lower(), text[max(0, keyword.start() - 40): keyword.start()]
        if text[keyword.end(): keyword.end() + 1].isalpha() or _NOT_PASSWORD_PREFIX.search(before):
            continue  # "passenger", "boarding pass: gate 12"
        explicit = _EXPLICIT.match(text, keyword.end())
        match = explicit or _SPACED.match(text, keyword.end())
        if match is None:
            continue
        value = match.group("value")
        if word == "pin":
            # "pin the meeting", "PIN is on the back": only digits are a PIN ("PIN 4821", "pin: 4821").
            if re.fullmatch(r"[\"'“‘]?\d{4,8}[\"'”’.,;!]?", value):
                return True
            continue
        if word == "pass" and not explicit:
            continue  # "I'll pass on that": only "pass: x", "pass is x" say one
        if value[0] in "\"'“‘" and len(value.strip("\"'“”‘’")) >= 3:
            return True  # a quoted value is the password, whatever word it is
        # "password hunter2" or "with password admin" say one; "the pwd command" does not.
        said = explicit or re.search(r"(?i)\b(?:with|using)\s+(?:the\s+|a\s+)?$", before)
        if not said and not re.search(r"[\d\W_]", value.strip(".,;:!?")):
            continue
        if _is_value(value):
            return True
    if not re.search(r"(?i)pass|pin|pw", text):
        return False
    return any(_is_value(m.group("value")) for m in (*_BEFORE.finditer(text), *_USE_AS.finditer(text)))


def _login_in(text: str) -> bool:
    for match in _LOGIN.finditer(text):
        name, value = match.group("name"), match.group("value")
        tail = text[match.start("name") + len(name): match.start("value")]
        if "@" in value or not _is_value(value) or name.lower() in _STATE_WORDS:
            continue
        # "name / password", "name:password", or a password word between them; a plain space
        # between two words ("login page works") says nothing. "user x / y" needs "user:" or a
        # password word ("user research / interviews" is no login).
        says_password = re.search(r"(?i)\b(?:pw|pwd|pass|password|p)\b", tail)
        loose = re.match(r"(?i)(?:user|e-?mail)", match.group("trigger")) and not re.search(
            r"(?:is|:|=)\s*$", match.group("trigger"))
        if says_password or (not loose and re.search(r"[/|:,]", tail)):
            return True
    # "bob@example.com:hunter2"; not "https://user@host:8443/" (an address with a port).
    return any(_is_value(m.group("value")) and not text[: m.start()].endswith("//")
               for m in _EMAIL_PASS.finditer(text)) or bool(_URL_USERINFO.search(text))


def pasted_secret(text: str) -> str | None:
    """What kind of secret `text` seems to contain ("a card number", "a password", ...), or None."""
    if _card_in(text):
        return "a card number"
    if _CVC.search(text):
        return "a card's security code"
    if _API_KEY.search(text) or _PEM.search(text) or _NAMED_KEY.search(text):
        return "an access key"
    if _SEED.search(text):
        return "a recovery phrase"
    if _password_in(text) or _login_in(text):
        return "a password"
    return None


def deleted_notice(kind: str) -> str:
    return (
        f"I deleted your message because it looked like it contained {kind}, so it isn't kept in this chat or "
        "shown to the AI model. Please don't send passwords, card details or keys here. To give me access to an "
        "account safely, use /connect: you type the details on a private page and they go straight into the "
        "encrypted vault, where I never see them."
    )
