"""Identity numbers of more countries: a number that passes a country's check, in a message that names it.

"Isikukood\\n46206203338", "3 931211 9998 ← isikukood van mijn vrouw", "l'EGN de ma grand-mère ? bref le
voici : 631102 387 0": the word that names the number may sit on the line above, after the number, or in
the sentence before a question. Each country's number has its own name (in its own language and in the
seven the chat speaks) and its own check (`country_checks`): a number counts when its country's name is
in the message near it and it passes that country's check. A number of the same shape that fails the
check (an order or an invoice number), a number named by a nearer word (an order, a phone), a masked,
a specimen or a firm's number stays.
"""

from __future__ import annotations

import re
from functools import lru_cache

from deputy.core.secret_scan import country_checks as check
from deputy.core.secret_scan.cards import LOOK_ALIKE_BEFORE
from deputy.core.secret_scan.hits import Hit
from deputy.core.secret_scan.national_ids import NOT_A_PERSON, SPECIMEN, numbers_something_else
from deputy.core.secret_scan.world_ids import ANY_ID, SCHEMES as _WORLD, Scheme as _Scheme


def _stdnum_valid(module: str):
    """python-stdnum's check of one number type ("de.idnr"), imported the first time it is needed."""
    loaded: list = []

    def valid(number: str) -> bool:
        try:
            if not loaded:
                import importlib
                loaded.append(importlib.import_module(f"stdnum.{module}"))
            return bool(loaded[0].is_valid(number))
        except Exception:  # noqa: BLE001 - a number the module cannot read is not one of its numbers
            return False
    return valid


