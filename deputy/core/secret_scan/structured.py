"""Credentials inside structured text: `key=value` settings, connection strings, addresses with a login.

Read by structure rather than by sentence: in `Server=db;User Id=ann;Password=x;` (ADO.NET,
ODBC, with a value in braces), `?user=ann&password=x` (JDBC, query strings), `DB_PASS=x`
(environment files), `scheme://user:x@host` (any scheme), `user/x@//host` (Oracle), `<password>x</password>`
(XML) and a command's password option (`curl -u ann:x`, `mysql -px`, `redis-cli -a x`, `--password=x`), the
value of a key that names a secret is the secret, whatever characters it holds. Documented
placeholders are not: `${DB_PASSWORD}`, `<password>`, `myPassword`, `PASSWORD`, `sua_senha_aqui`.
"""

from __future__ import annotations

import re

from deputy.core.secret_scan.hits import Hit

_SECRET_KEY = (r"[\w.-]*?(?:password|passwort|passwd|pass|pwd|pw|secret|token|api[_-]?key|apikey|access[_-]?key|"
               r"accountkey|sharedaccesskey|sharedaccesssignature|client[_-]?secret|private[_-]?key|auth[_-]?key|"
               r"credentials?|senha|contrase[ñn]a|wachtwoord|mot_de_passe|mdp)")
_SETTING = re.compile(
    rf"(?i)(?<![\w.-])(?P<key>{_SECRET_KEY})(?![\w-])\s*=\s*"
    r"(?P<value>\{[^}\n]{1,200}\}|\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|[^\s;&,\"'<>]{1,200})"
)
_URL_LOGIN = re.compile(r"(?i)\b[a-z][a-z0-9+.-]{0,15}://[^/\s:@]{0,128}:(?P<value>[^/\s@]{1,128})@[\w\[]")
# Passwords given to a command on its command line, by each tool's documented option: curl's and wget's
# "-u user:password", "--password X" / "--password=X" (not "--password-stdin"), mysql's "-pX" (joined: "-p X"
# asks for it and X is the database), redis-cli's "-a X", sqlcmd's "-P X", sshpass's "-p X", ldapsearch's "-w X".
_CLI_USER = re.compile(r"(?<!\S)(?:-u|--user|--proxy-user)\s*[\"']?[^\s:\"']{1,64}:(?P<value>[^\s\"']{1,128})")
_CLI_PASSWORD = re.compile(
    r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]*?\s-p(?P<mysql>[^\s\"'][^\s\"']{2,127})"
    r"|\bredis-cli\b[^\n|;&]*?\s-a\s+(?P<redis>\S{3,128})"
    r"|\b(?:sqlcmd|bcp|osql)\b[^\n|;&]*?\s-P\s+(?P<sqlcmd>\S{3,128})"
    r"|\bsshpass\s+-p\s*(?P<sshpass>\S{3,128})"
    r"|\bldap\w+\b[^\n|;&]*?\s-w\s+(?P<ldap>\S{3,128})"
    r"|\b(?:docker|podman|helm|oras|buildah|skopeo|nerdctl|az)\b[^\n|;&]*?\blogin\b[^\n|;&]*?\s-p\s+"
    r"(?P<login>\S{3,128})"
    r"|\bhtpasswd\s+(?:-\w+\s+)*?-\w*b\w*\s+(?:-\w+\s+)*[^\s-]\S*\s+\S+\s+(?P<htpasswd>\S{3,128})"
    r"|(?<!\S)--(?:[\w-]+-)?(?:password|passwd|pass)(?:=|\s+)[\"']?(?P<option>[^\s\"'`-][^\s\"'`]{3,127})"
)
_CLI_HINT = re.compile(r"(?i)mysql|mariadb|redis-cli|sqlcmd|bcp|osql|sshpass|ldap|login|htpasswd|--[\w-]*pass")
# An XML element named for a secret: <password>X</password> (an attribute, password="X", is read as a setting).
_XML_SECRET = re.compile(r"(?i)<(?:\w+:)?(?P<tag>password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)>"
                         r"(?P<value>[^<\s]{1,200})</(?:\w+:)?(?P=tag)>")
_ORACLE_LOGIN = re.compile(r"(?i)(?<=[:\s\"'])[\w.$-]{1,64}/(?P<value>[^@\s/\"']{1,128})@(?=//|[\w.-]+[:/])")
_PASSWORD_WORDS = re.compile(r"(?i)pass|pwd|senha|contrase|wachtwoord|mot_?de_?passe|mdp|secret|token|kennwort|parola|"
                             r"key|your|here|aqui|hier|ici|qui|example|changeme|placeholder|insert|dein|votre|sua|tuo")


def placeholder(value: str) -> bool:
    """A documented stand-in for a value, never a real one: `${X}`, `<x>`, `{{x}}`, `myPassword`, `PASSWORD`, `***`."""
    core = value.strip("{}\"'")
    if not core or re.fullmatch(r"[*•xX.·_-]+", core):
        return True
    if core.startswith(("$", "%", "<", "[", "{{", "#{")) or re.search(r"\$\{|\{\{|%\(|<[^>]*>", value):
        return True
    if "example" in core.lower() or re.search(r"(.)\1{7,}", core):
        return True  # AWS's documented wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, "xxxxxxxxxxxx"
    if re.fullmatch(r"[A-Z][A-Z_]*", core) and len(core) >= 4:
        return True  # PASSWORD, DB_PASS: the name of a setting, written where its value goes
    # myPassword, your_password, sua_senha_aqui, <dein Passwort>: a password word with no digit in it
    return bool(_PASSWORD_WORDS.search(core)) and not re.search(r"\d", core)


def structured_hits(text: str) -> list[Hit]:
    found = []
    if " -" in text and _CLI_HINT.search(text):
        found.extend(Hit("password", *m.span(m.lastgroup)) for m in _CLI_PASSWORD.finditer(text)
                     if not placeholder(m.group(m.lastgroup)))
    if "</" in text:
        found.extend(Hit("password", *m.span("value")) for m in _XML_SECRET.finditer(text)
                     if not placeholder(m.group("value")))
    if "=" not in text and "@" not in text and "-u" not in text:
        return found
    for match in _SETTING.finditer(text):
        value = match.group("value")
        if placeholder(value) or value.lower() in ("true", "false", "yes", "no", "none", "null", "sspi"):
            continue
        start, end = match.span("value")
        if value[0] in "{\"'" and value[-1] in "}\"'":
            start, end = start + 1, end - 1
        found.append(Hit("password", start, end))
    for pattern in (_URL_LOGIN, _ORACLE_LOGIN, _CLI_USER):
        found.extend(Hit("login", *m.span("value")) for m in pattern.finditer(text) if not placeholder(m.group("value")))
    return found
