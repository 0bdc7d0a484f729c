"""Payment cards, their security codes and PINs, and bank account numbers (IBAN).

A card number is 13-19 digits in any grouping that pass Luhn and start like a card
(2-6); its expiry and code may follow in the same run of digits. What makes it a card and
not an order, tracking or IMEI number (15 digits, also Luhn) is the context: a number right
after "order", "tracking", "IMEI"... is kept unless card words (expiry, CVC, "card") are near.
An IBAN passes the mod-97 check of ISO 13616.
"""

from __future__ import annotations

import re

from deputy.core.records.card_numbers import luhn_valid
from deputy.core.secret_scan.hits import Hit

_DIGIT_RUN = re.compile(r"(?<![\w.,/])\d+(?:[ \-.\n]{1,2}\d+)*")
LOOK_ALIKE_BEFORE = re.compile(
    r"(?i)\b(?:order|tracking|track|shipment|parcel|package|invoice|reference|ref|booking|confirmation|ticket|"
    r"imei|isbn|serial|account|acct|customer|member(?:ship)?|loyalty|policy|claim|case|phone|tel|fax|call|"
    r"mobile|cell|whatsapp|upc|ean|barcode|sku|part|model|vin|routing|transaction|txn|receipt|meter|ups|fedex|"
    r"usps|dhl|awb|waybill|bestellnummer|sendungsnummer|commande|pedido|tracciamento|spedizione|suivi|colis|"
    r"seguimiento|rastreo|env[íi]o|brt|gls|dpd|hermes|n[º°]\.?|no(?=\.|[\s:#]*$)|#|"
    # A file's, a case's or a customer's number at an office or a shop, in the seven languages.
    r"protocol|protokoll(?:nummer)?|protocolo|protocollo|aktenzeichen|dossier|expediente|pratica|processo|zaak(?:nummer)?|"
    r"kundennummer|kunden-?nr|klantnummer|cliente|client|kontonummer|rechnungsnummer|auftragsnummer|"
    # A firm's registration or VAT number (SIRET and SIREN pass Luhn too) is printed on its every invoice.
    r"siret|siren|rcs|tva|vat|partita iva|p\.\s?iva|kvk|ust-?id(?:nr)?|cnpj|abn|ein)\b[^\d\n]{0,24}$"
)
_CARD_WORDS = re.compile(r"(?i)\b(?:card|visa|master ?card|amex|american express|discover|debit|credit|exp(?:iry|ires|iration)?|"
                         r"valid thru|cvv2?|cvc2?|csc|karte|carte|tarjeta|cart[aã]o)\b|\b(?:0[1-9]|1[0-2])\s?/\s?\d{2}\b")
_CODE_VALUE = (r"(?:\s*\([^()\n]{0,40}\))?"  # an aside that may hold a digit: "Kartenprüfnummer (die 3 Ziffern hinten): 634"
               r"(?:[^\d\n.?!…]|\.{2,3}|…){0,24}?(?<!\d)(?P<value>\d(?:[ -]\d){3,7}(?![ -]?\d)|\d{3,8})(?!\d)")  # (spaced: "4 8 2 1")
