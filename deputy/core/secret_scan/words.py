"""Recovery phrases and one-time codes.

One-time codes are read after the words that name them in seven languages ("code", "TAN", "OTP",
"Bestätigungscode", "código de verificação"...), with the words that may stand between ("code de
connexion à usage unique", "authenticator says"); a word that only ever names one (TAN, 3-D Secure,
verification code) may have a whole clause before its value ("mTAN für Überweisung ... 250,00 EUR:
883893"). Backup-code lists, Google's "G-" codes, and a lock's or safe's combination ("Tresor-Kombination:
18-37-12") are read here too.

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
    r"(?i)(?<![\w-])(?P<word>[\w-]{0,32}?(?:code|codes|kode|c[óo]digo|codice|otp|tan|passcode|combo|combination|kod|"
    r"kombination|combinaison|combinaci[óo]n|combinazione|combina[çc][ãa]o|combinatie|token|pin)|2fa|mfa|"
    r"authenticator|authy)\b(?P<gap>[^\d\n.?!]{0,40}?)(?<![\w-])"
    r"(?P<value>\d{2}[ -]\d{2}[ -]\d{2}(?:[ -]\d{2})?|\d(?: \d){3,7}|\d{3}[ -]?\d{1,5}|\d{4,8}|"
    r"(?=[A-Z]*\d)(?=\d*[A-Z])[A-Z0-9]{5,8})"
    r"(?![\w-])"
)
# A code word that only ever names a one-time code, then anything on its line, then the value after a colon:
# "mTAN für Überweisung an M. Keller über 250,00 EUR: 883893", "code de confirmation 3D Secure ... : 415135".
_STRONG_CODE = re.compile(  # (the lookahead lets the matcher skip, at one test, every word that starts otherwise)
    r"(?i)(?<![\w-])(?=[mspcaeiotv23lb])(?:(?:m|sms|push|chip|photo|app|e|i)-?tan|otp|2fa|mfa|3-?d secure|"
    r"(?:verification|security|login|sign-?in|access|one-time|authentication|2fa) code|"
    r"code (?:de |d')(?:confirmation|v[ée]rification|connexion|s[ée]curit[ée]|acc[èe]s)|"
    r"c[óo]digo de (?:verificaci[óo]n|confirmaci[óo]n|acceso|seguridad|verifica[çc][ãa]o|confirma[çc][ãa]o|acesso|"
    r"seguran[çc]a)|codice (?:di )?(?:verifica|conferma|accesso|sicurezza)|"
    r"(?:sms-?|e-?mail-?)?(?:best[äa]tigungs|sicherheits|verifizierungs|anmelde|einmal|verificatie|bevestigings|"
    r"beveiligings)-?code)"
    r"\b(?P<gap>[^\n]{0,80}?)(?:(?<![\d,.])[:=]|\s(?:is|est|ist|es|è|é|lautet))\s*"
    r"(?P<value>\d{5,8}|\d{3}[ -]\d{3})(?![\w-]|[.,]\d)"
)
# Between such a word and its value, the code of something else: "confirmation code for order 55512, please: 88123".
_OF_A_THING = re.compile(
    r"(?i)\b(?:order|booking|reservation|ticket|invoice|tracking|parcel|commande|r[ée]servation|facture|colis|"
    r"pedido|reserva|factura|env[íi]o|bestellung|buchung|rechnung|sendung|ordine|prenotazione|fattura|spedizione|"
    r"encomenda|fatura|bestelling|boeking|factuur|pakket)\b")
# "Use 2558868 as Microsoft account security code", "gib 493021 als Bestätigungscode ein".
_USE_AS_CODE = re.compile(
    r"(?i)\b(?=[uetsvgidc])(?:use|enter|type|utilisez|utilise|entrez|saisissez|saisis|verwende|verwenden sie|gib|"
    r"geben sie|usa|usar|use o|introduce|introduzca|inserisci|digite|gebruik|voer)\s+(?P<value>\d{4,8})\s+(?:(?:as|als|comme|como|come|"
    r"in)\b[^\n.]{0,40}?(?:code|otp|tan|c[óo]digo|codice|passcode|token)\b|"
    r"(?:to|um|pour|para|per|om)\s+(?:\w+\s+)?(?:verify|confirm|sign in|log in|login|continue|complete|"
    r"zu bestätigen|confirmer|vérifier|verificar|confirmar|verificare|confermare|bevestigen|verifiëren))"
)
_BEFORE_CODE = re.compile(
    r"(?i)(?<![\w-])(?:[A-Z]-)?(?P<value>\d{4,8}|\d(?: \d){3,7})\s+(?:is|est|ist|es|è|é|is je|er)\s+(?:your|my|the|votre|ihr|dein|tu|su|"
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
says shows showing gives zeigt affiche dice muestra mostra geeft zegt app
door gate garage alarm lock locker safe keypad keybox lockbox building entrance front back bike
porte portail immeuble entrée cadenas coffre casier tür tor haustür garagentor schloss tresor spind
puerta portal portón edificio candado caja fuerte porta portão prédio cadeado cofre cancello portone lucchetto
cassaforte armadietto deur poort voordeur kluis slot fietsslot
key-safe keysafe key lockbox keybox sleutelkluis sleutelkastje schlüsselkasten schlüsselbox schlüsseltresor
boîte clés caja llaves cassetta chiavi caixa chaves achterdeur hintertür
by near next beside bij naast bei neben près à côté junto al accanto ao lado
""".split())
_LOOK_ALIKE_AFTER = frozenset("""postal postale postaux promocional promo promotionnel descuento sconto rabatt
réduction remise réservation reserva prenotazione reservierung boeking booking buchung suivi seguimiento tracking""".split())


