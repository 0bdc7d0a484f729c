"""Logins: a user name and its password, in the layouts people send them.

"user: bob / pw: x", "name:password", "bob@example.com | x", "log in with bob and x", "it's nokafor70 /
velvet1996", "username `deploy`, password `x`", an address with a login in it, and in a message about
logging in, a password-strength token on its own. Only the password is taken out: the user name stays,
so the user still sees which account a message was about.
"""

from __future__ import annotations

import re
from functools import lru_cache

from deputy.core.secret_scan.hits import Hit
from deputy.core.secret_scan.passwords import (KEYWORD, PUBLIC_KEY_BEFORE, STATE_WORDS, inside_address, is_value,
                                               password_shaped, value_span)
from deputy.core.secret_scan.structured import placeholder

_LOGIN = re.compile(
    r"(?i)\b(?P<trigger>(?:log\s?in|logon|sign[\s-]?in|credentials|creds|u/p|user/pass|usr/pwd|user/pwd?|"
    r"user(?:name)?/pass(?:word)?|login/pass(?:word)?|benutzer(?:name)?/passwort|zugangsdaten|identifiants|"
    r"acceso|anmeldedaten)\b"
    r"(?:\s+for\s+(?:[\w.@-]+\s+){0,3}?[\w.@-]+(?=\s*[:=]))?\s*(?:is|:|=|->|→|-|details:?|info:?|with|as|using)?"
    r"|(?:user(?:name)?|user id|e-?mail|benutzer(?:name)?|nutzername|anmeldename|utilisateur|identifiant|usuario|"
    r"usu[áa]rio|utente|gebruiker(?:snaam)?|login)\b(?![@.])\s*(?:is|:|=)?)"
    r"\s*[\"']?(?P<name>[\w.+@-]{2,128})[\"']?\s*(?:/|\||:|,|\s)\s*"
    r"(?:(?:pw|pwd|pass(?:word)?|p|passwort|mdp|mot de passe|contraseña|senha)\b\s*[:=]?\s*)?[\"']?(?P<value>[^\s\"']{4,128})"
)
_EMAIL_PASS = re.compile(
    r"(?<![\w.+/=-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,6}(?:\s*/\s*|:|\s*\|\s*|;|\t)"
    r"(?P<value>[^\s/@]{4,128})(?![^\s/]*@)"
)
_URL_USERINFO = re.compile(r"(?i)\b[a-z][a-z0-9+.-]{0,15}://[^/\s:@]{0,128}:(?P<value>[^/\s@$<{%][^/\s@]{2,127})@")


# "use rossi03 / Pumpkin852$", "mit anna.k / x", and in a message about logging in, "tjansen:otter307".
_USE_NAME_SLASH = re.compile(r"(?i)\b(?:use|with|mit|con|avec|com|met|via)\s+[\w.@+-]{2,64}\s*[/|]\s*(?P<value>\S{4,128})")
# A user name and its password side by side in a message about an account: "it's nokafor70 / velvet1996",
# "Account van oma bij de bank: bram.smit / tulp1972", "for the school portal it's emma.b and tiger77",
# "log in with bob and Hunter22", "for netflix: anna@example.com hunter22".
_PAIR = re.compile(
    r"(?i)(?:[:>→]|\b(?=[iecszwèéam])(?:it'?s|it’s|is|ist|es|est|è|é|c'est|sono|zijn|são|"
    r"(?P<with>with|mit|avec|con|com|met))|^)\s*[\"'`]?"
    r"(?P<name>[\w.+-]{2,64}+(?P<email>@[\w-]+(?:\.[\w-]+)+)?)[\"'`]?"  # (possessive: a long token is tried once)
    r"(?=(?P<sep>[ \t]*[/|][ \t]*|[ \t]+:[ \t]+|[ \t]+(?:and|und|et|y|e|en|&)[ \t]+(?:(?:the|my|la|das|o|a|het|il|le)[ \t]+)?"
    r"(?:(?:password|passwort|kennwort|pw|pwd|pass|mdp|mot de passe|contrase[ñn]a|clave|senha|wachtwoord)[ \t]+)?|"
    r"(?(email)[ \t]+|(?!)))"  # only an e-mail address and its password stand with nothing but a space between
    r"(?P<value>[^\s,;]{4,128}))", re.M)  # (the pair is looked ahead at: a value may be the next pair's name)
