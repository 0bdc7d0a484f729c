"""Identity numbers: by their format and check digit, or by the words that name them.

Formats distinctive enough to stand alone are matched anywhere when their check passes:
US SSN (ranges), Spanish DNI/NIE (letter), UK NINO (prefixes), Brazilian CPF, Belgian
national number (dotted), French NIR, Italian codice fiscale, Portuguese citizen card,
Indian PAN, Finnish HETU (with a letter in it), Swiss AHV (dotted), Chinese resident ID and
a passport's machine-readable line. Others are plain runs of digits that order and phone numbers share (German
Steuer-ID, Dutch BSN, Polish PESEL, Swedish personnummer, Portuguese NIF, Canadian SIN,
Aadhaar...): those count when a word naming an identity number comes right before them
(in any of the seven languages), with the number's shape; passports, ID cards and driving
licences have no check digit at all and are found by their names only.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from deputy.core.secret_scan import id_checksums as check
from deputy.core.secret_scan.cards import LOOK_ALIKE_BEFORE
from deputy.core.secret_scan.hits import Hit

_SSN = re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])")
_DNI = re.compile(r"(?<![\w-])(?P<digits>[XYZ]-?\d{7}|\d{7,8}|\d{2}\.\d{3}\.\d{3})-?(?P<letter>[A-Z])(?![\w-])")
_NINO = re.compile(r"(?<![\w])(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?!\w)")
_CPF = re.compile(r"(?<![\d.])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\d])")
_BE_DOTTED = re.compile(r"(?<![\d.])\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}(?![\d.])")
_NIR = re.compile(r"(?<![\w])[12378] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}(?![\w])", re.I)
_CF = re.compile(r"(?<![\w])[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z](?![\w])", re.I)
_CC = re.compile(r"(?<![\w])\d{8} ?\d ?[A-Z]{2}\d(?![\w])")
_PAN = re.compile(r"(?<![\w])[A-Z]{3}P[A-Z]\d{4}[A-Z](?![\w])")
# Finland's HETU alone only with a letter in it (a century sign of the 2000s, or a check letter): "DDMMYY-NNNN"
# is also a Swedish personnummer's or a booking number's shape, and a digit passes the check one time in 31.
_HETU = re.compile(r"(?<![\w-])\d{6}(?:[A-F]\d{3}[0-9A-Y]|[-+U-Y]\d{3}[A-Y])(?![\w-])")
_AHV = re.compile(r"(?<![\w.])756\.\d{4}\.\d{4}\.\d{2}(?![\w.])")
_RID = re.compile(r"(?<![\w])[1-8]\d{5}(?:18|19|20)\d{2}[01]\d[0-3]\d{4}[\dX](?![\w])")
_MRZ = re.compile(r"(?<![\w<])[A-Z0-9<]{9}\d[A-Z<]{3}\d{7}[MFX<]\d{7}[A-Z0-9<]{14}[\d<]\d(?![\w<])")
_CURP = re.compile(r"(?<![\w])[A-Z][AEIOUX][A-Z]{2}\d{6}[HMX][A-Z]{2}[B-DF-HJ-NP-TV-Z]{3}[0-9A-Z]\d(?![\w])")
_RRN = re.compile(r"(?<![\w-])\d{6}-[1-8]\d{6}(?![\w-])")  # Korea's resident registration number, as written

# One reading for every format that stands alone (each checked by its own rule after): one pass over the message,
# tried only where a word starts (inside a long token no format can start; one test there instead of one each).
_STANDALONE = re.compile("(?<![A-Za-z0-9])(?:" + "|".join(f"(?P<{name}>{pattern.pattern if pattern.flags & re.I == 0 else '(?i:' + pattern.pattern + ')'})"
                                  .replace("(?P<digits>", "(?P<dni_digits>").replace("(?P<letter>", "(?P<dni_letter>")
                                  for name, pattern in (("ssn", _SSN), ("cpf", _CPF), ("be", _BE_DOTTED), ("nir", _NIR),
                                                        ("dni", _DNI), ("nino", _NINO), ("cf", _CF), ("cc", _CC),
                                                        ("pan", _PAN), ("hetu", _HETU), ("ahv", _AHV), ("rid", _RID),
                                                        ("mrz", _MRZ), ("curp", _CURP), ("rrn", _RRN))) + ")")


# Formats that a long reference number can take by chance: after "invoice", "order", "ticket"... they are one.
_REFERENCE_SHAPED = frozenset({"hetu", "rid", "ahv", "rrn"})
# Numbers published as examples, never anyone's: the SSA's voided Woolworth and advertising SSNs, the textbook one.
_SPECIMENS = frozenset({"078051120", "219099999", "123456789"})


def _valid(match: re.Match[str]) -> bool:
    kind, value = match.lastgroup, match.group(0)
    if kind == "dni":
        return check.dni(match.group("dni_digits").replace(".", "").replace("-", ""), match.group("dni_letter"))
    if kind == "cpf":
        return check.cpf(value)
    if kind == "be":
        return check.be_national_number(_compact(value))
    if kind == "nir":
        return check.nir(_compact(value)) and 1 <= int(_compact(value)[3:5]) <= 12
    if kind == "cf":
        return check.codice_fiscale(value)
    if kind == "cc":
        return check.cartao_cidadao(_compact(value))
    if kind == "hetu":
        return check.hetu(value)
    if kind == "ahv":
        return check.ahv(_compact(value))
    if kind == "rid":
        return check.china_resident_id(value)
    if kind == "mrz":
        return check.mrz_td3(value)
    if kind == "curp":
        return check.curp(value)
    if kind == "rrn":
        return check.korea_rrn(_compact(value))
    if kind == "ssn":
        return _compact(value) not in _SPECIMENS
    return True  # an SSN (its ranges are in the pattern), a NINO (its prefixes), a PAN (its fourth letter)


# A number's possible shapes after a label: digits in groups, or letters and digits (passports).
_VALUE = r"(?<![A-Za-z0-9])(?P<value>(?=[A-Za-z]{0,11}-?\d)[A-Za-z0-9]{1,18}(?:[ .\-/][A-Za-z0-9]{1,12}){0,6})"
# Between the label and the number: "number", "is", a colon, "(NAS)", "meiner Frau:" (no digits, no new sentence).
_BRIDGE = r"[^\d\n?!;]{0,60}?(?:\n[ \t]*)?"  # (a label alone on its line, the number on the next)
LABELS = (
    r"rijksregister(?:nummer)?|registre national|national register number|national (?:id|identity|identification|"
    r"insurance)(?: card)?(?: number)?|national number|numéro national|niss|insz|identiteitsnummer|"
    r"social insurance number|social security(?: number| no\.?| #)?|ssn|soc\.? sec\.?|social|sécurité sociale|"
    r"s[ée]cu|insee|nir|"
    r"steuer-?id(?:-?nr)?|steuer-?identifikationsnummer|steuerliche identifikationsnummer|identifikationsnummer|"
    r"idnr|steuernummer|tax (?:id|identification number|number|code|file(?: number| no\.?| nr\.?| #)?)|tin|itin|"
    r"personnummer|personennummer|personal (?:identity )?number|pesel|"
    r"contribuinte|nif|nie|dni|nif/nie|documento (?:nacional )?de identidad|cart[aã]o (?:de|do) cidad[aã]o|"
    r"bilhete de identidade|n[úu]mero de identifica[cç][aã]o(?: fiscal)?|codice fiscale|cod\.? fisc\.?|cf|"
    r"fiscal code|cpf|aadhaa?r|pan(?: card)?|sin|social insurance number|nas|assurance sociale|bsn|"
    r"burgerservicenummer|sofi-?nummer|ni no|ni number|nino|"
    r"passport|passeport|reisepass(?:nummer)?|pass-?nr|passnummer|pasaporte|passaporto|passaporte|paspoort(?:nummer)?|"
    r"personalausweis(?:nummer)?|ausweis(?:nummer)?|ausweis-?nr|carte d'identité|carta d'identità|"
    r"documento d'identità|identiteitskaart|identiteitsbewijs|id card|identity card|id number|id-?nummer|"
    r"driver'?s licen[cs]e|driving licen[cs]e|licen[cs]e number|führerschein(?:nummer)?|permis de conduire|"
    r"carnet de conducir|licencia de conducir|patente|carta de condução|rijbewijs(?:nummer)?|"
    r"medicare|nhs number|krankenversicherungsnummer|versichertennummer|tessera sanitaria|"
    # Social security and personal numbers of more countries, in the seven languages and their own words.
    r"sozialversicherungsnummer|rentenversicherungsnummer|sv-?nummer|sv-?nr\.?|"
    r"ahv(?:-?nummer|-?nr\.?)?|avs|num[ée]ro avs|num[ée]ro d'assur[ée](?: social)?|num[ée]ro fiscal|"
    r"n[úu]mero de (?:la )?seguridad social|nss|c[ée]dula(?: de identidad)?|"
    r"numero di previdenza|n[úu]mero de utente|n[úu]mero de seguran[çc]a social|rg|"
    r"cpr(?:[- ]?num(?:mer|ber)|-?nr\.?)?|personnummeret|f[øo]dselsnummer|f[øo]dselsnr\.?|henkil[öo]tunnus|hetu|"
    r"personbeteckning|pps(?:n| number| no\.?)?|personal public service number|"
    r"resident (?:id|identity)(?: card)?(?: number)?|citizen id|dl|driver'?s? licen[cs]e(?: number| no\.?)?|"
    r"carte vitale|rut|curp|cuil|steuer-?identnummer|identit[äa]tskarte|id-?kaart|dnie|n[úu]mero de identidad|"
    # Identity numbers of Japan, Korea, Turkey, Israel, China, Australia, Austria, Argentina, Finland and Sweden, in
    # English and in their own words (a message in English often keeps the native name).
    r"my number|individual number|マイナンバー|個人番号|kojin bang[oō]|resident registration(?: number| no\.?)?|rrn|"
    r"주민등록번호|jumin(?: number)?|t\.? ?c\.? kimlik(?: no\.?| numaras[ıi]| number)?|kimlik(?: no\.?| numaras[ıi])?|"
    r"tckn|te'?udat zehut|mispar zehut|zehut|israeli id(?: number)?|תעודת זהות|מספר זהות|ת\.ז\.?|tfn|"
    r"身份证(?:号码?)?|居民身份证(?:号码?)?|chinese id(?: card)?(?: number)?|shenfenzheng|cuit|svnr|"
    r"versicherungsnummer|identity number|sotu|personnr\.?|sa id(?: number| no\.?)?|id (?:no|nr)\.?|run|"
    r"rol [úu]nico (?:tributario|nacional)|uid(?:ai)? (?:number|no\.?)|(?:personal )?identity code|"
    # Identity cards and numbers with no public check digit (Latin America, Africa, Asia, the Balkans, the small
    # states of Europe), by their names: the card ("carnet de identidad", "Ghana card", "CNIE", "BI") or the number.
    r"carn[eéê]t? de identida[dt]e?|carnet d'identit[ée]|philsys(?: card)?|phil ?id|sss|nin|bvn|ghana ?card|"
    r"ghana-?kaart|cnie|cin|nid|numri personal|numri i identitetit|peid|bi|"
    r"permis de r[ée]sidence|residence permit|resident permit|permesso di soggiorno|permiso de residencia|"
    r"autoriza[çc][ãa]o de resid[êe]ncia|verblijfsvergunning|aufenthalts(?:titel|erlaubnis)|"
    r"(?:national |personal )?identification number|n[úu]mero de (?:c[ée]dula|documento)|num[ée]ro d'identit[ée]|"
    r"numero d'identit[àa]|identit[äa]tsnummer|tarjeta de identi(?:dad|ficaci[óo]n)|"
    r"cart[ãa]o de identi(?:dade|fica[çc][ãa]o)|carteira de identidade|carta de identidade|c\.\s?i\.|ci|carnet|"
    r"cccd|cmnd|c[ăa]n c[ưu][ớo]c(?: c[ôo]ng d[âa]n)?|ch[ứu]ng minh nh[âa]n d[âa]n|პირადი ნომერი|"
    r"carte de r[ée]sident|num[ée]ro de r[ée]sident|residen(?:ce|t) (?:card|number)|tarjeta de residen(?:cia|te)|"
    r"nrt|n[úu]mero de registre tributari|"
    # A nationality and "ID": "Cypriot ID", "Kenyan ID number", "mijn Keniaanse ID" (the adjective's endings in English
    # and Dutch; three letters before them at least: a "loan ID" or a "plan ID" is no one's).
    r"[a-z]{3,}(?:an|ian|ese|ish|ot|i|se|sche) id(?: number| no\.?| nr\.?| card)?"
)
_NAMED = re.compile(rf"(?i)(?<![\w-])(?P<label>{LABELS})(?!\w){_BRIDGE}{_VALUE}(?![\w])")
# Labels that are also ordinary words ("social", "pan", "sin", "nas", "cf", "tin", "patente") want their own format.
_OWN_FORMAT = {
    "social": r"\d{3}[ -]?\d{2}[ -]?\d{4}", "pan": r"[A-Za-z]{5}\d{4}[A-Za-z]", "pan card": r"[A-Za-z]{5}\d{4}[A-Za-z]",
    "sin": r"\d{3}[ -]?\d{3}[ -]?\d{3}", "nas": r"\d{3}[ -]?\d{3}[ -]?\d{3}", "cf": r"[A-Za-z]{6}\d{2}[A-Za-z]\d{2}[A-Za-z]\d{3}[A-Za-z]",
    "tin": r"\d{2,3}[ -]?\d{2,7}[ -]?\d{3,4}|\d{3}[ -]?\d{3}[ -]?\d{3}[ -]?\d{3,5}", "patente": r"[A-Za-z]{2}\d{7}[A-Za-z]?|U1[A-Za-z0-9]{7}[A-Za-z]",
    "cpr": r"\d{6}-?\d{4}", "avs": r"756[ .]?\d{4}[ .]?\d{4}[ .]?\d{2}", "ahv": r"756[ .]?\d{4}[ .]?\d{4}[ .]?\d{2}",
    "pps": r"\d{7}[A-Wa-w][A-Ia-iWw]?", "nss": r"\d{2}[ /-]?\d{8}[ /-]?\d{2}|\d{11,12}",
    "rg": r"\d{1,2}\.?\d{3}\.?\d{3}-?[\dXx]", "dl": r"[A-Za-z]{1,2}\d{6,14}|\d{7,14}",
    "rut": r"\d{1,2}\.?\d{3}\.?\d{3}-?[\dKk]", "cuil": r"\d{2}-?\d{8}-?\d", "cuit": r"\d{2}-?\d{8}-?\d",
    "rrn": r"\d{6}-?\d{7}", "tfn": r"\d{3} ?\d{3} ?\d{2,3}", "sotu": r"\d{6}[-+A-FU-Y]\d{3}[0-9A-Ya-y]",
    "my number": r"\d{4}[ -]?\d{4}[ -]?\d{4}", "individual number": r"\d{4}[ -]?\d{4}[ -]?\d{4}",
    "run": r"\d{1,2}\.?\d{3}\.?\d{3}-?[\dKk]",
    # Short names that are words or other things too ("NIN" of a song, "CIN" a cinema, "BI" business intelligence):
    # their number's own shape. Nigeria's NIN and BVN, the Philippines' SSS, Morocco's and Tunisia's CIN, Bangladesh's
    # NID and Albania's, Angola's BI, Andorra's NRT.
    "nin": r"\d{11}", "bvn": r"\d{11}", "sss": r"\d{2}[ -]?\d{7}[ -]?\d", "cin": r"[A-Za-z]{1,2}\d{5,6}|\d{8}",
    "nid": r"\d{10}|\d{13}|\d{17}|[A-Za-z]\d{8}[A-Za-z]", "bi": r"\d{9}[A-Za-z]{2}\d{3}",
    "nrt": r"[A-Za-z]-?\d{6}-?[A-Za-z]",
    # "CI" is also continuous integration ("CI build 30687967"): Latin America's cédula as it is written, with dots;
    # a "carnet" alone may be any card's: Bolivia's, with the department it was issued in.
    "ci": r"\d{1,2}\.\d{3}\.\d{3}(?:-\d)?", "c.i.": r"\d{1,2}\.?\d{3}\.?\d{3}(?:-?\d)?",
    "c. i.": r"\d{1,2}\.?\d{3}\.?\d{3}(?:-?\d)?",
    "carnet": r"\d{5,9}[ -]?(?:LP|SC|CB|OR|PT|TJ|CH|BE|PD|lp|sc|cb|or|pt|tj|ch|be|pd)",
}
# Labels that are ordinary phrases too ("my number is +44 ..."): their number must pass its own check as well.
_OWN_CHECK = {"my number": check.my_number, "individual number": check.my_number, "uid number": check.verhoeff,
              "uid no": check.verhoeff, "uid no.": check.verhoeff, "uidai number": check.verhoeff,
              "run": check.chile_rut}
# Short labels that are also other things ("CPR training", "RG cable", "DL 1234 to Atlanta", "ID no. of the parcel"):
# their number follows them closely ("CPR-nr. 010673-1675", "DL# D7675738", "mon NAS est le ...").
_CLOSE_ONLY = frozenset({"ci", "cpr", "avs", "ahv", "pps", "nss", "rg", "dl", "rut", "rrn", "tfn", "sotu", "my number", "run",
                         "id no", "id no.", "id nr", "id nr."})
_SSN_RULES = r"(?!000|666|9\d\d)\d{3}[ -]?(?!00)\d{2}[ -]?(?!0000)\d{4}"
_NINO_RULES = r"(?i)(?!BG|GB|NK|KN|TN|NT|ZZ|QQ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]"
for _label in ("ssn", "social security", "social security number", "social security no", "social security no.",
               "social", "soc sec", "soc. sec.", "soc sec."):
    _OWN_FORMAT[_label] = _SSN_RULES
for _label in ("ni no", "ni number", "nino", "national insurance", "national insurance number"):
    _OWN_FORMAT[_label] = _NINO_RULES
# Said of an example, a company or a masked number: not someone's identity number.
NOT_A_PERSON = re.compile(r"(?i)\b(?:e\.g|for example|example|exemple|ejemplo|esempio|exemplo|voorbeeld|beispiel|"
                           r"z\.\s?b|p\.\s?ex|format|template|company|business|empresa|firma|société|entreprise|"
                           r"azienda|bedrijf|unternehmen|fatura|factura|invoice|gmbh|ltd|inc|llc|plc|s\.?a\.?r\.?l|"
                           r"s\.?r\.?l|s\.?p\.?a|lda|b\.v|n\.v|kg|ohg|sas)\b")


def _a_companys(label: str, value: str) -> bool:
    """Numbers that the issuer gives firms, not people: a Chilean RUT from 50 million, a Portuguese NIF (NIPC) that
    starts with 5 to 9, a Spanish NIF that starts with a company's letter (CIF)."""
    compact = _compact(value).upper()
    if label in ("rut", "run") or label.startswith("rol "):
        return compact[:-1].isdigit() and int(compact[:-1]) >= 50_000_000
    if label in ("nif", "contribuinte", "nif/nie") or label.startswith(("número de identifica", "numero de identifica")):
        return (len(compact) == 9 and compact.isdigit() and compact[0] in "56789") or compact[:1] in "ABCDEFGHJNPQRSUVW"
    return False
