"""Codes that open things, said the way people say them: a safe's, a gate's, a key box's, a bike lock's, an alarm
panel's code.

"De code van het sleutelkastje bij oma is 4729", "the code to turn off the smoke alarm panel at the shop is
419545", "Zahlenschloss am Fahrradkeller: 6160", "the 4 digits for the box are 9039". The one-time-code reader
(`words`) wants its value close to the word "code"; here the words between may be many when they name a thing
that a code opens, and a combination lock or a key box needs no word "code" at all. Numbers of a locker, a room
or a bus stay: they follow their noun straight ("locker 214"), with no "is" or colon that gives a code.
"""

from __future__ import annotations

import re

from deputy.core.secret_scan.hits import Hit

# What a code opens or switches off, in the seven languages.
_THING = (r"door|front door|gate|garage|garage door|safe|locker|lock|padlock|key ?box|lock ?box|key ?safe|alarm|"
          r"alarm panel|keypad|barrier|bike lock|voicemail|mailbox|letterbox|"
          r"t[üu]r|haust[üu]r|tor|garagentor|tresor|safe|spind|schloss|vorh[äa]ngeschloss|schl[üu]ssel(?:kasten|box|"
          r"tresor|safe)|alarmanlage|schranke|mailbox|briefkasten|"
          r"porte|portail|garage|coffre(?:-fort)?|casier|cadenas|bo[îi]te (?:[àa] cl[ée]s|aux lettres)|alarme|barri[èe]re|"
          r"messagerie|puerta|port[óo]n|portal|garaje|caja fuerte|taquilla|casillero|candado|caja de llaves|alarma|"
          r"barrera|buz[óo]n|porta|portone|cancello|garage|cassaforte|armadietto|lucchetto|cassetta (?:delle )?chiavi|"
          r"allarme|sbarra|segreteria|port[ãa]o|garagem|cofre|cacifo|cadeado|caixa (?:de|das) chaves|alarme|cancela|"
          r"deur|voordeur|poort|garagedeur|kluis|kluisje|slot|fietsslot|hangslot|sleutel(?:kastje|kluis|kast)|"
          r"alarm|hek|slagboom|voicemail|brievenbus|"
          # what opens them from afar, and German compounds of the garage's ("Garagenfernbedienung")
          r"remote|garage remote|garagen\w*|fernbedienung|t[ée]l[ée]commande|mando|telecomando|comando|afstandsbediening|"
          r"bo[îi]tier [àa] cl[ée]s")
# A code as it is said: digits, or a combination's numbers in groups ("12-24-36", "3-1-4").
_CODE_VALUE = r"(?P<value>\d{1,2}(?:[ -]\d{1,2}){2,3}(?![ -]?\d)|\d{3,8})(?![\w-]|[.,]\d)"
# A lock that is opened by a number: its name alone says the number after it is the code.
_COMBINATION_LOCK = re.compile(
    r"(?i)\b(?:combination lock|code lock|number lock|bike lock|key ?box|lock ?box|key ?safe|"
    r"zahlenschloss|kombinationsschloss|codeschloss|fahrradschloss|schl[üu]ssel(?:kasten|box|tresor|safe)|"
    r"cadenas (?:[àa] code|du v[ée]lo|de v[ée]lo)|bo[îi]te [àa] cl[ée]s|"
    r"candado (?:de (?:combinaci[óo]n|la bici|bici)|num[ée]rico)|caja de llaves|"
    r"lucchetto (?:a combinazione|della bici|della bicicletta)|cassetta (?:delle )?chiavi|"
    r"cadeado (?:de (?:segredo|combina[çc][ãa]o)|da bicicleta|da bici)|caixa (?:de|das) chaves|"
    r"cijferslot|codeslot|combinatieslot|fietsslot|sleutel(?:kastje|kluis|kast)|"
    r"luggage lock|suitcase lock|tsa lock|kofferschloss|cadenas de (?:la )?valise|candado de (?:la )?maleta|"
    r"lucchetto della valigia|cadeado da mala|kofferslot|bo[îi]tier [àa] cl[ée]s)\b"
    r"[^\d\n.?!]{0,40}?(?:[:=]|\b(?:is|ist|lautet|est|es|è|é|zijn|are|sind|sont|son|sono|são)\b|"
    r"\b(?:code|combination|combo|combinaison|kombination|combinaci[óo]n|combinazione|combina[çc][ãa]o|combinatie|"
    r"pin|(?:die |the |les |los |le |i |de |os )?(?:zahlen|numbers|digits|chiffres|n[úu]meros|numeri|cijfers))\b|"
    r"(?=\d{4}))\s*" + _CODE_VALUE)
# (Its code, or four digits or more right after it: "lucchetto della bici 4412"; three are a locker's number.)
# "the code to turn off the smoke alarm panel at the shop is 419545": a code word, a thing it opens, then the value.
_CODE_OF_A_THING = re.compile(
    r"(?i)\b(?:code|codes|c[óo]digo|codice|kode|pin|clave|chiave|chave|combination|combinaison|kombination|combinaci[óo]n|combinazione|"
    r"combina[çc][ãa]o|combinatie|zahlenkombination|cijfercode)\b"
    rf"(?P<gap>[^\d\n.?!]{{0,70}}?\b(?:{_THING})\b[^\d\n.?!]{{0,40}}?)"
    r"(?:[:=]|\b(?:is|ist|lautet|est|es|è|é|zijn|are|sind|sont|son|sono|são)\b|(?=\d{4}))\s*" + _CODE_VALUE)
