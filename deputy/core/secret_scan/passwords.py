"""Passwords and logins written into a sentence, in the ways people actually type them.

A password after its word and a verb or a colon ("the wifi password's hunter2", "pw: hunter2",
"Passwort ist Sonne123", "mot de passe : soleil42", "密码是abc123"), before "is my password",
"use X as the password", "it's X for the wifi"; a login as "name / password" or "user:pass".
It stays quiet on talk about passwords without one ("I forgot my password", "the password is
wrong", "mein Passwort ist falsch") and on "boarding pass: gate 12".
"""

from __future__ import annotations

import re
from itertools import islice

from deputy.core.secret_scan.hits import Hit
from deputy.core.secret_scan.structured import placeholder

_WORD = (r"(?:pas+w(?:or|ro|o|r)[dt]|passowrd|pass(?:word|wort|wd|phrase|code|cord)?|pword|pwd?|p/w|mdp|"
         r"mot de pass?e?|contrase[ñn]a|clave|senha|ww|"
         r"palavra[- ]passe|kennwort|wachtwoord|has[łl]o|parola(?: d'ordine)?|l[öo]senord|adgangskode|passord|"
         r"salasana|heslo|jelsz[óo]|[şs]ifre|пароль|パスワード|密码|密碼|비밀번호|كلمة المرور|סיסמה|पासवर्ड|"
         r"m[ậa]t kh[ẩa]u|kata sandi|wi-?fi key|network key|wpa2? key|(?:wlan|wi-?fi|netzwerk|wpa2?)[- ]?schl[üu]ssel|"
         r"cl[ée] (?:wi-?fi|wpa2?|r[ée]seau)|clave (?:wi-?fi|wpa2?|de red)|chiave (?:wi-?fi|wpa2?)|"
         r"chave (?:wi-?fi|wpa2?)|wi-?fi[- ]?sleutel|netwerksleutel|pin|"
         # a passphrase's own name; "contra", Spanish chat's short word, only as "contra del insta:"
         r"phrase de passe|frase de contrase[ñn]a|frase (?:segreta|d'accesso|de acesso)|wachtzin|"
         r"contra(?=\s+(?:del?|de la|da|do)\s+\S+\s*:))")
KEYWORD = re.compile(rf"(?i)(?<![A-Za-z]){_WORD}")
_VALUE = r"(?P<value>[\"'“‘«`]?[^\s\"'”’»`]{3,128})"
_VERBS = (r"'s|’s|\bis(?:\s+now)?\b|\bwas\b|\bwill be\b|\bshould be\b|\bist\b|\best\b|\bes\b|\bé\b|\bè\b|\bis\b|"
          r"\bjest\b|\bär\b|\bdeve ser\b|\bsera\b|\blautet\b|\bheißt\b|\bwordt\b|"
          r"\bes\s+la\b|\bc'est\b|\bэто\b|\b—\b|是|为|は|는|은|:|=|(?<=\s)[-–](?=\s)|→|->")
# After the word: maybe "for the office printer" / "du wifi" / "de mi cuenta", then a verb or separator.
_EXPLICIT = re.compile(
    r"(?i)(?:\s+(?:for|to|of|on|at|du|de|del|de la|des|für|fürs|vom|von|van|voor|per|da|do|della|dla|för|til|"
    r"для|от)\s+(?:[\w.@'-]+\s+){0,3}?[\w.@-]+(?:\s*(?:" + _VERBS.removeprefix("'s|’s|") + r"))+"
    rf"|[\"'`]?(?:\s*(?:{_VERBS}))+)\s*{_VALUE}"
)
# (After "for tomorrow" an "'s" is the possessive of what follows, "the passcode for tomorrow's Zoom is K7tOIP";
# a JSON key's closing quote may stand between the word and its colon, "password": "vK%Uvd*!#2re".)
_SPACED = re.compile(rf"\s+{_VALUE}")
_BOTH_NAMED = re.compile(r"(?i)\b(?:user(?:name)?|login|e-?mail|benutzer(?:name)?|nutzername|usuario|utilisateur|"
                         r"identifiant|utente|nome utente|gebruikersnaam|usu[áa]rio)\s*(?:and|&|und|et|y|e|en|\+|/)\s*"
                         r"(?:(?:the|das|le|la|el|il|o|a|het|de)\s+)?$")