# The nearest name before a number is what it numbers: "my passport expired, I booked the appointment, ref 20261207" is
# a reference, "Steuer-ID beantragt, Vorgangsnummer 2026 0412 7788" a file's number. (Only right before the number:
# "my social to open the account, it's 115 74 7588" names the account and then gives the number of the label.)
_NEARER_NAME = re.compile(
    r"(?i)\b(?:order|tracking|invoice|reference|ref|booking|confirmation|ticket|customer|member|policy|claim|case|"
    r"phone|tel|telephone|fax|call|mobile|cell|whatsapp|transaction|receipt|appointment|report|request|urn|"
    r"cita|rendez-vous|termin|appuntamento|afspraak|agendamento|marca[cç][ãa]o|protocol[oa]?|protokoll|expediente|"
    r"dossier|aktenzeichen|pratica|processo|zaak|bestellung|rechnung|pedido|commande|ordine|encomenda|bestelling|"
    r"(?:bearbeitungs|vorgangs|kunden|bestell|rechnungs|auftrags|antrags|referenz|telefon|handy|sendungs|buchungs|"
    r"zaak|klant|dossier|referentie|ordine|pratica)(?:nummer|nr\.?)|t[ée]l[ée]phone|tel[ée]fono|telem[óo]vel|"
    r"portable|m[óo]vil|celular|cellulare|numéro de (?:dossier|commande|client|téléphone)|"
    r"n[úu]mero de (?:pedido|cliente|expediente|protocolo|tel[ée]fono|telefone|encomenda))"
    r"(?:\s+(?:number|no\.?|nr\.?|n[º°o]\.?|num[ée]ro|nummer|n[úu]mero|numero|id|is|es|est|ist|è|é|at|a|al|au|bei|op))*"
    r"[\s:#.°º-]*$"
)
# ... unless that name is what the number is for: "DNI para la reserva: ...", "Steuer-ID für die Rechnung: ...".
_FOR_THE = re.compile(r"(?i)\b(?:for|pour|para|für|fürs|per|voor|zum|zur|pelo|pela)\s+(?:\w+\s+){0,2}$")


