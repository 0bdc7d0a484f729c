"""A secret split over two messages: "the wifi password is" ... "Hunter2!".

A message that names a password, PIN or code but gives no value may be the first half of
one (`is_lead`). The chat front end remembers it for a few minutes and reads the next
message as its continuation: first alone, then joined to it ("Das Passwort ist" +
"Slide_garden498!" reads as one sentence), and if neither finds a secret, a lone token
is the value. A message that is nothing but such a label ("my password is", "the code:",
"PIN?", "wifi pw, coming in a sec") `waits_for_value`: it starts no goal on its own, and
the chat holds it until the next message arrives. After a password's label, a few plain
words alone ("walnut basket parade glacier") are a passphrase (`lone_phrase`).
"""

from __future__ import annotations

import re

from deputy.core.secret_scan.answers import QUESTION
from deputy.core.secret_scan.hits import Hit
from deputy.core.secret_scan.country_ids import LABELS as COUNTRY_ID_LABELS
from deputy.core.secret_scan.national_ids import LABELS as ID_LABELS
from deputy.core.secret_scan.passwords import PROSE, STATE_WORDS

_LABEL_WORDS = (r"pass(?:word|wort|wd|code|phrase)?|pwd?|pw|kennwort|mot de passe|mdp|contrase[ñn]a|clave|senha|"
                r"palavra[- ]passe|wachtwoord|has[łl]o|parola(?: d'ordine)?|l[öo]senord|пароль|pin|pin-?code|puk|cvv|cvc|"
                r"geheimzahl|geheimnummer|pin-?nummer|"
                r"wi-?fi[- ]?key|wlan-?schl[üu]ssel|network key|wpa2? key|combination|kombination|combinaison|"
                r"combinaci[óo]n|combinazione|combina[çc][ãa]o|combinatie|"
                r"security code|codes?|c[óo]digos?|codici|codice|otp|tan|token|api[ _-]?key|secret(?: key)?|"
                r"cryptogramme(?: visuel)?|pr[üu]fziffer|pr[üu]fnummer|kartenpr[üu]fnummer|cvv2|cvc2|csc|cid|"
                r"(?:digits|numbers|n[úu]meros|cifras|ziffern|zahlen|chiffres|cifre|numeri|cijfers|d[íi]gitos) "
                r"(?:[\w'’]+ ){0,3}?(?:back|atr[áa]s|detr[áa]s|hinten|r[üu]ckseite|dos|verso|retro|achterkant|achterop|"
                r"costas|tr[áa]s)|"
                r"seed(?: phrase)?|recovery(?: phrase| words)?|iban|ssn|passport|login|username|user|card|karte|carte|tarjeta|"
                r"cart[aã]o|kaart|creds|credentials|zugangsdaten|identifiants")
_LEAD = re.compile(rf"(?i)(?:{_LABEL_WORDS})\b[^\n]{{0,60}}$")
_SECRET_WORD = re.compile(
    r"(?i)\b(?:pass(?:word|wort|wd|code|phrase)?|pwd?|pw|kennwort|mot de passe|mdp|contrase[ñn]a|clave|senha|"
    r"wachtwoord|has[łl]o|parola|l[öo]senord|pin|puk|cvv|cvc|geheimzahl|geheimnummer|pin-?nummer|wi-?fi[- ]?key|wlan-?schl[üu]ssel|network key|wpa2? key|"
    r"combination|kombination|combinaison|combinaci[óo]n|combinazione|combina[çc][ãa]o|combinatie|"
    r"security code|codes?|c[óo]digos?|codici|codice|otp|tan|cryptogramme(?: visuel)?|pr[üu]fziffer|pr[üu]fnummer|"
    r"kartenpr[üu]fnummer|cvv2|cvc2|csc|cid|(?:push|sms|m|chip|photo|app|i|e)-?tan|"
    r"(?:digits|numbers|n[úu]meros|cifras|ziffern|zahlen|chiffres|cifre|numeri|cijfers|d[íi]gitos) (?:[\w'’]+ ){0,3}?"
    r"(?:back|atr[áa]s|detr[áa]s|hinten|r[üu]ckseite|dos|verso|retro|achterkant|achterop|costas|tr[áa]s)|"
    r"token|api[ _-]?key|secret|seed|recovery|card|karte|carte|tarjeta|cart[aã]o|kaart)\b|пароль|パスワード|密码|비밀번호")