_GOOGLE = re.compile(r"(?<![\w-])G-(?P<value>\d{6})(?![\w-])")  # Google's sign-in texts: "G-123456 is your code"
_BACKUP = re.compile(
    r"(?i)\b(?:backup|recovery|back-?up|reserve|secours|respaldo|recuperaci[óo]n|recupero|recupera[çc][ãa]o|herstel|"
    r"wiederherstellungs|notfall)[ -]?(?:codes?|c[óo]digos|codici|kodes?)\b(?P<line>[^\n]{0,160})"
    r"(?P<list>(?:\n[ \t]*(?:\d{1,2}[.)]\s*|[-•*]\s*)?[\w -]{4,20}){0,16})")
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
            # On the label's own line the codes follow its colon ("Backup-Codes für das Google-Konto: 1835 4339, ...");
            # with no colon, they start right after it. Then one code (or numbered code) a line.
            line, colon = match.group("line"), match.group("line").rfind(":")
            start = match.start("line") + colon + 1 if colon >= 0 else match.start("line")
            block = text[start: match.end("line") if colon >= 0 else match.start("line") + min(len(line), 40)]
            found.extend(Hit("one_time_code", start + m.start(), start + m.end()) for m in _LIST_ITEM.finditer(block)
                         if len(re.sub(r"[ -]", "", m.group(0))) >= 6)  # on the label's line, not "version 2: 2024"
            found.extend(Hit("one_time_code", match.start("list") + m.start(), match.start("list") + m.end())
                         for m in _LIST_ITEM.finditer(match.group("list")))
    six = list(_SIX_DIGITS.finditer(text))
    if six and _TYPE_IT_SOON.search(text):
        found.extend(Hit("one_time_code", *m.span("value")) for m in six)
    if "G-" in text:
        found.extend(Hit("one_time_code", *m.span("value")) for m in _GOOGLE.finditer(text))
    return found


_CODE_HINTS = ("cod", "cód", "otp", "tan", "token", "pin", "2fa", "mfa", "combo", "combin", "kombin", "kode", "kod",
               "authenticator", "authy", "3d secure", "3-d secure")


def code_hits(text: str) -> list[Hit]:
    if not re.search(r"\d", text):
        return []
    lowered = text.lower()
    found = []
    hinted = any(hint in lowered for hint in _CODE_HINTS)
    for match in _OTP.finditer(text) if hinted else ():
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
        if (first and _CODE_WORD_LOOK_ALIKE.match(first[0])) or any(w.lower().strip(":=,;") in _LOOK_ALIKE_AFTER
                                                                         for w in gap.split()):
            continue  # "código postal es 08001", "code de réservation", "code de réduction : 12345"
        said = re.search(r"(?i)\b(?:is|was|ist|est|es|lautet|è|é|for|to|are|sont|sind|é)\b|[:=]", gap)
        qualified = all(w.lower().strip(",'’") in _CODE_QUALIFIERS for w in re.findall(r"[^\W\d_][\w'’-]*", gap))
        if len(gap.strip()) > 2 and not (qualified or (said and len(gap) <= 30)):
            continue  # "code of conduct section 4" etc.; "codice di verifica 687344", "code bekommen 953090" say one
        # A locker's or safe's combination is no one-time code, but a password all the same.
        kind = "password" if re.search(r"(?i)comb|kombin", word) else "one_time_code"
        found.append(Hit(kind, *match.span("value")))
    found.extend(Hit("one_time_code", *m.span("value")) for m in _BEFORE_CODE.finditer(text))
    if hinted:
        found.extend(Hit("one_time_code", *m.span("value")) for m in _STRONG_CODE.finditer(text)
                     if not _CODE_BEFORE_LOOK_ALIKE.search(text[max(0, m.start() - 24): m.start()])
                     and not _OF_A_THING.search(m.group("gap")))
    found.extend(Hit("one_time_code", *m.span("value")) for m in _USE_AS_CODE.finditer(text))
    found.extend(Hit("one_time_code", *m.span("value")) for m in _SENT_ME.finditer(text))
    return found + _list_codes(text, lowered)