_SECOND = re.compile(rf"\s*[/|,]?\s*{_VALUE}")
_BEFORE = re.compile(r"(?i)(?<![^\s\"'“‘])(?P<value>[^\s\"'“”]{4,128})[\"'”’]?\s+(?:is|was|as|ist|est|es)\s+"
                     r"(?:my|the|our|your|mein|meine|das|le|la|mon|ma|mi|el)\s+(?:\w+\s+)?"
                     r"(?:password|passcode|passwort|kennwort|mot de passe|contraseña|pin|pw|pwd)\b")
_USE_AS = re.compile(r"(?i)\buse\s+[\"'“‘]?(?P<value>[^\s\"'”’]{4,128})[\"'”’]?\s+as\s+(?:the|my|a)\s+(?:\w+\s+)?"
                     r"(?:password|passcode|pin)\b")
_FOR_THE = re.compile(r"(?i)\b(?:it'?s|it’s|it is|that'?s|use|try)\s+[\"'“‘]?(?P<value>[^\s\"'”’]{6,128}?)[\"'”’]?\s+"
                      r"(?:for|on)\s+(?:the|my|our)\s+(?:wi-?fi|router|network|door|alarm|safe|laptop|computer|account|login)\b")
# (Not after "SSID" or "network name": that is the network's name, "the wifi SSID is FRITZ!Box 7590 XY".)
_WIFI = re.compile(r"(?i)\b(?:wi-?fi|wlan|router|hotspot)\b\s*(?:is|:|=|'s|’s|ist|est|es)\s*"
                   r"[\"'“‘]?(?P<value>[^\s\"'”’]{6,128})")
_PASSPHRASE = re.compile(r"(?i)\b(?:password|passphrase|passwort|pw|mot de passe|contraseña)\s*(?:is|:|=|ist|est|es)\s+"
                         r"(?P<value>[a-z]+(?:\s+[a-z]+){2,5})\s*[.!]?$")
# "Das Passwort sind drei Wörter mit Leerzeichen: meadow canyon walnut": the label's clause, a colon, the words.
_PHRASE_AFTER = re.compile(r"(?i)\b(?:password|passphrase|passwort|kennwort|mot de passe|phrase de passe|contraseña|"
                           r"senha|wachtwoord|parola d'ordine|clave)\b[^\n:.?!]{0,60}:\s*"
                           r"(?P<value>[a-z]{3,12}(?:\s+[a-z]{3,12}){2,5})\s*[.!]?$")
_USE_LAST = re.compile(r"(?i)\buse\s+(?P<value>[^\s,]{6,64}?)\s*[.!]?$")
_NOT_PASSWORD_PREFIX = re.compile(
    r"(?i)(?:boarding|bus|train|rail|day|season|ski|mountain|hall|press|free|back|by|festival|guest|gate|"
    r"park|museum|transit|travel|weekly|monthly|annual|all-access|backstage|hall|e-?z|fast|golden|mobility)[\s-]*$"
)
# What follows "password is ..." when nobody is saying the password (in the languages above).
STATE_WORDS = frozenset("""
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
falsch richtig vergessen abgelaufen geändert ungültig gesperrt zu nicht kein keine der die das mein meine
faux incorrect incorrecte oublié expiré changé bloqué trop pas le la les mon ma mes un une
incorrecta incorrecto olvidada olvidado caducada cambiada bloqueada muy no mi el los las
errada errado esquecida expirada bloqueada muito
sbagliata dimenticata scaduta bloccata troppo non
fout vergeten verlopen geblokkeerd te niet
błędne zapomniałem wygasło
fel glömt
неверный неправильный забыл
wifi wi-fi router network reset-link requirement requirements: 8 6 12
ci-dessous ci-après dessous hieronder abajo sotto abaixo unten folgt suit segue sigue volgt follows following
idk dunno idea clue remember know knew weiß weiss weiß. keine ahnung sais sait rappelle souviens idée sé recuerdo acuerdo
idea. ricordo ricordo. so sei lembro lembro. sabe sei. weet herinner geen idee não nao nem nunca nie jamais nunca mai
password passwords passwort pw pwd pass passcode pin code login username user mdp contraseña senha
""".split())
# Words of a sentence about the password, not the password: "is the one we discussed", "ist dasselbe wie",
# "es la misma de siempre", "est dans le gestionnaire", "voir post-it", "è quella che", "is printed on the back".
PROSE = frozenset("""
the a an one same as on in at by under behind inside with we you i he she they it that this which what who there
here see look check ask printed written saved stored kept taped stuck
der die das dem den ein eine einen dasselbe derselbe dieselbe gleiche gleich wie beim im auf unter hinter steht siehe
schau frag
el la los las un una uno mismo misma igual que como en de del sobre debajo detrás está ver mira pregunta
le les une même dans sur sous derrière comme voir regarde demande celui celle
il lo gli stesso stessa quella quello che come su sotto dietro vedi guarda chiedi
o os as um uma mesmo mesma aquela aquele em no na sob atrás veja
het een dezelfde hetzelfde dat zoals op onder achter zie kijk vraag
je j' ich ik yo io eu
""".split())
PUBLIC_KEY_BEFORE = re.compile(r"(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-\S+|sk-ssh-\S+)\s+$")