_LOGIN_WORD = re.compile(r"(?i)\b(?:login|username|user|iban|ssn|passport|creds|credentials|zugangsdaten|identifiants)\b")
# Other names of secrets: identity numbers, security questions, codes ("Steuer-ID kommt hier", "Bestätigungscode aus der
# SMS", "security answer (first pet)"), but not the codes that are no secret ("promo code", "zip code").
_OTHER_LABEL = re.compile(rf"(?i)(?<![\w-])(?:{ID_LABELS}|{COUNTRY_ID_LABELS})(?!\w)|{QUESTION.pattern.removeprefix('(?i)')}|"
                          r"(?<![\w-])(?P<code>[\w-]*?)(?:codes?|codice|codici|c[óo]digos?|kode|pin)\b")
_NOT_SECRET_CODE = re.compile(r"(?i)^(?:zip|postal|post|area|promo|discount|coupon|voucher|referral|country|error|status|"
                              r"qr|dress|source|tracking|booking|boekings?|buchungs?|reservierungs?|reserverings?|order|product|gift|bar|fehler|rabatt|"
                              r"gutschein|promocional|sconto|kortings?)[\s-]*$")
_NOT_SECRET_CODE_AFTER = re.compile(
    r"(?i)\s*(?:promo(?:cional|zionale)?|postal[e]?|sconto|descuento|desconto|regalo|cadeau|korting|rabatt|qr|"
    r"(?:de|da|do|del|di|della|van|voor)\s+(?:la\s+|de\s+)?(?:r[ée]duction|descuento|desconto|promo[cç][ãa]o|reserva|"
    r"r[ée]servation|prenotazione|boeking|suivi|seguimiento|rastreio|tracciamento|pedido|commande|ordine|cliente?|"
    r"facture|factura|fatura|fattura|produit|producto|produto|prodotto|article|art[íi]culo|articolo|cup[óo]n|cupom|"
    r"coupon|voucher|vale|bon))\b")
# A code named with a booking, an order or a ticket ("confirmation code for the hotel:") is that booking's reference,
# unless it opens something ("door code for the Airbnb", "the code for the hotel wifi").
_OPENS_SOMETHING = re.compile(r"(?i)\b(?:door|wi-?fi|wlan|lock|safe|keypad|key ?box|lockbox|alarm|garage|gate|locker|"
                              r"entry|entrance|building|t[üu]r|haust[üu]r|schloss|tresor|porte|portail|puerta|portal|"
                              r"porta|port[ãa]o|cancello|deur|poort|kluis|cadenas|candado|cadeado|lucchetto|slot|"
                              r"coffre|caja fuerte|cofre|cassaforte)\b")
_OF_A_BOOKING = re.compile(r"(?i)\b(?:hotel|hôtel|flight|flug|vol|vuelo|volo|voo|vlucht|booking|reservation|r[ée]servation|"
                           r"reserva|prenotazione|reservierung|buchung|boeking|reservering|order|bestellung|commande|"
                           r"pedido|ordine|encomenda|bestelling|ticket|billet|biglietto|bilhete|coupon|voucher|gutschein|"
                           r"cup[óo]n|cupom|airbnb|check-?in)\b")
# The value alone, maybe after "it's" or its label, maybe in digit groups ("553 201"), maybe with an aside after it
# ("4471 (don't share)", "4471\nthanks!").
# ("ok hier: 441", "048538 - quello nuovo": a word before, an aside after a dash.)
_LONE = re.compile(r"(?i)\s*(?:(?:ok|okay|oké|oke|so|alors|pues|vale|dunque|allora|ent[ãa]o|also|nou)[,!]?\s+)?"
                   r"(?:(?:now|jetzt|nun|maintenant|d[ée]sormais|ahora|ora|adesso|agora|nu|found it|got it|yes|yep|"
                   r"here you go|gefunden|ja|trouv[ée]|oui|encontr[ée]|s[íi]|trovato|achei|sim|gevonden)[,:!]?\s+)?"
                   r"(?:(?:it'?s|it’s|it is|that'?s|c'est|das ist|voilà|voici|aqui|aquí|ecco|hier|here|is|es|é|è|"
                   r"ist)\s*[:,]?\s+)?(?:(?:pass(?:word)?|pw|pwd|pin|code|key|token|passwort|mdp)\s*[:=]?\s*)?"
                   r"[\"'“‘]?(?P<value>\d{2,4}(?:[ -]\d{2,4}){1,4}|\d{3}|[^\s\"'”’]{4,128}?)[\"'”’]?[.!]?"
                   r"(?:\s*\([^()\n]{1,40}\)|\s*\n[^\n]{1,40}|\s+[-–—]\s+[^\n]{1,40}|(?<=\d),\s+[^\W\d_][^\n\d]{0,40}|\s+\W{1,3})?\s*")