# "het hek van de parkeerplaats gaat open met 1942", "la barrera del parking se abre con 2255".
_OPENS_WITH = re.compile(
    rf"(?i)\b(?:{_THING})\b[^\d\n.?!]{{0,40}}?\b(?:opens? with|unlocks? with|gaat open met|opent met|"
    r"se abre con|abre con|si apre con|s'ouvre avec|ouvre avec|[öo]ffnet(?: sich)? mit|aufmachen mit|abre com|"
    r"se abre com)\s*" + _CODE_VALUE)
# (With no "is" or colon, only four digits or more: "code for gate 12" is the gate's number.)
# "Front door keypad: 80009", "caja fuerte del hotel → 3535": the thing, a colon or an arrow, and four digits or more.
_GIVEN = re.compile(r"(?:[:=]|→|->|=>)[ \t]*(?P<value>\d{4,8})(?![\w-]|[.,:/]\d)")
_THING_BEFORE = re.compile(rf"(?i)\b(?:{_THING})\b[^\d\n.?!:→=]{{0,30}}?[ \t]*[-=]?$")
# "both codes for the flat:\n- building 6637\n- flat door 684172": a line that names codes, then a list of them.
_CODES_HEADER = re.compile(
    r"(?i)\b(?:codes|c[óo]digos|codici|combinations|combinaisons|combinaciones|combinazioni|combina[çc][õo]es|"
    r"combinaties|kombinationen|pins|pin-?codes|zugangscodes|t[üu]rcodes|deurcodes)\b[^\n]{0,40}:[ \t]*\n")
# Things that carry a number of their own ("Locker: 2145", "Gate: 1234"): a colon after them gives that number.
_NUMBERED = re.compile(r"(?i)(?:gate|locker|casier|taquilla|casillero|armadietto|cacifo|kluisje|spind|hek)\b")
_OPEN_LINE = re.compile(r":[ \t]*\n")
_LISTED = re.compile(r"[ \t]*(?:[-*•·]|\d[.)])?[ \t]*[^\W\d_][^\d\n]{0,30}?[:=→-]?[ \t]*(?P<value>\d{3,8})"
                     r"(?![\w-]|[.,:/]\d)[^\n]{0,30}(?:\n|$)")
# "the 4 digits for the box are 9039", "die vier Ziffern für das Schloss: 4711": a code given as so many digits,
# and exactly that many.
_COUNTS = {"3": 3, "4": 4, "5": 5, "6": 6, "three": 3, "four": 4, "five": 5, "six": 6, "drei": 3, "vier": 4,
           "fünf": 5, "funf": 5, "sechs": 6, "trois": 3, "quatre": 4, "cinq": 5, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6,
           "tre": 3, "quattro": 4, "sei": 6, "três": 3, "quatro": 4, "drie": 3, "zes": 6}
_N_DIGITS = re.compile(
    r"(?i)\b(?P<count>[3-6]|three|four|five|six|drei|vier|f[üu]nf|sechs|trois|quatre|cinq|six|tres|cuatro|cinco|seis|"
    r"tre|quattro|sei|tr[êe]s|quatro|drie|zes)\s+(?:digits|numbers|ziffern|zahlen|chiffres|d[íi]gitos|cifras|"
    r"n[úu]meros|cifre|numeri|cijfers)\s+(?:for|of|to|f[üu]r|vom|von|pour|de|du|para|del|de la|per|della|dello|"
    r"do|da|voor|van)\b[^\d\n.?!]{0,40}?(?:[:=]|\b(?:is|are|ist|sind|lautet|est|sont|es|son|è|sono|é|são|is|zijn)\b)"
    r"\s*(?P<value>\d{3,6})(?![\w-]|[.,]\d)")
_HINTS = ("cod", "clave", "chiave", "chave", "cód", "pin", "comb", "kombin", "schloss", "slot", "lock", "box", "safe", "valise", "maleta", "mala", "kastje", "kluis", "cadenas",
          "candado", "lucchetto", "cadeado", "chiavi", "chaves", "clés", "llaves", "digit", "ziffer", "chiffre",
          "dígito", "digito", "cifr", "cijfer", "numer", "númer", "number", "zahlen", "open", "ouvr", "abre", "apre",
          "öffn", "offn", "aufmach")


def lock_code_hits(text: str) -> list[Hit]:
    found = [Hit("password", *m.span("value")) for m in _GIVEN.finditer(text)
             if (thing := _THING_BEFORE.search(text, max(0, m.start() - 60), m.start()))
             and not _NUMBERED.match(thing.group(0))]
    if "\n" in text and _OPEN_LINE.search(text):
        for header in _CODES_HEADER.finditer(text):
            position = header.end()
            while (item := _LISTED.match(text, position)) is not None and item.end() > position:
                found.append(Hit("password", *item.span("value")))
                position = item.end()
    lowered = text.lower()
    if not any(hint in lowered for hint in _HINTS):
        return found
    found.extend(Hit("password", *m.span("value")) for m in _COMBINATION_LOCK.finditer(text))
    found.extend(Hit("password", *m.span("value")) for m in _CODE_OF_A_THING.finditer(text))
    found.extend(Hit("password", *m.span("value")) for m in _OPENS_WITH.finditer(text))
    found.extend(Hit("password", *m.span("value")) for m in _N_DIGITS.finditer(text)
                 if len(m.group("value")) == _COUNTS.get(m.group("count").lower()))
    return found