# Right before a number that stands alone, the name of what it numbers: "order #731-83-7826", "número de pedido
# 50865169-W" are an order's, whatever their shape.
_NUMBERED_THING = re.compile(
    r"(?i)\b(?:order|tracking|invoice|booking|confirmation|ticket|receipt|transaction|parcel|shipment|"
    r"bestellung|bestell-?nr|bestellnummer|rechnung|rechnungsnummer|sendung|sendungsnummer|pedido|encomenda|commande|"
    r"ordine|bestelling|factura|fatura|facture|fattura|reserva|r[ée]servation|prenotazione|boeking|reservering)"
    r"(?:\s+(?:number|no\.?|nr\.?|n[º°o]\.?|num[ée]ro|nummer|n[úu]mero|numero|id|ref))?[\s:#.°º-]*$")


def numbers_something_else(bridge: str) -> bool:
    nearer = _NEARER_NAME.search(bridge[-60:])
    return nearer is not None and not _FOR_THE.search(bridge[-60:][: nearer.start()])


_MASK = "*•xX#"
_DATE = re.compile(r"\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}[./-]\d{1,2}[./-]\d{1,2}")
_WORDY = re.compile(r"[A-Za-z]{4,}")


def _trim(value: str) -> str:
    """The number of `value`: its groups up to the first that is a word ("QM7942341 rilasciato")."""
    if not _SEPARATORS.search(value):
        return value
    groups = re.split(r"([ .\-/])", value)
    kept = groups[:1]
    for separator, group in zip(groups[1::2], groups[2::2]):
        if _WORDY.fullmatch(group) or (separator == " " and group.isalpha() and group.islower()):
            break
        kept += [separator, group]
    return "".join(kept)