_CODE = re.compile(
    r"(?i)(?:\b(?:cvv2?|cvc2?|csc|cid|cav2|security code|sec(?:urity)? code|card code|card verification(?: code| value)?|"
    r"3[- ]digit(?: security)? code|three[- ]digit code|code on the back|(?:card |atm |debit |bank )?pin(?:[- ]?(?:code|number|no\.?))?|"
    r"pin-?nummer|code pin|code secret|numéro secret|geheimzahl|pin-?code|pinkod|pin ?kodu|puk|sim pin|cvn|"
    r"pr[üu]fnummer|pr[üu]fziffer|kartenpr[üu]fnummer|sicherheitscode|c[óo]digo de seguridad|cryptogramme|"
    r"codice di sicurezza|beveiligingscode|kod cvv)\b)" + _CODE_VALUE
)
# Rarer names, each read only when one of its words is in the message (an alternative costs a test at each character):
# a misspelt label ("securtiy code"), a card's PIN by its other names, a SIM's, an alarm's and a bank app's code, and
# the card's back ("the 3 numbers on the back", "los tres números de atrás de la tarjeta", "die drei Ziffern hinten").
_MORE_CODES = tuple((hints, re.compile(r"(?i)(?:\b(?:" + names + r")\b)" + _CODE_VALUE)) for hints, names in (
    (("sec", "seg", "senha", "multibanco"),
     r"sec[a-z]{3,6} code|c[óo]d\.? (?:de )?seguran[çc]a|c[óo]digo de seguran[çc]a|senha do (?:multibanco|cart[ãa]o)|"
     r"pin (?:do|de) multibanco"),
    (("sim",), r"sim[- ]?code|code sim|c[óo]digo pin|codice pin|pincode van de sim"),
    (("alarm", "allarm", "disarm", "entsch", "alarme"),
     r"alarm-?code|alarmcode|code (?:d'acc[èe]s )?(?:de l'|d')alarme|"
     r"c[óo]digo (?:de acceso |de acesso )?(?:de la |da |do )?alarma?e?|"
     r"codice (?:d'accesso |di accesso )?(?:all'|dell')allarme|disarm(?: it)? with|entsch[äa]rfen mit|"
     r"(?:deaktivier\w*|ausschalt\w*|ausmach\w*|d[ée]sactiv\w*|disattiv\w*|desactiv\w*|desativ\w*|uitschakel\w*|"
     r"uitzetten|turn(?:ing)? (?:it )?off|switch(?:ing)? (?:it )?off|disabl\w*)\s+(?:[\w']+\s+){0,3}?"
     r"(?:mit|avec|con|com|met|with)|alarm\w*(?: \w+){0,3}? mit"),
    (("app",),
     r"(?:pin|code|mot de passe|c[óo]digo|codice|senha|wachtwoord|passcode)\s+(?:de l'|del(?:la)?\s|dell'|da\s|"
     r"de la\s|der\s|van de\s|of the\s|for the\s|for my\s)\s*(?:bank(?:ing)?[- ]?)?(?:app|appli|application|"
     r"aplicaci[óo]n|aplica[çc][ãa]o|applicazione)(?:\s+(?:bancaire|bancaria|banc[áa]ria|der bank|van de bank|bank))?|"
     r"(?:bank(?:ing)?|banca|banco)[- ]?app[- ]?(?:pin|code|passcode)"),
    (("back", "atr", "detr", "dorso", "reverso", "hinten", "ckseite", "dos", "verso", "retro", "achter", "costas", "trás",
      "tras"),
     r"(?:(?:(?:3|4|three|four|tres|cuatro|drei|vier|trois|quatre|tre|quattro|tr[êe]s|quatro|drie)\s+(?:last\s+)?)?"
     r"(?:numbers?|n[úu]meros|n[úu]meritos|numerinhos|zahlen|numeri|numeretti|getallen|getalletjes)|(?:(?:3|4|three|four|tres|cuatro|drei|vier|trois|quatre|tre|"
     r"quattro|tr[êe]s|quatro|drie)\s+)?(?:digits?|d[íi]gitos|cifras|cifritas|ziffern|chiffres|cifre|cijfers|"
     r"cijfertjes))\s+"
     r"(?:[\w'’]+\s+){0,3}?(?:back|atr[áa]s|detr[áa]s|dorso|reverso|hinten|r[üu]ckseite|dos|verso|retro|achterkant|"
     r"achterop|costas|tr[áa]s)"),
))
# A card's own code named outright ("CVC van de creditcard voor de boeking: 559"): the words between may be more.
_CARD_CODE = re.compile(r"(?i)\b(?:cvv2?|cvc2?|csc|cvn|kartenpr[üu]fnummer|cryptogramme(?: visuel)?|security code|"
                        r"c[óo]digo de seguridad|codice di sicurezza|code de s[ée]curit[ée]|sicherheitscode|"
                        r"beveiligingscode|c[óo]digo de seguran[çc]a)\b"
                        r"[^\d\n.?!]{25,48}?[:=]\s*(?P<value>\d{3,4})(?![\w-]|[.,]\d)")
# India's "PIN code" (Postal Index Number) is a postcode: six digits, in an address.
_POSTAL_PIN = re.compile(r"(?i)\b(?:postal|post ?code|postcode|zip|address|adresse?|anschrift|direcci[óo]n|indirizzo|"
                         r"endere[çc]o|delivery|deliver|courier|shipping|ship to|post office|india|indian|inde|indien|"
                         r"indiano?a?|nagar|district|street|road|colony)\b")