_SCHEMES = {
    "baltic": _Scheme(r"isikukood|isikukoodi|asmens kod(?:as|o|ą)|personal (?:identification )?code|"
                      r"(?:estonian|lithuanian) (?:id|personal|identity) (?:code|number)", check.baltic_personal_code),
    "lv": _Scheme(r"personas kods?|personas koda|personal code|latvian (?:id|personal) (?:code|number)",
                  check.latvian_personal_code),
    "rc": _Scheme(r"rodn[ée] [čc][íi]slo|rodn[ée]ho [čc][íi]sla|birth number|geburtsnummer|num[ée]ro de naissance|"
                  r"n[úu]mero de nacimiento|numero di nascita|geboortenummer", check.birth_number),
    "cnp": _Scheme(r"cnp|cod numeric personal|personal numeric code", check.romanian_cnp),
    "egn": _Scheme(r"egn|егн|единен граждански номер", check.bulgarian_egn),
    "oib": _Scheme(r"oib|osobni identifikacijski broj", check.croatian_oib),
    "emso": _Scheme(r"em[šs]o|emšo|[je]mbg|јмбг|ембг|(?:jedinstveni )?mati[čc]ni broj(?: građana)?|"
                    r"(?:единствен )?матич(?:ен|ни) број", check.emso),
    "amka": _Scheme(r"amka|αμκα", check.greek_amka),
    "kennitala": _Scheme(r"kennitala|kennitölu|kt\.", check.kennitala),
    "ec": _Scheme(r"c[ée]dula|ci|c\.i\.", check.ecuador_ci, reach=60),
    "pe": _Scheme(r"dni|cui|documento nacional de identidad", check.peru_cui, r"\d{8}[\dA-Ka-k]", 60),
    "co": _Scheme(r"nit|c[ée]dula|c\.c\.", check.colombia_nit, reach=60),
    "uy": _Scheme(r"c[ée]dula|ci|c\.i\.", check.uruguay_ci, reach=40),
    "sg": _Scheme(r"nric|fin|ic(?: number| no\.?)?|i/c", check.singapore_nric, r"[STFGstfg]\d{7}[A-Za-z]"),
    "my": _Scheme(r"mykad|nric|ic(?: number| no\.?)?|i/c|kad pengenalan|no\.? kp", check.malaysia_nric),
    # Thailand's is named by the country in any language ("numéro d'identification thaïlandais"): 13 digits and a check.
    "th": _Scheme(r"thai|tha[ïi]|tha[ïi]landaise?|tailand[ée]sa?|thail[äa]ndisch\w*|tailandese|thais|thailand|"
                  r"tailandia|tha[ïi]lande|บัตรประชาชน|เลขประจำตัวประชาชน", check.thai_pin, reach=90),
    "cnic": _Scheme(r"cnic|nadra|computeri[sz]ed national identity card|pakistani (?:id|identity)(?: card)?",
                    check.pakistan_cnic),
    "nik": _Scheme(r"nik|ktp|e-?ktp|nomor induk kependudukan", check.indonesia_nik),
    "ird": _Scheme(r"ird(?: number| no\.?|-nummer)?|inland revenue number", check.nz_ird),
    "phn": _Scheme(r"phn|personal health number|care ?card|msp", check.bc_phn),
    "ohip": _Scheme(r"ohip|health card|carte sant[ée]|health number|gesundheitskarte|tarjeta sanitaria|"
                    r"tessera sanitaria|ziektekostenpas|cart[aã]o de sa[úu]de", check.luhn_number, r"\d{10}", 60),
    "nhs": _Scheme(r"nhs(?:-?nummer|-?nr\.?|-?number)?", check.nhs_number),
    "dominican": _Scheme(r"c[ée]dula", check.luhn_number, r"\d{11}", 60),
    "bis": _Scheme(r"bis(?:-?nummer| number| no\.?)?|num[ée]ro bis", check.belgian_bis),
    "fr_nif": _Scheme(r"num[ée]ro fiscal|identifiant fiscal|r[ée]f[ée]rence fiscale|spi|n° fiscal|tax number",
                      check.french_tax_number),
    "hu": _Scheme(r"ad[óo]azonos[íi]t[óo](?: jel)?|ad[óo]sz[áa]m|hungarian tax", check.hungarian_tax_number),
    "lu": _Scheme(r"matricule|num[ée]ro d'identification national|cns|sozialversicherungsnummer|"
                  r"identifikationsnummer", check.luxembourg_matricule),
    "nss": _Scheme(r"nuss|naf|seguridad social|seguran[çc]a social|social security|sicurezza sociale",
                   check.spanish_nss),
    "kvnr": _Scheme(r"kvnr|krankenversichert\w*|versichertennummer|versicherungsnummer|verzekeringsnummer|"
                    r"health insurance number|gesundheitskarte|egk|carte d'assurance maladie",
                    check.german_kvnr, r"[A-Za-z]\d{9}"),
    "team": _Scheme(r"tessera sanitaria|tessera|team|numero identificativo|carte europ[ée]enne|ehic|"
                    r"european health", check.luhn_number, r"80380\d{15}"),
    "itin": _Scheme(r"itin", check.us_itin),
    "uk_dl": _Scheme(r"licen[cs]e|permis|f[üu]hrerschein\w*|carnet|patente|rijbewijs\w*|carta de condu[çc][ãa]o|dvla|"
                     r"driving|conducir|conduire|guida", check.uk_driving_licence, r"[A-Za-z9]{5}\d{6}[A-Za-z9]{2}\d[A-Za-z]{2}"),
    # Numbers whose check proves much (python-stdnum's): named by the office that asks for them, or by their own name
    # a question away ("qual é o teu contribuinte? ... o meu é 171916034", "Das Finanzamt will meine Nummer ...").
    "de_idnr": _Scheme(r"finanzamt\w*|steuer-?id\w*|steuer-?identifikationsnummer|steuerliche identifikationsnummer|"
                       r"idnr|bundeszentralamt f[üu]r steuern|bzst|elster|einkommensteuer\w*|steuererkl[äa]rung\w*|"
                       r"german tax (?:id|number)", _stdnum_valid("de.idnr"), r"\d{11}"),
    "pt_nif": _Scheme(r"contribuinte|n[úu]mero de contribuinte|nif|n[úu]mero fiscal|finan[çc]as|portal das finan[çc]as",
                      lambda n: n[0] in "123" and _stdnum_valid("pt.nif")(n), r"\d{9}", reach=90),
    "au_tfn": _Scheme(r"tfn|tax file(?: number| no\.?| nr\.?| #)?", _stdnum_valid("au.tfn"), r"\d{8,9}", reach=90),
    **_WORLD,  # Latin America, Asia, Africa and Eastern Europe
}
_SHAPES = {name: re.compile(scheme.shape) for name, scheme in _SCHEMES.items()}
_NEEDS = {name: re.compile(scheme.needs) for name, scheme in _SCHEMES.items() if scheme.needs}