def is_value(value: str, after: str = "") -> bool:
    """Whether `value` (followed by `after`) is a password, not words about one, a mask or a placeholder."""
    value = value.strip("\"'“”‘’«».,;:!?)(")
    if len(value) < 3 or value.lower() in STATE_WORDS or not value.strip("*•·x.") or placeholder(value):
        return False  # talk about a password, or one shown masked
    if value.isalpha() and value.islower() and (value in PROSE or after.split()[:1] and after.split()[0].lower() in PROSE):
        return False  # "is printed on the back", "ist dasselbe wie beim letzten Mal": a sentence goes on
    return not value.lower().startswith(("http://", "https://", "<", "["))


def value_span(match: re.Match[str]) -> tuple[int, int]:
    start, end = match.span("value")
    value = match.group("value")
    return start + (len(value) - len(value.lstrip("\"'“‘«`"))), end - (len(value) - len(value.rstrip("\"'”’».,;:!?)`")))


_TOKEN = re.compile(r"\S+")
# ("-@gg*3BNGtZqObIi" is one: an "@" only rules a word out in an address or a handle, "bob@mail.com", "@bob".)
_NOT_A_PASSWORD_SHAPE = re.compile(r"[\d.,:/-]+(?:am|pm|h|€|\$|%)?|[\d]+(?:st|nd|rd|th)|.*(?:://|;).*|(?-i:[a-z_][a-z0-9_.-]*|[A-Z_][A-Z0-9_.-]*|[A-Za-z_.-]+)=.*|"
                                   r"[^=]*=|"
                                   r"[^@\s]*@[\w-]+(?:\.[\w-]+)+|@[\w.]+|(?-i:[a-z0-9._-]+@[a-z0-9._-]+)|"
                                   r"(?:[\w-]+\.)+[a-z]{2,}\b.*|(?-i:[a-z][a-z.-]*):[\d.]+|"  # "postgres:16"
                                   r"(?-i:[A-Z][A-Z0-9]{1,9})-\d{1,6}", re.I)  # "PROJ-1234": an issue's key
_NAMES_A_THING = re.compile(r"(?i)^(?:user(?:name)?|account|acct|order|ticket|number|no\.?|nr\.?|id|#|ref|room|"
                            r"flight|code|case|version|v)$")


def password_shaped(token: str) -> bool:
    """A token people choose as a password: letters with digits or symbols ("zebra961", "Tortuga03#")."""
    if len(token) < 5 or _NOT_A_PASSWORD_SHAPE.fullmatch(token) or placeholder(token) or re.fullmatch(r"\d+[A-Z][a-z]+", token):
        return False  # "1Password", "7Eleven": a name
    if re.fullmatch(r"[^\W\d_]+(?:-[^\W\d_]+)+", token):
        return False  # "Gäste-WLAN", "Wi-Fi", "Coca-Cola": words joined by a hyphen name a thing
    letters, digits = sum(c.isalpha() for c in token), sum(c.isdigit() for c in token)
    symbols = len(token) - letters - digits
    return letters >= 2 and (digits >= 1 or (symbols >= 1 and any(c.isupper() for c in token[1:])))