# Words of a message about an account (with _LOGIN_WORDS below): where a user name and a password may stand side by side.
_ACCOUNT_WORDS = frozenset("""app apps site website web bank banking mail email e-mail webmail konto compte cuenta conta
conto account profile profil portal portail school schule école escuela escola scuola gym shop store cloud nas vpn
netflix spotify amazon prime disney disney+ hulu gmail outlook hotmail icloud facebook instagram steam paypal ebay
dropbox wordpress moodle uber airbnb booking""".split())


_HOST = re.compile(r"(?i)(?:[\w-]+\.)+(?:com|net|org|io|me|de|fr|es|it|nl|pt|be|ch|at|uk|co|eu|info|app|dev|ly|gl|tv|"
                   r"us|ca|gov|edu|ai|to|link|page|site|online)")


def _pair_hits(text: str) -> list[Hit]:
    if not (_about_logging_in(text) or _ACCOUNT_WORDS & _words(text)):
        return []
    found = []
    for match in _PAIR.finditer(text):
        name, sep, value = match.group("name"), match.group("sep"), match.group("value").rstrip(".,;:!?)").strip("\"'`")
        # "mara.k / tiger1987", "emma.b and tiger77", "with bob and Hunter22", "anna@example.com hunter22"
        ok = not sep.strip() or match.group("with") is not None or (bool(re.search(r"[\d._@]", name))
                                                                     and not re.fullmatch(r"[\d.]{1,5}", name))
        if sep in ("/", "|") and ("/" in value or _HOST.fullmatch(name)):
            continue  # "paypal.me/anna/25", "example.com/Docs2": an address and its path
        if ok and "@" not in value and name.lower() not in STATE_WORDS and password_shaped(value):
            found.append(Hit("login", *value_span(match)))
    return found


_NAME_COLON = re.compile(r"(?<![\w/:.@-])[A-Za-z][\w.+-]{1,63}:(?P<value>[^\s/:@]{4,128})(?![\w@])")


def login_hits(text: str) -> list[Hit]:
    found = []
    if "/" in text or "|" in text:
        found.extend(Hit("login", *value_span(m)) for m in _USE_NAME_SLASH.finditer(text)
                     if password_shaped(m.group("value").rstrip(".,;:!?)")))
    if _about_logging_in(text):
        found.extend(Hit("login", *value_span(m)) for m in _NAME_COLON.finditer(text)
                     if password_shaped(m.group("value").rstrip(".,;:!?)")) and not inside_address(text, m.start()))

    for match in _LOGIN.finditer(text):
        name, value = match.group("name"), match.group("value")
        tail = text[match.start("name") + len(name): match.start("value")]
        if "@" in value or not is_value(value) or name.lower() in STATE_WORDS or inside_address(text, match.start()):
            continue
        if value.endswith(":"):
            continue  # "new user: anna.k / role: editor": the next field's label, not a password
        # "name / password", "name:password", or a password word between them; a plain space
        # between two words ("login page works") says nothing.
        says_password = re.search(r"(?i)\b(?:pw|pwd|pass|password|p|passwort|mdp|contraseña|senha)\b", tail)
        loose = re.match(r"(?i)(?:user|e-?mail|benutzer|nutzer|anmelde|utilisateur|identifiant|usu[áa]rio|utente|gebruiker)",
                         match.group("trigger")) and not re.search(
            r"(?:is|:|=)\s*$", match.group("trigger"))
        if says_password or (not loose and re.search(r"[/|:,]", tail)) or ("@" in name and re.search(r"\d", value)):
            found.append(Hit("login", *value_span(match)))
    found.extend(_pair_hits(text))
    # "bob@example.com:hunter2"; not "https://user@host:8443/" (an address with a port).
    found.extend(Hit("login", *value_span(m)) for m in _EMAIL_PASS.finditer(text)
                 if is_value(m.group("value")) and not inside_address(text, m.start()))
    found.extend(Hit("login", *m.span("value")) for m in _URL_USERINFO.finditer(text) if not placeholder(m.group("value")))
    return found