def _id_shaped(value: str) -> bool:
    compact = _compact(value)
    digits = sum(c.isdigit() for c in compact)
    if len(compact) < 6 or len(compact) > 20 or _DATE.fullmatch(value):
        return False
    return digits >= 5 or (digits >= 1 and compact.isupper())  # a passport's or ID card's letters and digits


_CANDIDATE = re.compile(r"(?<![A-Za-z0-9])(?=[A-Za-z]{0,11}-?\d)[A-Za-z0-9]{1,18}(?:[ .\-/][A-Za-z0-9]{1,12}){0,6}"
                        r"(?![A-Za-z0-9])")
_SEPARATORS = re.compile(r"[ .\-/]")


class _Named(NamedTuple):
    """A label and the number it names: the label before the number, or after it ("4891737N (PPS number)")."""

    label: str
    start: int  # where the number starts
    value: str  # the number, up to its first group that is a word
    bridge: str  # what stands between the label and the number


# After a number, the label that names it: "is my wife's", "(", "<- questo è il", "- c'est mon" (a few words, no verb
# of another clause: "0612345678 for my passport renewal" is a phone number about a passport).
_AFTER = re.compile(rf"(?i)(?P<bridge>(?![^\W\d_])[^\d\n?!;:,.)]{{0,28}}?)(?<![\w-])(?P<label>{LABELS})(?!\w)")
_NOT_A_BRIDGE = re.compile(r"(?i)\b(?:for|to|from|about|with|in|on|at|and|or|und|oder|et|ou|y|und|für|fürs|pour|per|"
                           r"para|por|voor|naar|met|mit|avec|con|com|than|not|no|nicht|pas|non|niet|new|neue?|nouveau|"
                           r"nuevo|nuovo|novo|nieuw)\b|https?:|@")