# Every country's name for its number, for a message that names one and waits for it ("EMŠO del mio collega:").
LABELS = "|".join(scheme.label for scheme in _SCHEMES.values())
_LABEL = re.compile("(?i)(?<![\\w-])(?:" + "|".join(f"(?P<{name}>{scheme.label})" for name, scheme in _SCHEMES.items())
                    + f"|(?P<any_id>{ANY_ID})"  # (once, for every scheme it names: one alternative, not one each)
                    + ")(?:-ul(?:ui)?)?(?:[ -]?(?:no\\.?|nr\\.?|n[º°]\\.?|number|nummer|num[ée]ro|n[úu]mero|numero|#))?(?![\\w-])")
# Every way a number is written: digits (a letter before or after) in groups of dots, dashes, spaces or slashes.
# (And a British driving licence's 16 characters, five letters of the surname first.)
_NUMBER = re.compile(r"(?<![\w.\-/+])(?:[A-Za-z]{1,2}\d{6} ?\([\dA]\)|[A-Za-z][A-Za-z9]{4}\d{6}[A-Za-z9]{2}\d[A-Za-z]{2}(?=(?:\s?\d{2})?(?!\w))|"
                     r"(?:[A-Za-z][ -]?)?\d(?:[ .\-/]?\d){5,21}(?:[ -]?[A-Za-z])?(?![\w/]|[.\-]\w))")
_SEPARATORS = re.compile(r"[ .\-/()]")  # (a check character in brackets: "G375399(8)")
_SIX_DIGITS = re.compile(r"\d[\d .\-/]{4,}\d")  # (a quick test first: most messages hold no such number)
# Part of a masked number: "XXXX-1234", "***", "...". ("# 4711" is a number sign.)
_MASKED_BEFORE = re.compile(r"(?<![A-Za-z])[*•xX]+[ .\-]?$|\.\.\.$")
_MASKED_AFTER = re.compile(r"[ .\-]?[*•xX]+(?![A-Za-z])|\.\.\.")
_SAID = re.compile(r"(?i)[:=]|\b(?:is|es|est|ist|è|é|era|was|lautet|sera|son|são|c'est|zijn|are|"
                   r"of|de|du|di|da|do|van|von|my|mi|mon|ma|mein\w*|mio|mia|meu|minha|mijn|his|her|su|sa|son|suo|sua|"
                   r"zijn|haar)\b")  # (or whose it is: "el NIT de mi papá 79.123.456-0")
# A firm's number by the word before its name: "Company Emirates registration ...", "our company's INN".
_A_FIRMS = re.compile(r"(?i)\b(?:company|company's|business|firm|corporate|empresa|firma|soci[ée]t[ée]|entreprise|"
                      r"azienda|bedrijf|unternehmen|companhia)\b\W*(?:\w+\W+)?$")
# What the number is asked for ("preciso pra fatura", "for the invoice", "für die Rechnung"): no firm's number then.
_PURPOSE = re.compile(r"(?i)\b(?:for|pra|para|pour|f[üu]r|per|voor)\s+(?:(?:the|a|o|a|la|le|die|das|de|het|il|el|my|mi|"
                      r"ma|mon|minha|meine|mijn)\s+)?(?:invoice|fatura|factura|facture|fattura|rechnung|factuur)\b")