_LOGIN_WORDS = frozenset("""login log-in logon signin sign-in inloggen inlog accede acceder acceso zugangsdaten zugang
anmelden anmeldung credentials creds admin administrator portal router username user benutzer connexion connecte
identifiants utente accedi usuario konto account intranet vpn ssh wifi wi-fi gebruiker gebruikersnaam benutzername
nutzername anmeldename utilisateur identifiant usuário""".split())
_WORD_RUN = re.compile(r"\w+(?:-\w+)*\+?")  # words as "\b" sees them: "user_id" is one, "Wi-Fi" is "wi" and "fi" too


@lru_cache(maxsize=16)
def _words(text: str) -> frozenset[str]:
    """The words of `text`, lower case, hyphenated ones also in their parts: a set to test context words against
    (one pass over the message instead of one search per word list)."""
    words = _WORD_RUN.findall(text.lower())
    return frozenset(words + [part for word in words if "-" in word for part in word.split("-")])


def _about_logging_in(text: str) -> bool:
    lowered = text.lower()
    return bool(_LOGIN_WORDS & _words(text)) or "log in" in lowered or "sign in" in lowered


_PART = re.compile(r"[^\s/|]{6,64}")
_WIFI_IS = re.compile(r"(?i)\b(?:wi-?fi|wlan|ssid|network|netzwerk|r[ée]seau|red|rete|rede|netwerk)\s*(?:is|ist|est|es|è|é|:)\s*$")
_NAMED_AS = re.compile(r"(?i)\b(?:called|named|name is|ssid|network name|(?:network|netzwerk|r[ée]seau|rete|rede|netwerk) "
                       r"(?:is|ist|est|è|é)|heißt|s'appelle|se llama|si chiama|chama-se|"
                       r"heet)\s*[:=]?\s*[\"'“‘]?$")


def _password_like(part: str) -> bool:
    part = part.rstrip(".,;:!?)")
    if len(part) < 6 or "://" in part or "@" in part or re.fullmatch(r"[\d.,:/-]+|[0-9a-f-]+|[A-Za-z]+[.-]?[A-Za-z]*", part):
        return False
    if re.fullmatch(r"[A-Z][A-Z0-9]{1,9}-\d{1,6}", part):
        return False  # "PROJ-1234": an issue's key
    if not re.search(r"[A-Z]", part) or re.fullmatch(r"[\w.-]+:\d{2,5}", part):
        return False  # a password people choose has a capital; "db:5432" is a host and port
    classes = sum(bool(re.search(p, part)) for p in (r"[a-z]", r"[A-Z]", r"\d", r"[^\w]|_"))
    return classes >= 3 and bool(re.search(r"\d", part)) and bool(re.search(r"[A-Za-z]", part))


def strong_token_hits(text: str) -> list[Hit]:
    """A password-strength token in a message about logging in ("with admin / pqyoS#Z9Mimc")."""
    if not _about_logging_in(text):
        return []
    found = []
    for match in _PART.finditer(text):
        token = match.group(0).rstrip(".,;:!?)")
        part = token.strip("\"'`{}[]")  # a value in quotes or brackets ("password": "vK%Uvd*!#2re"}) is the value
        start = match.start() + token.index(part) if part else match.start()
        before = text[max(0, start - 30): start]
        if len(part) < 6 or "=" in part or ";" in part or _NAMED_AS.search(before):
            continue  # settings are read by their keys (structured.py); "a network called X" names X
        if _WIFI_IS.search(before) and KEYWORD.search(text, start + len(part)):
            continue  # "the Wi-Fi is CasaRossi_5G, the password is ...": the network's name, its password apart
        if (_password_like(part) and not inside_address(text, start)
                and not PUBLIC_KEY_BEFORE.search(text[max(0, start - 40): start])):
            found.append(Hit("login", start, start + len(part)))
    return found