_PLACE_AFTER = re.compile(r"\s*[,(-]?\s*[A-Z][a-z]{3,}")  # "560001, Bangalore": a town after the number
_PIN_NOT = re.compile(r"(?i)\bpin\b\s*(?:the|this|that|it|a|an|to|on|up|down|point|board|code\?|location|drop)\b")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b")
_IBAN_LENGTHS = {"AD": 24, "AE": 23, "AT": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24, "DE": 22, "DK": 18,
                 "EE": 20, "ES": 24, "FI": 18, "FR": 27, "GB": 22, "GR": 27, "HR": 21, "HU": 28, "IE": 22, "IS": 26,
                 "IT": 27, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MT": 31, "NL": 18, "NO": 15, "PL": 28,
                 "PT": 25, "RO": 24, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "TR": 26, "BR": 29, "SA": 24, "IL": 23,
                 "AL": 28, "AZ": 28, "BA": 20, "BH": 22, "BY": 28, "CR": 22, "DO": 28, "EG": 29, "FO": 18, "GE": 22,
                 "GI": 23, "GL": 18, "GT": 28, "IQ": 23, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LY": 25,
                 "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MU": 30, "PK": 24, "PS": 29, "QA": 29, "RS": 22, "SC": 31,
                 "SD": 18, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "BI": 27,
                 "DJ": 27, "FK": 18, "MN": 20, "NI": 28, "OM": 23, "RU": 33, "SO": 23, "YE": 30}


def iban_valid(candidate: str) -> bool:
    compact = candidate.replace(" ", "").upper()
    expected = _IBAN_LENGTHS.get(compact[:2])
    if expected is None or len(compact) != expected:
        return False  # "RF18 5390 0754 7034": a creditor reference passes mod 97 too, but RF is no country
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


def iban_hits(text: str) -> list[Hit]:
    return [Hit("bank_account", *m.span()) for m in _IBAN.finditer(text) if iban_valid(m.group(0))]


def card_hits(text: str, ibans: list[Hit]) -> list[Hit]:
    found = []
    masked = text
    for hit in ibans:  # the digits of an IBAN are no card
        masked = masked[: hit.start] + " " * (hit.end - hit.start) + masked[hit.end:]
    for run in _DIGIT_RUN.finditer(masked):
        digits = ""
        for group in re.finditer(r"\d+", run.group(0)):
            digits += group.group(0)
            if len(digits) > 19:
                break
            if 13 <= len(digits) <= 19 and digits[0] in "23456" and luhn_valid(digits):
                before = text[max(0, run.start() - 40): run.start()]
                near = text[max(0, run.start() - 60): run.end() + 60]
                if LOOK_ALIKE_BEFORE.search(before) and not _CARD_WORDS.search(near):
                    break
                end = run.start() + group.end()
                found.append(Hit("card", run.start(), end))
                found.extend(_trailing_code(text, end))
                break
    return found


_EXPIRY_THEN_CODE = re.compile(r"[^\d\n]{0,30}?\n?[^\d\n]{0,10}?(?P<expiry>(?:0[1-9]|1[0-2])\s?/\s?(?:20)?\d{2})(?!\d)"
                               r"(?:[^\d\n]{0,30}?\n?[^\d\n]{0,30}?(?<![\d/])(?P<code>\d{3,4})(?!\d))?")


def _trailing_code(text: str, end: int) -> list[Hit]:
    """"4111 ... 11/28 346", "4111 ...\n11/28\n346": the digits after a card's expiry are its code.

    The expiry itself stays: without the number it opens nothing, and the user sees which card it was.
    """
    match = _EXPIRY_THEN_CODE.match(text, end)
    if match is None or not match.group("code"):
        return []
    return [Hit("card_code", *match.span("code"))]


def code_hits(text: str) -> list[Hit]:
    found = []
    lowered = text.lower()
    more = [m for hints, names in _MORE_CODES if any(hint in lowered for hint in hints) for m in names.finditer(text)]
    for match in (*_CODE.finditer(text), *more, *_CARD_CODE.finditer(text)):
        if _PIN_NOT.match(text, match.start()):
            continue
        if len(match.group("value")) == 6 and re.match(r"(?i)pin", match.group(0)) and (
                _POSTAL_PIN.search(text) or (re.match(r"(?i)pin[- ]?code", match.group(0)) and _PLACE_AFTER.match(
                    text, match.end("value")) and not _CARD_WORDS.search(text))):
            continue  # "PIN code: 411001 (Pune)", "PIN code 560001, Bangalore": a postcode
        if len(match.group("value")) > 4 and _UNCOUNTED_BACK.match(match.group(0)):
            continue  # "the numbers on the back of the ticket are 12345": a card's back holds three or four
        found.append(Hit("card_code", *match.span("value")))
    return found


_UNCOUNTED_BACK = re.compile(r"(?i)(?:numbers?|n[úu]meros|n[úu]meritos|numerinhos|zahlen|numeri|numeretti|getallen|"
                             r"getalletjes|digits?|d[íi]gitos|cifras|cifritas|ziffern|chiffres|cifre|cijfers|cijfertjes)\s")