_VERB = r"(?:is|are|was|ist|lautet|est|es|é|è|será|sera|sont|sind|son|são|zijn|wordt|c'est|voici|ecco|aquí|hier)"
# The label ends with a verb or a separator: the value was to follow ("mot de passe :", "a senha é").
_ENDS_OPEN = re.compile(rf"(?i)(?:\b{_VERB}|[:=→>-]|->|\besta|\beste|\bthis|\bdies|\bceci|\bquesto)\s*$")
# "in the next message", "kommt gleich", "coming up": the value is announced for later.
_ANNOUNCED = re.compile(
    r"(?i)\b(?:next (?:msg|message|text)|(?:coming|comes|follows|following|below)\b|in a (?:sec|second|moment|minute)|"
    r"one sec|(?:hang|hold) on|wait|un (?:momento|moment|attimo|segundo)|einen moment|momentje|espera|aspetta|"
    r"attends|warte|let me (?:check|look|find)|i'?ll (?:look|check)|"
    r"kommt(?: gleich)?|folgt|gleich|nächste nachricht|suit|ci-dessous|prochain message|sigue|a continuación|"
    r"siguiente mensaje|segue|a seguir|próxima mensagem|segue|prossimo messaggio|volgt|volgende bericht|hieronder)\b")
# Words that only frame a label ("my", "the wifi", "so you have it"): a message of nothing else waits for its value.
_FILLERS = frozenset("""
my the a an our your his her their this that these here here's is are was it its it's so you have has keep safe
for to of on in at and with just now please pls ok okay also new old current
mein meine meinen unser unsere das der die den dem ist lautet hier für von vom und auch neue alte
mon ma mes notre le la les l est voici voilà pour du de des et aussi nouveau nouvelle
mi mis nuestro nuestra el los las es aquí para del y también nuevo nueva
il lo mio mia nostro nostra è ecco per di del della e anche nuovo nuova
meu minha nosso nossa o os as é aqui do da e também novo nova
mijn ons onze het de een hier voor van en ook nieuwe
wifi wi-fi wlan router network home work office bank email e-mail mail account door alarm safe phone laptop
gate garage tor tür haustür garagentor porte portail puerta portón portal porta portão cancello portone deur poort hek
alarme alarma allarme alarmanlage kluis sleutelkluis tresor coffre cofre cassaforte caja fuerte sim
computer debit credit visa mastercard amex server database db vpn wallet admin root key phrase words number
details info no nr nº numéro número numero nummer
""".split())
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


# A request someone else made ("> Please reply with your OIB", "> what's your SIM PUK?").
_ASKS = re.compile(r"(?i)\?|\b(?:please|pls|send|reply|give|provide|bitte|schick|sende|antworte|merci de|envoyez|"
                   r"envoie|por favor|env[íi]a|manda|per favore|invia|mandami|graag|stuur|envie)\b")


def is_lead(text: str) -> bool:
    """True when `text` names a secret but may be waiting for its value in the next message.

    "the wifi password is" and "password in next msg" wait; "my lock code is wombat-2468" gave its
    value already; "router login: admin" gave the user name, so the password is still to come.
    """
    if len(text) > 240:
        return False
    last = text.rstrip().rsplit("\n", 1)[-1].lstrip()
    if last.startswith(">") and _ASKS.search(last) and (_SECRET_WORD.search(last) or _names_another_secret(last)):
        return True  # a forwarded request ("> what's your SIM PUK?"): the user's next message answers someone else
    if text.rstrip().endswith("?"):
        return _only_label(text)  # "PIN?" asks for nothing; "what is my pin?" is a question
    if _LEAD.search(text[-120:]) is None:
        return len(text) <= 120 and _names_another_secret(text)
    secret_words = list(_SECRET_WORD.finditer(text))
    if secret_words and secret_words[-1].group(0).lower() in ("code", "codes") and _NOT_SECRET_CODE.match(
            text[max(0, secret_words[-1].start() - 20): secret_words[-1].start()].split()[-1:][0] if
            text[: secret_words[-1].start()].split() else ""):
        return False  # "send me the promo code": its value is no secret
    if secret_words and _NOT_SECRET_CODE_AFTER.match(text, secret_words[-1].end()):
        return False  # "code promo :", "código postal", "codice sconto": named after the word, the same
    if secret_words and re.fullmatch(r"(?i)codes?|c[óo]digos?|codice|codici", secret_words[-1].group(0)) and \
            _OF_A_BOOKING.search(text) and not _OPENS_SOMETHING.search(text):
        return False
    if not secret_words:
        return bool(_LOGIN_WORD.search(text)) or _names_another_secret(text)
    tail = text[secret_words[-1].start():]
    # "pin ... aquí para que lo tengas:", "la password è cambiata, la nuova è": the value is still to come.
    return (tail.rstrip().endswith((":", "->", "→")) or bool(_ENDS_OPEN.search(tail.rstrip()))
            or bool(_ANNOUNCED.search(tail)) or not _has_value(tail))  # "the CVV is on the back, one sec"