def _nearby(text: str, end: int) -> Hit | None:
    """After a password's name, within its clause: the first password-shaped word ("contrasena del portal zebra961",
    "passcode Zoom per la riunione di domani: 7hrw9AdyR", "contraseña nueva es Tortuga03#", "password to panda821")."""
    clause = re.split(r"[.?!\n](?:\s|$)", text[end: end + 100], maxsplit=1)[0]
    previous, named = "", ""
    for count, token in enumerate(_TOKEN.finditer(clause)):
        if count >= 8:
            break
        word = token.group(0).strip(",;()«»\"'“”‘’`{}[]")
        if word.endswith(":") and count + 1 == len(clause.split()):
            break  # "Das Passwort fürs Gäste-WLAN:": the label ends with the thing's name, its value is still to come
        if (password_shaped(word.rstrip(".!?:")) or (previous.endswith(":") or previous in (":", "=", "→"))
                and re.fullmatch(r"\d{4,12}", word.rstrip(".!?:")) and named.lower() not in STATE_WORDS) \
                and not _NAMES_A_THING.match(previous):
            begin = end + token.start() + token.group(0).index(word)
            return Hit("password", begin, begin + len(word.rstrip(".!?:")))
        if word not in (":", "=", "→"):
            named = word.rstrip(":")  # the last word of the label: "policy: 12345" is no password's value
        previous = word if word in (":", "=", "→") or word.endswith(":") and len(word) > 1 else word.rstrip(":")
    return None


def _random_case(value: str) -> bool:
    """Capitals with digits, or capitals scattered through lower case ("mvPgVsCX"), as generated passwords have."""
    inner_capitals = sum(c.isupper() for c in value[1:])
    return bool(re.search(r"[A-Z]", value)) and (bool(re.search(r"\d", value))
                                                  or (inner_capitals >= 3 and sum(c.islower() for c in value) >= 2))


_CLOSING = {"\"": "\"", "'": "'", "“": "”", "‘": "’", "«": "»", "`": "`"}


def _quoted(text: str, match: re.Match[str]) -> Hit:
    """A quoted value, up to its closing quote on the same line: '"password": "hunter 2"' is all of "hunter 2"."""
    start = match.start("value") + 1
    close = text.find(_CLOSING[text[start - 1]], start, min(len(text), start + 128))
    if close > start and "\n" not in text[start: close]:
        return Hit("password", start, close)
    return Hit("password", *value_span(match))