def _named_matches(text: str):
    """Labels and their numbers, read only around numbers that could be one (the labels are many: trying them at
    every character of a long message costs more than finding the few numbers first)."""
    end, position = 0, 0
    while (candidate := _CANDIDATE.search(text, position)) is not None:
        value = _trim(candidate.group(0))
        # Words after the number may hold the next label and number ("BSN 111222333 en paspoort NXC4R8K21").
        position = candidate.start() + len(value) if len(value) < len(candidate.group(0)) else candidate.end()
        compact = _compact(value)
        if candidate.start() < end or len(compact) < 6 or (sum(c.isdigit() for c in compact) < 5 and compact.isdigit()):
            continue
        window_start = max(end, candidate.start() - 110)
        for match in _NAMED.finditer(text, window_start, candidate.end()):
            if match.start("value") == candidate.start():
                # The nearest name is the number's: "Nino, პირადი ნომერი 0102...", a first name and then the label.
                while (nearer := _NAMED.search(text, match.end("label"), candidate.end())) is not None and \
                        nearer.start("value") == candidate.start():
                    match = nearer
                value = _trim(match.group("value"))
                yield _Named(match.group("label").lower(), candidate.start(), value,
                             text[match.end("label"): match.start("value")])
                end = match.start("value") + len(value)  # "BSN 111222333 en paspoort NXC4R8K21": the next is read too
                break
        else:
            after = _AFTER.match(text, candidate.start() + len(value))
            if after and not _NOT_A_BRIDGE.search(after.group("bridge")) and not LOOK_ALIKE_BEFORE.search(
                    text[max(0, candidate.start() - 40): candidate.start()]):
                yield _Named(after.group("label").lower(), candidate.start(), value, after.group("bridge"))
                end = after.end()