def _names_another_secret(text: str) -> bool:
    if re.search(r"\d{3}", text):
        return False  # a number is there already
    for match in _OTHER_LABEL.finditer(text):
        if match.group("code") is None or not _NOT_SECRET_CODE.match(match.group("code")):
            return True
    return False


def waits_for_value(text: str) -> bool:
    """True when `text` is only a label waiting for its value: it should start nothing on its own.

    "my password is", "the code:", "PIN?", "the wifi pw, so you have it", "PIN kommt gleich" wait;
    "reset my github password" and "log in to my bank, I forgot the password" are goals (they
    are still leads: a lone token right after them is read as the value).
    """
    if not is_lead(text):
        return False
    stripped = text.strip()
    return bool(_ENDS_OPEN.search(stripped) or _ANNOUNCED.search(stripped) or _only_label(stripped, allowed=1))


def _only_label(text: str, allowed: int = 0) -> bool:
    """Whether `text` is a secret's label and framing words, with at most `allowed` other words (a service's name).

    The other word may not come first: "my netflix password" is a label, "change my password" a goal.
    """
    if len(text) > 80 or (_SECRET_WORD.search(text) is None and _LOGIN_WORD.search(text) is None
                          and not _names_another_secret(text)):
        return False
    bare = re.sub(r"\([^)\n]*\)", " ", text)  # "security answer (first pet)": the aside is part of the label
    bare = _OTHER_LABEL.sub(" _ ", _SECRET_WORD.sub(" _ ", _LOGIN_WORD.sub(" _ ", bare)))
    words = _WORD.findall(bare.lower())
    others = [i for i, w in enumerate(words) if w != "_" and w not in _FILLERS and w.rstrip("s").rstrip("'’") not in _FILLERS]
    return len(others) <= allowed and 0 not in others


def _has_value(tail: str) -> bool:
    """Whether a word after the lead's "is" / ":" already is the value."""
    parts = re.split(rf"(?i)\b{_VERB}\b|[:=]", tail, maxsplit=1)
    if len(parts) != 2:
        return False
    rest = parts[1].strip(" .!,;:=-–\n")
    return bool(rest) and not _ANNOUNCED.fullmatch(rest) and not re.fullmatch(r"(?i)(?:esta|este|this|dies|ceci|questo)",
                                                                                rest)


def lone_value(text: str) -> Hit | None:
    """The next message, if it is a single token: the value the lead announced."""
    if text.lstrip().startswith("/"):
        return None  # a command ("/lock") is never the second half of a secret
    match = _LONE.fullmatch(text)
    if match is None:
        return None
    value = match.group("value")
    if not (re.search(r"[\d\W_]", value) or (re.search(r"[a-z]", value) and re.search(r"[A-Z]", value[1:]))):
        return None  # "thanks", "Great": a reply, not a password (those have digits, symbols or inner capitals)
    return Hit("password", *match.span("value"))


# A passphrase sent after its label: a few plain words ("walnut basket parade glacier"). Only after a label that names
# a password, and only words that are no reply: "thanks, got it", "ok see you later" answer, they are no phrase.
_PASSWORD_LABEL = re.compile(r"(?i)\b(?:pass(?:word|wort|phrase|code)?|pwd?|pw|kennwort|mot de passe|mdp|contrase[ñn]a|"
                             r"clave|senha|palavra[- ]passe|wachtwoord|parola d'ordine|passphrase|mnemonic)\b")
_PHRASE = re.compile(r"\s*(?P<value>[a-z]{3,12}(?:[ -][a-z]{3,12}){2,7})\s*[.!]?\s*")
_REPLIES = frozenset("""thanks thank thx cheers great good nice cool sure yes yeah yep nope sorry later tomorrow tonight
soon see will send sent got get give tell call text wait sec moment minute done perfect awesome lol haha hmm okay
danke bitte gut super genau gleich morgen später merci bien oui non demain gracias vale bueno claro luego mañana
grazie bene dopo domani obrigado obrigada bom depois amanhã dank goed prima straks morgen""".split())


def lone_phrase(lead: str, text: str) -> Hit | None:
    """The next message after a password's label, if it is a passphrase of three to eight plain words."""
    match = _PHRASE.fullmatch(text)
    if match is None or _PASSWORD_LABEL.search(lead) is None:
        return None
    words = re.split(r"[ -]", match.group("value"))
    if any(w in PROSE or w in _FILLERS or w in _REPLIES for w in words):
        return None
    if sum(w in STATE_WORDS for w in words) > (1 if len(words) >= 4 else 0):
        return None  # "correct horse battery staple" is one; "wrong again sorry" is a reply
    return Hit("password", *match.span("value"))