# How far after the number its name may come: "3 931211 9998 ← isikukood van mijn vrouw".
_AFTER = 70


_ANY_ID = re.compile(f"(?i){ANY_ID}")
_BY_ANY_ID = tuple(name for name, scheme in _SCHEMES.items() if scheme.any_id)
_WHOLE = {name: re.compile(f"(?i){scheme.label}") for name, scheme in _SCHEMES.items()}


def _schemes_named(text: str) -> list[tuple[str, int, int]]:
    named = []
    for match in _LABEL.finditer(text):
        first = match.lastgroup
        named.extend((name, match.start(), match.end()) for name in _schemes_of(first, match.group(first).lower()))
    return named


@lru_cache(maxsize=512)
def _schemes_of(first: str, name: str) -> tuple[str, ...]:
    """The schemes a name stands for: one name may stand for several countries ("cédula", "ID"); the alternation
    stops at the first, the others are tried here (once per name: the same few names come back)."""
    others = tuple(other for other in _SCHEMES if other != first and _WHOLE[other].fullmatch(name))
    if first == "any_id" or _ANY_ID.fullmatch(name):
        others += tuple(other for other in _BY_ANY_ID if other not in others)
    return tuple(other for other in (first, *others) if other != "any_id")


def _readings(number: str) -> list[tuple[int, int, str]]:
    """The number whole, and with a letter that stuck to it dropped (where it starts, ends, its characters)."""
    compact = _SEPARATORS.sub("", number)
    readings = [(0, len(number), compact)]
    if compact[:1].isalpha():
        readings.append((len(number) - len(number[1:].lstrip(" -")), len(number), compact[1:]))
    if compact[-1:].isalpha():
        readings.append((0, len(number.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ").rstrip(" -")),
                         compact[:-1]))
    return readings


def country_id_hits(text: str) -> list[Hit]:
    numbers = list(_NUMBER.finditer(text)) if _SIX_DIGITS.search(text) else []
    named = _schemes_named(text) if numbers else []
    if not named:
        return []
    found = []
    for number in numbers:
        start, end = number.span()
        if _MASKED_BEFORE.search(text, max(0, start - 8), start) or _MASKED_AFTER.match(text, end):
            continue
        readings = _readings(number.group(0))
        for name, label_start, label_end in named:
            scheme = _SCHEMES[name]
            if not (label_end <= start and start - label_end <= scheme.reach or label_start >= end and label_start - end <= _AFTER):
                continue
            # The check first: it is quick, and most numbers fail most countries' checks.
            reading = next(((s, e) for s, e, compact in readings
                            if _SHAPES[name].fullmatch(compact) and scheme.valid(compact)), None)
            if reading is None or (name in _NEEDS and not _NEEDS[name].search(text)):
                continue
            between = text[label_end: start] if label_end <= start else text[end: label_start]
            if LOOK_ALIKE_BEFORE.search(text[max(0, start - 40, label_end if label_end <= start else 0): start]):
                continue  # "order no. 3578...": named by a nearer word ("NHS no. 761 518 8369" is the NHS's)
            if NOT_A_PERSON.search(_PURPOSE.sub(" ", between)) or _A_FIRMS.search(text, max(0, label_start - 30), label_start) or (
                    label_end <= start and numbers_something_else(between)):
                continue
            if label_start >= end and (len(between) > 30 or re.search(r"[,.;!?\n]", between)):
                continue  # a name after the number follows it closely: "3 931211 9998 ← isikukood van mijn vrouw"
            if scheme.reach < 90 and len(between.strip()) > 3 and not _SAID.search(between):
                continue  # a weak check wants its number given: "CI de mi viejo: ...", not "CI build 30687967"
            found.append(Hit("national_id", start + reading[0], start + reading[1]))
            break
    if found and SPECIMEN.search(text):
        found = [hit for hit in found if not SPECIMEN.search(text[max(0, hit.start - 80): hit.end + 80])]
    return found