def _named_hits(text: str) -> list[Hit]:
    found = []
    for label, start, value, bridge in _named_matches(text):
        around = text[max(0, start - 3): start] + text[start + len(value):][:3]
        around = re.sub(r"#\s+$", " ", around[:3]) + around[3:]  # "DL# D7675738": a number sign, not a masked digit
        if (NOT_A_PERSON.search(bridge) or any(c in _MASK for c in around) or numbers_something_else(bridge)
                or _a_companys(label, value)):
            continue
        own = _OWN_FORMAT.get(label)
        if label in _CLOSE_ONLY and len(bridge) > 14:
            continue
        if _compact(value) in _SPECIMENS or (label in _OWN_CHECK and (text[start - 1: start] == "+"
                                                                     or not _OWN_CHECK[label](_compact(value)))):
            continue  # an example, or a phone number after "my number"
        if own is not None:
            if re.fullmatch(own, value) or (re.fullmatch(r"\d+(?:[ .\-]\d+)*", value) and re.fullmatch(own, _compact(value))):
                found.append(Hit("national_id", start, start + len(value)))
            continue
        if _id_shaped(value):
            found.append(Hit("national_id", start, start + len(value)))
    return found


def _compact(value: str) -> str:
    return _SEPARATORS.sub("", value)


_ID_HINT = re.compile(r"\d(?:[ .\-]?\d){3}|[A-Za-z]\d\d|\d[A-Za-z]{2}|[A-Z]\d[A-Z]")


# Said of a specimen or an example: the sample card's number, "Erika Mustermann", a made-up number in a how-to.
SPECIMEN = re.compile(r"(?i)\b(?:specimen|sp[ée]cimen|esemplare|sample|muster\w*|fictitious|fictional|fictif|ficticio|"
                       r"fittizio|fict[íi]cio|fictief|dummy|placeholder|voided|made[- ]up|for example|e\.g|example|"
                       r"exemple|ejemplo|esempio|exemplo|voorbeeld|beispiel|z\.\s?b)\b")


def identity_hits(text: str) -> list[Hit]:
    if _ID_HINT.search(text) is None:
        return []  # every identity number has four digits close together, or letters and digits mixed
    found = [Hit("national_id", *m.span()) for m in _STANDALONE.finditer(text) if _valid(m) and not (
        m.lastgroup in _REFERENCE_SHAPED and LOOK_ALIKE_BEFORE.search(text[max(0, m.start() - 40): m.start()]))
        and not _NUMBERED_THING.search(text, max(0, m.start() - 40), m.start())]
    found.extend(_named_hits(text))
    if found and SPECIMEN.search(text):
        found = [hit for hit in found if not SPECIMEN.search(text[max(0, hit.start - 80): hit.end + 80])]
    return found
