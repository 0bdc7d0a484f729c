"""Recovery phrases and one-time codes.

A wallet's recovery phrase is 12-24 words of the BIP-39 English list (`data/bip39_english.txt`,
MIT, see `data/README.md`); ordinary English rarely strings twelve of them together, since
"the", "a", "I", "is" are not in it. With "seed phrase" or "recovery words" before them,
eight are enough (part of a phrase is still worth hiding).
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path

from deputy.core.secret_scan.hits import Hit

_WORDS = re.compile(r"[a-z]+")
_SEED_CONTEXT = re.compile(r"(?i)\b(?:seed|recovery|backup|secret|mnemonic|wallet|metamask|ledger|trezor)\b"
                           r"|\b(?:phrase|words)\b|semilla|palabras|wiederherstellung|phrase de récupération")


@cache
def bip39() -> frozenset[str]:
    return frozenset((Path(__file__).parent / "data" / "bip39_english.txt").read_text().split())


_NAMED_SEED = re.compile(r"(?i)\b(?:seed|recovery|backup|secret|mnemonic)\s+(?:phrase|words)\b\s*(?:is|:|=|-)?\s*"
                         r"(?P<value>(?:[a-z]{3,8}[\s,]+){11,23}[a-z]{3,8})\b")


@cache
def _bip39_index() -> dict[str, int]:
    return {word: index for index, word in enumerate(sorted(bip39()))}


def checksum_ok(words: list[str]) -> bool:
    """BIP-39: the last bits of the phrase are the first bits of the SHA-256 of the rest (one phrase in 16 to 256 passes)."""
    index = _bip39_index()
    bits = "".join(format(index[w], "011b") for w in words)
    size = len(bits) * 32 // 33
    entropy = int(bits[:size], 2).to_bytes(size // 8, "big")
    return format(hashlib.sha256(entropy).digest()[0], "08b")[: len(bits) - size] == bits[size:]


def seed_hits(text: str, lowered: str) -> list[Hit]:
    words = bip39()
    context = _SEED_CONTEXT.search(text) is not None
    need = 8 if context else 12
    run: list[re.Match[str]] = []
    found = []

    def close(run: list[re.Match[str]]) -> None:
        if len(run) < need:
            return
        phrase = [m.group(0) for m in run]
        if not context and len(phrase) in (12, 15, 18, 21, 24) and not checksum_ok(phrase):
            return  # twelve list words with no wallet in sight, and no checksum: a list of things, not a phrase
        found.append(Hit("seed_phrase", run[0].start(), run[-1].end()))

    for match in _WORDS.finditer(lowered):
        gap = lowered[run[-1].end(): match.start()] if run else ""
        if match.group(0) in words and (not run or re.fullmatch(r"[\s,;.\-]*(?:\d{1,2}[.):]?\s*)?", gap)):
            run.append(match)
            continue
        close(run)
        run = [match] if match.group(0) in words else []
    close(run)
    found.extend(Hit("seed_phrase", *m.span("value")) for m in _NAMED_SEED.finditer(text))
    return found


_OTP = re.compile(
    r"(?i)(?<![\w-])(?P<word>[\w-]*?(?:code|codes|kode|c[óo]digo|codice|otp|tan|passcode|combo|combination|kod|"
    r"token|pin)|2fa|mfa)\b(?P<gap>[^\d\n.?!]{0,40}?)(?<![\w-])"
    r"(?P<value>\d{3}[ -]?\d{1,5}|\d{4,8}|(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z0-9]{5,8})(?![\w-])"
)
_BEFORE_CODE = re.compile(
    r"(?i)(?<![\w-])(?:[A-Z]-)?(?P<value>\d{4,8})\s+(?:is|est|ist|es|è|é|is je|er)\s+(?:your|my|the|votre|ihr|dein|tu|su|"
    r"je|il tuo)\s+(?:[\w-]+\s+){0,3}?(?:code|codes|otp|pin|passcode|token|c[óo]digo|codice|kode|code de vérification)\b"
)
_SENT_ME = re.compile(r"(?i)\b(?:texted|sent|sms(?:ed)?|messaged|emailed|gave)\s+(?:me|us)\s+(?:the\s+)?(?:code\s+)?"
                      r"(?P<value>\d{4,8})\b")
_CODE_WORD_LOOK_ALIKE = re.compile(
    r"(?i)^(?:zip|postal|post|area|promo|promotional|discount|coupon|voucher|referral|country|dial(?:ing)?|error|status|"
    r"exit|return|http|response|qr|dress|source|tracking|booking|confirmation|reservation|order|product|item|style|"
    r"colou?r|course|class|airport|iata|hs|tax|billing|sort|swift|bic|routing|bank|branch|region|gift|fare|rate|"
    r"reference|invoice|event|ticket|promotion|bar|postleitzahl|gutschein|rabatt|aktions|"
    r"promocional|descuento|postal|barcode|zipcode|postcode|promocode|discountcode|errorcode|qrcode|sourcecode|"
    r"area-?code|fehlercode|artikel|article|articolo|sconto|codice fiscale|cap|departure|flight|seat|room|"
    r"train|platform|bus|track|unit|apartment|suite|table|lot|parking|bay|dock|pin|boekings?|buchungs?|reserva|"
    r"reservierungs?|prenotazione|réservation|vouchers?|kortings?|rabatt|gutschein|postale?|cupom|cupón)$"
)
_CODE_BEFORE_LOOK_ALIKE = re.compile(
    r"(?i)\b(?:zip|postal|post|area|promo|discount|coupon|voucher|referral|country|error|status|qr|dress|source|"
    r"tracking|booking|confirmation|reservation|order|product|item|gift|reference|invoice|ticket|promotion|"
    r"flight|departure|seat|article|articolo|artikel|sconto|rabatt|descuento|postal|fiscale|tax|sort|swift|"
    r"routing|airport|class|course)\s*$"
)


# Words between "code" and its digits that still say a one-time code: "code de connexion à usage unique: ...",
# "codice di verifica ...", "code bekommen ...", "código SMS ...".
_CODE_QUALIFIERS = frozenset("""
sms text e-mail email mail login sign-in signin security verification confirmation one-time one time single use
unique usage verify access auth authentication 2fa mfa otp app authenticator google microsoft bank of the my your
from via by is was just got received sent new
de du la le à a d' connexion vérification confirmation sécurité usage unique reçu par
der die den dem das aus von per vom zur bestätigung bestätigungs sicherheits anmelde einmal bekommen erhalten
gerade grad hab habe ist lautet neue neuer
del el la de para verificación confirmación seguridad acceso un solo uso recibido que llegó es
di del della per verifica conferma sicurezza accesso monouso ricevuto arrivato è il
do da de para verificação confirmação segurança acesso uso único recebido que chegou é o
van de het voor verificatie bevestiging beveiliging inlog eenmalige ontvangen gekregen is
""".split())
_LOOK_ALIKE_AFTER = frozenset("""postal postale postaux promocional promo promotionnel descuento sconto rabatt
réservation reserva prenotazione reservierung boeking booking buchung suivi seguimiento tracking""".split())


_GOOGLE = re.compile(r"(?<![\w-])G-(?P<value>\d{6})(?![\w-])")  # Google's sign-in texts: "G-123456 is your code"
_BACKUP = re.compile(
    r"(?i)\b(?:backup|recovery|back-?up|reserve|secours|respaldo|recuperaci[óo]n|recupero|recupera[çc][ãa]o|herstel|"
    r"wiederherstellungs|notfall)[ -]?(?:codes?|c[óo]digos|codici|kodes?)\b(?P<list>[^\n]{0,40}(?:\n[ \t]*[\w -]{4,20}){0,16})")
_LIST_ITEM = re.compile(r"(?<![\w-])(?=[\w-]*\d)[A-Za-z0-9]{4,10}(?:[ -][A-Za-z0-9]{4,10})?(?![\w-])")
# A code to type in soon: "enter it before it expires", "valid for 5 minutes", "läuft ab", "scade tra".
_TYPE_IT_SOON = re.compile(
    r"(?i)\b(?:expires?|expiring|expira|expire|scade|läuft|verloopt|valid for|gültig für|válido por|valable|"
    r"enter (?:it|that|this)|type (?:it|that|this)|tippe|gib (?:den|ihn)|introduce|inserisci|digite|voer)\b")
_SIX_DIGITS = re.compile(r"(?<![\w.,:/$€£-])(?P<value>\d{3}[ -]?\d{3})(?![\w.,:/%€£-])")


_BACKUP_HINTS = ("backup", "back-up", "back up", "recovery", "reserve", "secours", "respaldo", "recupera", "recupero",
                 "herstel", "wiederherstellung", "notfall")


def _list_codes(text: str, lowered: str) -> list[Hit]:
    found = []
    if any(hint in lowered for hint in _BACKUP_HINTS):
        for match in _BACKUP.finditer(text):
            block = match.group("list")
            found.extend(Hit("one_time_code", match.start("list") + m.start(), match.start("list") + m.end())
                         for m in _LIST_ITEM.finditer(block))
    six = list(_SIX_DIGITS.finditer(text))
    if six and _TYPE_IT_SOON.search(text):
        found.extend(Hit("one_time_code", *m.span("value")) for m in six)
    if "G-" in text:
        found.extend(Hit("one_time_code", *m.span("value")) for m in _GOOGLE.finditer(text))
    return found


_CODE_HINTS = ("cod", "cód", "otp", "tan", "token", "pin", "2fa", "mfa", "combo", "combination", "kode", "kod")


def code_hits(text: str) -> list[Hit]:
    if not re.search(r"\d", text):
        return []
    lowered = text.lower()
    found = []
    for match in _OTP.finditer(text) if any(hint in lowered for hint in _CODE_HINTS) else ():
        word = match.group("word").lower()
        if word == "pin" or _CODE_WORD_LOOK_ALIKE.match(word):
            continue  # "promo code 1234", "zip code 94110"; a PIN is the card codes' business
        stem = re.sub(r"(?:codes?|kode|c[óo]digo|codice|kod)$", "", word).strip("-")
        if stem and _CODE_WORD_LOOK_ALIKE.match(stem):
            continue  # "zipcode", "postcode", "Fehlercode"
        if _CODE_BEFORE_LOOK_ALIKE.search(text[max(0, match.start() - 24): match.start()]):
            continue
        gap = match.group("gap")
        first = gap.split()[:1]
        if first and (_CODE_WORD_LOOK_ALIKE.match(first[0]) or first[0].lower() in _LOOK_ALIKE_AFTER):
            continue  # "código postal es 08001", "code de réservation"
        said = re.search(r"(?i)\b(?:is|was|ist|est|es|lautet|è|é|for|to|are|sont|sind|é)\b|[:=]", gap)
        qualified = all(w.lower().strip(",'’") in _CODE_QUALIFIERS for w in re.findall(r"[^\W\d_][\w'’-]*", gap))
        if len(gap.strip()) > 2 and not (qualified or (said and len(gap) <= 30)):
            continue  # "code of conduct section 4" etc.; "codice di verifica 687344", "code bekommen 953090" say one
        found.append(Hit("one_time_code", *match.span("value")))
    found.extend(Hit("one_time_code", *m.span("value")) for m in _BEFORE_CODE.finditer(text))
    found.extend(Hit("one_time_code", *m.span("value")) for m in _SENT_ME.finditer(text))
    return found + _list_codes(text, lowered)