def password_hits(text: str) -> list[Hit]:
    found = []
    for keyword in islice(KEYWORD.finditer(text), 64):  # a chat message says a password once or twice
        word, before = keyword.group(0).lower(), text[max(0, keyword.start() - 40): keyword.start()]
        following = text[keyword.end(): keyword.end() + 1]
        if (following.isalpha() and following.isascii()) or _NOT_PASSWORD_PREFIX.search(before):
            continue  # "passenger", "boarding pass: gate 12"
        if inside_address(text, keyword.start()):
            continue  # "postgres://USER:PASSWORD@HOST": the address's own parts are read by structured.py
        if re.match(r"_[A-Za-z]", text[keyword.end(): keyword.end() + 2]) or "/" in _token_before(text, keyword.start()):
            continue  # "POSTGRES_PASSWORD_FILE", "/run/secrets/postgres-passwd": a setting's or a file's name
        explicit = _EXPLICIT.match(text, keyword.end())
        if explicit and _BOTH_NAMED.search(before):
            # "username and password for the portal: emma.b hunter22": the name comes first, then the password.
            second = _SECOND.match(text, explicit.end())
            if second and password_shaped(second.group("value").rstrip(".,;:!?)")):
                found.append(Hit("login", *value_span(second)))
                continue
        match = explicit or _SPACED.match(text, keyword.end())
        if word == "contra" and not (match and password_shaped(match.group("value").strip("\"'“”‘’«».,;:!?)("))):
            continue  # "contra del insta: Bruno_86Z" is Spanish chat's password; "contra" is "against" too
        if word != "pin" and (explicit is None or not is_value(explicit.group("value"), text[explicit.end(): explicit.end() + 20])):
            near = _nearby(text, keyword.end())
            if near is not None:
                found.append(near)
                continue
        if match is None:
            continue
        value = match.group("value")
        if word == "pin":
            if re.fullmatch(r"[\"'“‘]?\d{4,8}[\"'”’.,;!]?", value):
                found.append(Hit("card_code", *value_span(match)))
            continue  # "pin the meeting", "PIN is on the back": only digits are a PIN
        if word == "pass" and not explicit:
            continue  # "I'll pass on that": only "pass: x", "pass is x" say one
        if value[0] in "\"'“‘«`" and len(value.strip("\"'“”‘’«»`")) >= 3:
            found.append(_quoted(text, match))
            continue  # a quoted value is the password, whatever word it is
        # "password hunter2" or "with password admin" say one; "the pwd command" does not.
        said = explicit or re.search(r"(?i)\b(?:with|using)\s+(?:the\s+|a\s+)?$", before)
        if not said and not re.search(r"[\d\W_]", value.strip(".,;:!?")):
            continue
        if is_value(value, text[match.end(): match.end() + 20]):
            found.append(Hit("password", *value_span(match)))
    for match in (*_PASSPHRASE.finditer(text), *(_PHRASE_AFTER.finditer(text) if ":" in text else ())):  # "password is correct horse battery staple"
        words = [word.lower() for word in match.group("value").split()]
        if sum(word in STATE_WORDS for word in words) <= 1 and not any(word in PROSE for word in words):
            found.append(Hit("password", *match.span("value")))
    last = _USE_LAST.search(text) if found or re.search(r"(?i)pass|pw", text) else None
    if last and _random_case(last.group("value")):
        found.append(Hit("password", *last.span("value")))  # "..., no wait, use mvPgVsCX"
    for pattern in (_BEFORE, _USE_AS, _FOR_THE, _WIFI):
        found.extend(Hit("password", *value_span(m)) for m in pattern.finditer(text)
                     if is_value(m.group("value"), text[m.end(): m.end() + 20])
                     and (pattern is not _WIFI or (re.search(r"[\d\W_]", m.group("value"))
                                                   and not KEYWORD.search(text, m.end()))))
    # ("The Wi-Fi is CasaRossi_5G, the password is ...": with a password named after it, "the wifi is" named the network.)
    found.extend(_generated(text))
    return found


_LONG_TOKEN = re.compile(r"(?<!\S)[\"'“‘(`«\[{]*(?P<value>[^\s\"'“”‘’`«»]{10,64}?)[\"'”’`»).,;:!\]}]*(?!\S)")
_SYMBOLS = set("!#$%&*?@^~+")
_TWO_SYMBOLS = re.compile(r"[!#$%&*?@^~+]\S*[!#$%&*?@^~+]")


def _generated(text: str) -> list[Hit]:
    """A token only a password generator makes, wherever it stands ("yep, it's %azq%a&?G8k@9F now"): lower and upper
    case, digits and two symbols or more, with no shape of an address, a path, a setting or a link."""
    found = []
    if not _TWO_SYMBOLS.search(text):
        return found
    for match in _LONG_TOKEN.finditer(text):
        value = match.group("value")
        if (sum(c in _SYMBOLS for c in value) < 2 or not any(c.isdigit() for c in value)
                or not any(c.islower() for c in value) or not any(c.isupper() for c in value)
                or re.search(r"://|[/\\=<>]|^@|@[\w-]+\.[a-z]|^#\w+$", value) or len(set(value)) < 0.6 * len(value)):
            continue
        found.append(Hit("password", *match.span("value")))
    return found


def _token_before(text: str, start: int) -> str:
    """The part of the whitespace-delimited token that holds `start`, before it."""
    return text[max(text.rfind(" ", 0, start), text.rfind("\n", 0, start)) + 1: start]


def inside_address(text: str, start: int) -> bool:
    """"scheme://user:pw@host/path": the part after the host is a path, not a password."""
    word_start = max(text.rfind(" ", 0, start), text.rfind("\n", 0, start)) + 1
    return "//" in text[word_start: start + 1] or text[:start].endswith("//")
