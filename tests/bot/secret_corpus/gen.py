#!/usr/bin/env python3
"""One-shot generator for corpus.json.

Secret values are drawn with Python's `secrets` module, so a re-run gives new
values.  corpus.json is the canonical artifact: do not re-run once results on
the frozen split have been recorded (the script refuses unless --force).
"""
import base64, hashlib, hmac, json, os, subprocess, sys, tempfile, time
import secrets as S

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus.json")
if os.path.exists(OUT) and "--force" not in sys.argv:
    sys.exit("corpus.json exists; pass --force to regenerate (changes every value)")

WORDS = open(os.path.join(HERE, "bip39_english.txt")).read().split()
assert len(WORDS) == 2048

def ch(seq): return S.choice(seq)
def rs(alpha, n): return "".join(S.choice(alpha) for _ in range(n))
DIG = "0123456789"; HEX = "0123456789abcdef"; UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"; LO = UP.lower()
AN = UP + LO + DIG; B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

cases = []  # (kind, dict)
def add(kind, messages, secret, keep, lang, source, checks=None):
    if isinstance(messages, str): messages = [messages]
    c = {"kind": kind, "messages": messages, "secret": secret, "keep": keep,
         "language": lang, "source": source}
    if checks: c["checks"] = checks
    cases.append(c)

# ---------------------------------------------------------------- checksums
def luhn_ok(num):
    d = [int(x) for x in num][::-1]
    return sum(x if i % 2 == 0 else (x * 2 - 9 if x * 2 > 9 else x * 2) for i, x in enumerate(d)) % 10 == 0
def luhn_complete(prefix, length):
    body = prefix + rs(DIG, length - len(prefix) - 1)
    for c in DIG:
        if luhn_ok(body + c): return body + c
def luhn_fail(prefix, length):
    n = luhn_complete(prefix, length)
    return n[:-1] + str((int(n[-1]) + 1 + S.randbelow(8)) % 10)
def iban_make(cc, bban):
    s = bban + cc + "00"
    n = int("".join(str(int(c, 36)) for c in s))
    return cc + "%02d" % (98 - n % 97) + bban
def group4(s): return " ".join(s[i:i+4] for i in range(0, len(s), 4))
def fullwidth(s): return "".join(chr(ord(c) - 0x30 + 0xFF10) if c.isdigit() else c for c in s)

# ---------------------------------------------------------------- cards
CARD_PREFIX = [("4111", 16, "Visa test prefix 4111 (PayPal/Stripe test card docs)"),
               ("4242", 16, "Visa test prefix 4242 (Stripe testing docs)"),
               ("5555", 16, "Mastercard test prefix 5555 (Stripe testing docs)"),
               ("5105", 16, "Mastercard test prefix 5105 (PayPal test cards)"),
               ("2223", 16, "Mastercard 2-series test prefix 2223 (Stripe testing docs)"),
               ("3782", 15, "Amex test prefix 3782 (Stripe testing docs)"),
               ("3714", 15, "Amex test prefix 3714 (PayPal test cards)"),
               ("6011", 16, "Discover test prefix 6011 (Stripe testing docs)"),
               ("3530", 16, "JCB test prefix 3530 (PayPal test cards)")]
def card_layout(num, style):
    if len(num) == 15:
        g = [num[:4], num[4:10], num[10:]]
    else:
        g = [num[i:i+4] for i in range(0, 16, 4)]
    return {"space": " ".join(g), "dash": "-".join(g), "plain": num, "dot": ".".join(g),
            "full": fullwidth(" ".join(g)), "fullplain": fullwidth(num),
            "nl": " ".join(g[:2]) + "\n" + " ".join(g[2:])}[style]
def cvc_for(num):
    while True:
        c = rs(DIG, 4 if len(num) == 15 else 3)
        if c not in num: return c
CARD_T = [
 ("en", "my card is {n} exp {mm}/{yy} cvc {c}", ["my card is"]),
 ("en", "Visa {n}, expires {mm}/{yy}, security code {c}", ["Visa"]),
 ("en", "book the hotel in Lisbon with my card {n} {mm}/{yy} {c} please", ["book the hotel in Lisbon"]),
 ("en", "card number: {n}", ["card number"]),
 ("en", "use {n} for the Netflix renewal", ["Netflix renewal"]),
 ("en", "cc {n} exp {mm}/{yy} cvv {c}", []),
 ("de", "Meine Kreditkarte: {n}, gültig bis {mm}/{yy}, Prüfnummer {c}", ["Meine Kreditkarte"]),
 ("de", "Kartennummer {n} Ablauf {mm}/{yy}", ["Kartennummer"]),
 ("es", "la tarjeta es {n} caduca {mm}/{yy} cvv {c}", ["la tarjeta es"]),
 ("es", "paga la reserva con {n}, vence {mm}/{yy}, código {c}", ["paga la reserva"]),
 ("fr", "ma carte bancaire : {n} expire {mm}/{yy} cryptogramme {c}", ["ma carte bancaire"]),
 ("fr", "numéro de carte {n}", ["numéro de carte"]),
 ("it", "la mia carta è {n} scadenza {mm}/{yy} cvv {c}", ["la mia carta"]),
 ("pt", "o número do cartão é {n}, validade {mm}/{yy}, código {c}", ["número do cartão"]),
 ("nl", "mijn creditcard is {n} geldig tot {mm}/{yy} cvc {c}", ["mijn creditcard"]),
]
STYLES = ["space", "dash", "plain", "space", "full", "dot", "space", "nl", "fullplain", "dash"]
for i in range(30):
    pre, ln, src = CARD_PREFIX[i % len(CARD_PREFIX)]
    num = luhn_complete(pre, ln)
    if i == 0: num, src = "4111111111111111", "Visa test card 4111 1111 1111 1111 (PayPal/Stripe docs)"
    if i == 1: num, src = "378282246310005", "Amex test card 378282246310005 (Stripe testing docs)"
    style = STYLES[i % len(STYLES)]
    lang, t, keep = CARD_T[i % len(CARD_T)]
    shown = card_layout(num, style)
    c = cvc_for(num); mm = "%02d" % (1 + S.randbelow(12)); yy = str(27 + S.randbelow(5))
    msg = t.format(n=shown, c=c, mm=mm, yy=yy)
    sec = [shown] + ([c] if "{c}" in t else [])
    add("card", msg, sec, keep, lang, src + "; layout " + style,
        [{"type": "luhn", "value": shown}])

# ---------------------------------------------------------------- cvc / pin
def pin(n=4):
    while True:
        p = rs(DIG, n)
        if not (p.startswith("19") or p.startswith("20")) and len(set(p)) > 1: return p
PIN_T = [
 ("en", "the CVC is {p3}", ["the CVC is"]), ("en", "my PIN is {p4}", ["my PIN is"]),
 ("en", "CVV: {p3}", []), ("en", "card pin {p4}, don't forget it for me", ["don't forget it for me"]),
 ("en", "security code on the back is {p3}", ["security code on the back"]),
 ("en", "Amex CID {p4}", ["Amex"]), ("en", "bank PIN: {p0}", ["bank PIN"]),
 ("en", "withdraw 200 from the ATM, pin {p4}", ["withdraw 200 from the ATM"]),
 ("de", "Meine Geheimzahl ist {p4}", ["Meine Geheimzahl ist"]), ("de", "PIN der EC-Karte: {p4}", ["EC-Karte"]),
 ("de", "Kartenprüfnummer {p3}", []), ("es", "mi PIN es {p4}", ["mi PIN es"]),
 ("es", "el código de seguridad es {p3}", ["código de seguridad"]), ("fr", "code PIN : {p4}", ["code PIN"]),
 ("fr", "le cryptogramme c'est {p3}", ["le cryptogramme"]), ("it", "il PIN del bancomat è {p5}", ["bancomat"]),
 ("pt", "o PIN do cartão é {p4}", ["o PIN do cartão"]), ("nl", "pincode {p4}", ["pincode"]),
 ("nl", "de beveiligingscode is {p3}", ["beveiligingscode"]), ("en", "SIM PIN {p4} and PUK {p8}", ["SIM PIN", "PUK"]),
]
for lang, t, keep in PIN_T:
    vals = {"p3": pin(3), "p4": pin(4), "p5": pin(5), "p8": pin(8), "p0": "0" + pin(3)}
    used = [vals[k] for k in vals if "{%s}" % k in t]
    add("cvc_pin", t.format(**vals), used, keep, lang, "PCI card-verification-code / PIN wording; random digits")

# ---------------------------------------------------------------- passwords
NAMES = ["bella", "max", "luna", "charlie", "milo", "daisy", "rocky", "nala", "sunshine", "dragon", "monkey", "tigger"]
def pw():
    k = S.randbelow(7)
    if k == 0: return ch(NAMES).capitalize() + ch("!#$%&*?") + rs(DIG, 4)
    if k == 1: return rs(AN + "!#$%&*?@", 12)
    if k == 2: return "-".join(ch(WORDS) for _ in range(4)) + rs(DIG, 2)
    if k == 3: return ch(NAMES) + str(1985 + S.randbelow(30))
    if k == 4: return ch(UP) + rs(LO, 5) + rs(DIG, 3) + ch("!?.$")
    if k == 5: return rs(AN, 8)
    return ch(WORDS).capitalize() + ch("_.-") + ch(WORDS) + rs(DIG, 3) + "!"
PW_T = [
 ("en", "pw is {p}", []), ("en", "password: {p}", []), ("en", "the wifi is {p}", ["the wifi is"]),
 ("en", "wifi password is {p} if the guests ask", ["if the guests ask"]),
 ("en", "my passcode is {p}", ["my passcode is"]), ("en", "Netflix password is {p}, share it with mom", ["Netflix", "share it with mom"]),
 ("en", "sign into my Amazon account, password {p}, and cancel the Prime trial", ["Amazon", "cancel the Prime trial"]),
 ("en", "connect to the guest wifi (pw {p}) and test the printer", ["test the printer"]),
 ("en", "new password for the NAS is {p} - save it in my notes", ["NAS"]),
 ("en", "Zoom passcode: {p}", ["Zoom"]),
 ("en", "the correct answer to my security question is {p}", ["security question"]),
 ("en", "pass={p}", []),
 ("de", "Passwort lautet {p}", ["Passwort lautet"]), ("de", "mein Passwort ist {p}", ["mein Passwort ist"]),
 ("de", "das WLAN-Passwort ist {p}", ["WLAN-Passwort"]), ("de", "Kennwort: {p}", []),
 ("de", "Bitte melde dich bei meinem Telekom-Konto an, Passwort {p}, und kündige den Vertrag", ["Telekom-Konto", "kündige den Vertrag"]),
 ("es", "la contraseña es {p}", ["la contraseña es"]), ("es", "contraseña: {p}", []),
 ("es", "la clave del wifi es {p}", ["la clave del wifi"]),
 ("es", "entra en mi cuenta de Movistar con la contraseña {p} y descarga la factura", ["Movistar", "descarga la factura"]),
 ("fr", "mot de passe : {p}", []), ("fr", "le mot de passe c'est {p}", []), ("fr", "mdp: {p}", []),
 ("fr", "le code wifi est {p}", ["le code wifi"]),
 ("fr", "connecte-toi à mon compte Free, mot de passe {p}, et change l'offre", ["compte Free", "change l'offre"]),
 ("it", "la password è {p}", []), ("it", "password del wifi: {p}", ["wifi"]),
 ("it", "la mia parola d'ordine è {p}", ["parola d'ordine"]),
 ("pt", "a senha é {p}", ["a senha é"]), ("pt", "senha: {p}", []), ("pt", "a senha do wifi é {p}", ["senha do wifi"]),
 ("pt", "entra na minha conta do banco com a senha {p} e paga a conta de luz", ["paga a conta de luz"]),
 ("nl", "het wachtwoord is {p}", ["het wachtwoord is"]), ("nl", "wachtwoord: {p}", []),
 ("nl", "wifi-wachtwoord is {p}", ["wifi-wachtwoord"]),
 ("en", "password is correct horse battery staple", None),
 ("en", "just use hunter2 as the password for the test account, no wait, use {p}", ["test account"]),
 ("en", "remember for me: gmail pw {p}", ["gmail"]),
 ("en", "my apple id password is {p}", ["apple id"]),
]
for lang, t, keep in PW_T:
    if keep is None:
        add("password_phrase", t, ["correct horse battery staple"], [], lang,
            "xkcd 936 passphrase; keyword rule detect-secrets plugins/keyword.py")
        continue
    p = pw()
    add("password_phrase", t.format(p=p), [p], keep, lang,
        "keyword context (detect-secrets plugins/keyword.py DENYLIST password/passwd/pwd/contraseña) + multilingual wording; random value")

# ---------------------------------------------------------------- logins
USERS = ["bob", "admin", "jdoe", "maria.lopez", "k.schmidt", "root", "pierre.d", "anna_v", "sam@example.com", "luca.rossi@example.org"]
LOGIN_T = [
 ("en", "user {u} pass {p}", []), ("en", "username: {u} / password: {p}", []),
 ("en", "log in to my router with admin / {p} and restart it", ["restart it"]),
 ("en", "ssh into 10.0.0.5 as root, password {p}, and check disk space", ["10.0.0.5", "check disk space"]),
 ("en", "login {u} {p}", []), ("en", "creds for the staging box: {u}:{p}", ["staging box"]),
 ("en", "curl -u {u}:{p} https://api.example.com/v1/me", ["https://api.example.com/v1/me"]),
 ("en", "My bank login is {u} and the password is {p}, check my balance", ["check my balance"]),
 ("de", "Benutzer: {u} Passwort: {p}", []), ("de", "Zugangsdaten für das Portal: {u} / {p}", ["Portal"]),
 ("es", "usuario {u} contraseña {p}", []), ("es", "accede a la intranet con {u} y {p} y descarga la nómina", ["descarga la nómina"]),
 ("fr", "identifiant : {u} mot de passe : {p}", []), ("fr", "connecte-toi avec {u} / {p} sur ameli et télécharge l'attestation", ["ameli"]),
 ("it", "utente {u} password {p}", []), ("it", "accedi al portale INPS con {u} e {p}", ["INPS"]),
 ("pt", "usuário: {u} senha: {p}", []), ("pt", "login {u} senha {p} no portal das finanças", ["portal das finanças"]),
 ("nl", "gebruikersnaam {u} wachtwoord {p}", []), ("nl", "log in op DigiD met {u} en {p}", ["DigiD"]),
 ("en", "email: {u}\npassword: {p}", []), ("en", "the printer admin is {u}/{p}", ["printer"]),
]
for lang, t, keep in LOGIN_T:
    p = pw(); u = ch(USERS)
    src = "gitleaks rule curl-auth-user tps (cmd/generate/config/rules/curl.go)" if t.startswith("curl") else "credential pair wording; random password"
    add("login", t.format(u=u, p=p), [p], keep, lang, src)

# ---------------------------------------------------------------- vendor keys
def b64u(b): return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
def tg_token(): return rs(DIG, 10) + ":AA" + rs(AN + "_-", 33)
VK = [
 ("AKIA" + rs(UP + "234567", 16), "my AWS key is {k}", "gitleaks rule aws-access-token (aws.go) AKIA[A-Z2-7]{16}"),
 ("ASIA" + rs(UP + "234567", 16), "temporary creds {k} from STS", "gitleaks rule aws-access-token ASIA prefix"),
 ("ghp_" + rs(AN, 36), "here's my github token {k}", "gitleaks rule github-pat (github.go) ghp_[0-9a-zA-Z]{36}"),
 ("github_pat_" + rs(AN + "_", 82), "fine-grained PAT: {k}", "gitleaks rule github-fine-grained-pat github_pat_\\w{82}"),
 ("gho_" + rs(AN, 36), "oauth token gho is {k}", "gitleaks rule github-oauth"),
 ("ghs_" + rs(AN, 36), "GITHUB_TOKEN={k}", "gitleaks rule github-app-token"),
 ("sk_live_" + rs(AN, 99), "stripe secret key {k}", "gitleaks rule stripe-access-token (stripe.go) sk_(live|test)_"),
 ("rk_live_" + rs(AN, 24), "use the restricted key {k} for the webhook", "gitleaks rule stripe-access-token rk_ prefix"),
 ("xoxb-" + rs(DIG, 12) + "-" + rs(DIG, 13) + "-" + rs(AN, 24), "slack bot token: {k}", "gitleaks rule slack-bot-token (slack.go)"),
 ("xoxp-" + rs(DIG, 12) + "-" + rs(DIG, 12) + "-" + rs(DIG, 12) + "-" + rs(HEX, 32), "SLACK_TOKEN={k}", "gitleaks rule slack-user-token"),
 ("sk-proj-" + rs(AN + "_-", 74) + "T3BlbkFJ" + rs(AN + "_-", 74), "OPENAI_API_KEY={k}", "gitleaks rule openai-api-key (openai.go) sk-proj-...T3BlbkFJ..."),
 ("sk-" + rs(AN, 20) + "T3BlbkFJ" + rs(AN, 20), "my openai key {k} stopped working", "gitleaks rule openai-api-key legacy form"),
 ("sk-ant-api03-" + rs(AN + "_-", 93) + "AA", "anthropic key: {k}", "gitleaks rule anthropic-api-key (anthropic.go)"),
 ("glpat-" + rs(AN + "_-", 20), "gitlab token {k}", "gitleaks rule gitlab-pat (gitlab.go)"),
 ("AIza" + rs(AN + "_-", 35), "Google Maps API key AIza: {k}", "gitleaks rule gcp-api-key (gcp.go) AIza[\\w-]{35}"),
 ("SG." + rs(AN + "_-", 22) + "." + rs(AN + "_-", 43), "SENDGRID_API_KEY={k}", "gitleaks rule sendgrid-api-token; trufflehog sendgrid detector (SG.22.43)"),
 ("SK" + rs(HEX, 32), "twilio api key {k}", "gitleaks rule twilio-api-key SK[0-9a-fA-F]{32}"),
 ("npm_" + rs(LO + DIG, 36), "//registry.npmjs.org/:_authToken={k}", "gitleaks rule npm-access-token; detect-secrets plugins/npm.py"),
 ("hf_" + rs(UP + LO, 34), "huggingface-cli login --token {k}", "gitleaks rule huggingface-access-token tps"),
 ("dop_v1_" + rs(HEX, 64), "DigitalOcean token {k}", "gitleaks rule digitalocean-pat"),
 ("shpat_" + rs(HEX, 32), "shopify admin token {k}", "gitleaks rule shopify-access-token"),
 ("key-" + rs(HEX, 32), "mailgun api key is {k}", "gitleaks rule mailgun-private-api-token"),
 ("pypi-AgEIcHlwaS5vcmc" + rs(AN + "_-", 60), "twine password {k}", "gitleaks rule pypi-upload-token; detect-secrets plugins/pypi_token.py"),
 ("dp.pt." + rs(AN, 43), "doppler token {k}", "gitleaks rule doppler-api-token"),
 ("lin_api_" + rs(AN, 40), "Linear API key {k}", "gitleaks rule linear-api-key"),
 ("PMAK-" + rs(HEX, 24) + "-" + rs(HEX, 34), "postman key {k}", "gitleaks rule postman-api-token"),
 ("pul-" + rs(HEX, 40), "PULUMI_ACCESS_TOKEN={k}", "gitleaks rule pulumi-api-token"),
 ("sq0atp-" + rs(AN + "_-", 22), "square access token {k}", "gitleaks rule square-access-token"),
 (rs(HEX, 32) + "-us20", "mailchimp api key {k}", "gitleaks rule mailchimp-api-key tps"),
 ("HRKU-AA" + rs(AN + "_-", 58), "heroku key {k}", "gitleaks rule heroku-api-key-v2"),
 ("AGE-SECRET-KEY-1" + rs("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58), "my age identity is {k}", "gitleaks rule age-secret-key"),
 ("A3-" + rs(UP + DIG, 6) + "-" + rs(UP + DIG, 11) + "-" + rs(UP + DIG, 5) + "-" + rs(UP + DIG, 5) + "-" + rs(UP + DIG, 5), "1Password secret key {k}", "gitleaks rule 1password-secret-key"),
 (rs(HEX, 32), "DD_API_KEY={k}", "trufflehog datadogtoken detector (pkg/detectors/datadogtoken) / Datadog 32-hex API key"),
 (rs(HEX, 40), "DD_APP_KEY={k}", "gitleaks rule datadog-access-token; trufflehog datadogtoken test fixture"),
 (tg_token(), "telegram bot token {k}", "gitleaks rule telegram-bot-api-token; detect-secrets plugins/telegram_token.py"),
 ("fo1_" + rs(AN + "_-", 43), "Fly access token: {k}", "gitleaks rule flyio-access-token tps"),
 ("glpat-" + rs(AN, 20), "Mein GitLab-Token ist {k}", "gitleaks rule gitlab-pat; German wording"),
 ("ghp_" + rs(AN, 36), "mi token de GitHub es {k}, ¿por qué falla el push?", "gitleaks rule github-pat; Spanish wording"),
 ("sk_live_" + rs(AN, 24), "voici ma clé Stripe {k}", "gitleaks rule stripe-access-token; French wording"),
 ("AIza" + rs(AN + "_-", 35), "la mia chiave API di Google è {k}", "gitleaks rule gcp-api-key; Italian wording"),
 ("hf_" + rs(UP + LO, 34), "o meu token do Hugging Face: {k}", "gitleaks rule huggingface-access-token; Portuguese wording"),
 ("xoxb-" + rs(DIG, 13) + "-" + rs(DIG, 13) + "-" + rs(AN, 24), "de Slack-bottoken is {k}", "gitleaks rule slack-bot-token; Dutch wording"),
]
for k, t, src in VK:
    lang = "en"
    for kw, l in [("Mein", "de"), ("mi token", "es"), ("voici", "fr"), ("la mia", "it"), ("o meu", "pt"), ("de Slack", "nl")]:
        if t.startswith(kw): lang = l
    add("vendor_key", t.format(k=k), [k], [], lang, src)
# AWS pair + secret key in .env (detect-secrets test_data/each_secret.py layout)
for i in range(3):
    kid = "AKIA" + rs(UP + "234567", 16); sk = rs(AN + "/+", 40)
    add("vendor_key", "AWS_ACCESS_KEY_ID=%s\nAWS_SECRET_ACCESS_KEY=%s" % (kid, sk), [kid, sk], ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"], "en",
        "gitleaks rule aws-access-token + detect-secrets test_data/each_secret.py aws_secret_access_key layout")

# ---------------------------------------------------------------- private keys
def run(cmd, **kw): return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout
tmp = tempfile.mkdtemp()
def openssh_key(t):
    p = os.path.join(tmp, "k%d" % S.randbelow(10**9))
    args = ["ssh-keygen", "-q", "-t", t, "-N", "", "-C", "", "-f", p] + (["-b", "2048"] if t == "rsa" else [])
    subprocess.run(args, check=True, capture_output=True)
    return open(p).read().strip()
def pgp_key():
    home = tempfile.mkdtemp(); os.chmod(home, 0o700)
    env = dict(os.environ, GNUPGHOME=home)
    subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", "Test User <test@example.invalid>", "ed25519", "sign", "never"],
                   check=True, capture_output=True, env=env)
    return run(["gpg", "--batch", "--armor", "--export-secret-keys"], env=env).strip()
KEYGEN = [
 ("rsa", lambda: run(["openssl", "genrsa", "-traditional", "2048"]).strip(), "openssl genrsa -traditional (BEGIN RSA PRIVATE KEY); gitleaks rule private-key tps"),
 ("ec", lambda: run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout"]).strip(), "openssl ecparam (BEGIN EC PRIVATE KEY); detect-secrets plugins/private_key.py"),
 ("pkcs8", lambda: run(["openssl", "genpkey", "-algorithm", "ed25519"]).strip(), "openssl genpkey ed25519 (BEGIN PRIVATE KEY); gitleaks private-key tps"),
 ("openssh", lambda: openssh_key("ed25519"), "ssh-keygen ed25519 (BEGIN OPENSSH PRIVATE KEY); detect-secrets test_data/files/private_key"),
 ("pgp", pgp_key, "gpg --export-secret-keys --armor (BEGIN PGP PRIVATE KEY BLOCK); gitleaks private-key tps"),
 ("enc", lambda: run(["openssl", "genpkey", "-algorithm", "ed25519", "-aes256", "-pass", "pass:" + rs(AN, 16)]).strip(), "openssl genpkey -aes256 (BEGIN ENCRYPTED PRIVATE KEY); gitleaks private-key regex"),
]
PK_T = [("en", "here's my server key, can you check the format?\n{k}", ["check the format"]),
        ("de", "Hier ist mein SSH-Schlüssel:\n{k}", ["Hier ist mein SSH-Schlüssel"]),
        ("en", "{k}\nwhy does ssh say bad permissions?", ["bad permissions"]),
        ("es", "esta es la clave privada del servidor:\n{k}", ["clave privada del servidor"]),
        ("fr", "voici ma clé :\n{k}\nelle ne marche plus", ["elle ne marche plus"]),
        ("en", "add this to the deploy config\n\n{k}\n", ["deploy config"]),
        ("nl", "mijn sleutel:\n{k}", ["mijn sleutel"]),
        ("it", "chiave privata:\n{k}", []),
        ("pt", "a chave é esta\n{k}", ["a chave é esta"])]
n = 0
for rnd in range(3):
    for name, gen, src in KEYGEN:
        if rnd == 2 and name in ("pgp", "enc"): continue
        k = openssh_key("rsa") if (rnd == 2 and name == "openssh") else gen()
        if rnd == 1 and name == "rsa":  # partial paste: header + first lines only
            k = "\n".join(k.splitlines()[:4]); src += "; truncated paste (no END line)"
        lang, t, keep = PK_T[n % len(PK_T)]; n += 1
        add("private_key", t.format(k=k), [k], keep, lang, src)
putty_pub = base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + os.urandom(32)).decode()
putty_priv = base64.b64encode(os.urandom(48)).decode()
pk = ("PuTTY-User-Key-File-2: ssh-ed25519\nEncryption: none\nComment: ed25519-key-20240301\nPublic-Lines: 2\n%s\n%s\nPrivate-Lines: 1\n%s\nPrivate-MAC: %s"
      % (putty_pub[:64], putty_pub[64:], putty_priv, rs(HEX, 40)))
add("private_key", "my putty key file says:\n" + pk, [pk], ["my putty key file says"], "en", "detect-secrets plugins/private_key.py PuTTY-User-Key-File-2; random bytes")

# ---------------------------------------------------------------- seed phrases
def mnemonic(nwords):
    ent = os.urandom(nwords * 4 // 3)
    h = hashlib.sha256(ent).digest()
    bits = bin(int.from_bytes(ent, "big"))[2:].zfill(len(ent) * 8) + bin(h[0])[2:].zfill(8)[: len(ent) * 8 // 32]
    return [WORDS[int(bits[i:i+11], 2)] for i in range(0, len(bits), 11)]
SEED_T = [("en", "my recovery phrase is {s}", ["my recovery phrase is"], "space"),
          ("en", "seed: {s}", [], "space"),
          ("en", "here are the 12 words from my ledger\n{s}", ["ledger"], "numbered"),
          ("de", "Meine Wiederherstellungsphrase lautet: {s}", ["Wiederherstellungsphrase"], "space"),
          ("es", "mi frase semilla es {s}", ["frase semilla"], "comma"),
          ("fr", "ma phrase de récupération : {s}", ["phrase de récupération"], "space"),
          ("it", "le parole di recupero del wallet sono {s}", ["wallet"], "space"),
          ("pt", "a frase de recuperação da carteira é {s}", ["frase de recuperação"], "space"),
          ("nl", "mijn herstelzin: {s}", ["herstelzin"], "newline"),
          ("en", "restore my MetaMask with {s} please", ["MetaMask"], "space"),
          ("en", "{s}", [], "space"),
          ("en", "backup words for the trezor:\n{s}", ["trezor"], "numbered")]
for i in range(18):
    nw = 24 if i % 3 == 2 else 12
    w = mnemonic(nw)
    lang, t, keep, lay = SEED_T[i % len(SEED_T)]
    if lay == "space": s = " ".join(w)
    elif lay == "comma": s = ", ".join(w)
    elif lay == "newline": s = "\n".join(w)
    else: s = "\n".join("%d. %s" % (j + 1, x) for j, x in enumerate(w))
    msg = t.format(s=s).replace("12 words", "%d words" % nw)
    add("seed_phrase", msg, [s], keep, lang, "BIP-39 English list (trezor/python-mnemonic src/mnemonic/wordlist/english.txt), valid checksum; layout " + lay,
        [{"type": "bip39", "value": s}])

# ---------------------------------------------------------------- OTP
OTP_T = [("en", "your code is {o}", ["your code is"], 6), ("en", "G-{o} is your Google verification code", ["Google verification code"], 6),
         ("en", "Your Uber code is {o}. Never share this code.", ["Uber"], 4), ("en", "OTP {o}", [], 6),
         ("en", "the bank just texted me {o}, enter it on the login page", ["enter it on the login page"], 6),
         ("en", "2FA code: {o}", [], 6), ("en", "use backup code {o} for my github", ["github"], 8),
         ("de", "Dein Bestätigungscode lautet {o}", ["Bestätigungscode"], 6), ("de", "TAN: {o}", [], 6),
         ("es", "Su código de verificación es {o}", ["código de verificación"], 6), ("es", "el código que me llegó es {o}", ["me llegó"], 4),
         ("fr", "code de vérification : {o}", ["code de vérification"], 6), ("fr", "votre code de connexion est {o}", ["code de connexion"], 6),
         ("it", "il codice OTP è {o}", ["codice OTP"], 6), ("pt", "o seu código é {o}", ["o seu código é"], 6),
         ("pt", "código de acesso {o}", [], 6), ("nl", "je verificatiecode is {o}", ["verificatiecode"], 6),
         ("en", "WhatsApp code {o3}-{o3b}", ["WhatsApp"], 0), ("en", "Microsoft account security code: {o}", ["Microsoft account"], 7),
         ("en", "Steam Guard code {a}", ["Steam Guard"], -1)]
for lang, t, keep, n in OTP_T:
    if n == 0:
        a, b = pin(3), pin(3); add("otp", t.format(o3=a, o3b=b), [a + "-" + b], keep, lang, "WhatsApp 6-digit registration code layout NNN-NNN"); continue
    if n == -1:
        a = rs("23456789BCDFGHJKMNPQRTVWXY", 5); add("otp", t.format(a=a), [a], keep, lang, "Steam Guard 5-char code alphabet"); continue
    o = pin(n)
    add("otp", t.format(o=o), [o], keep, lang, "SMS/TOTP one-time-code wording (RFC 6238 6-digit); random digits")

# ---------------------------------------------------------------- IBAN
def be_bban():
    a = rs(DIG, 10); c = int(a) % 97 or 97; return a + "%02d" % c
IB = [("DE", lambda: rs(DIG, 18), "de", "meine IBAN ist {i}", ["meine IBAN ist"]),
      ("GB", lambda: ch(["NWBK", "BARC", "MIDL", "LOYD"]) + rs(DIG, 14), "en", "send it to my account {i}", ["send it to my account"]),
      ("FR", lambda: rs(DIG, 23), "fr", "mon IBAN : {i}", ["mon IBAN"]),
      ("ES", lambda: rs(DIG, 20), "es", "mi IBAN es {i}", ["mi IBAN es"]),
      ("IT", lambda: ch(UP) + rs(DIG, 22), "it", "l'IBAN per il bonifico è {i}", ["bonifico"]),
      ("NL", lambda: ch(["ABNA", "INGB", "RABO", "SNSB"]) + rs(DIG, 10), "nl", "maak het over naar {i}", ["maak het over naar"]),
      ("BE", be_bban, "nl", "rekeningnummer {i}", ["rekeningnummer"]),
      ("PT", lambda: rs(DIG, 21), "pt", "o meu IBAN é {i}", ["o meu IBAN"]),
      ("AT", lambda: rs(DIG, 16), "de", "Überweisung bitte auf {i}", ["Überweisung"]),
      ("CH", lambda: rs(DIG, 5) + rs(UP + DIG, 12), "de", "IBAN: {i}", []),
      ("IE", lambda: ch(["AIBK", "BOFI"]) + rs(DIG, 14), "en", "pay the rent into {i} on friday", ["pay the rent", "friday"])]
for i in range(22):
    cc, bb, lang, t, keep = IB[i % len(IB)]
    iban = iban_make(cc, bb())
    shown = group4(iban) if i % 2 == 0 else iban
    if i == 0: shown, src = "DE89 3704 0044 0532 0130 00", "ECBS/Wikipedia example IBAN DE89370400440532013000"
    else: src = "ISO 13616 IBAN, mod-97 check digits computed over a random BBAN of the national length"
    add("iban", t.format(i=shown), [shown], keep, lang, src, [{"type": "iban", "value": shown}])

# ---------------------------------------------------------------- national IDs
def ssn():
    while True:
        a = 1 + S.randbelow(899)
        if a != 666: return "%03d-%02d-%04d" % (a, 1 + S.randbelow(99), 1 + S.randbelow(9999))
def dni():
    n = S.randbelow(10**8); return "%08d%s" % (n, "TRWAGMYFPDXBNJZSQVHLCKE"[n % 23])
def nie():
    p = S.randbelow(3); n = S.randbelow(10**7)
    return "XYZ"[p] + "%07d" % n + "TRWAGMYFPDXBNJZSQVHLCKE"[int("%d%07d" % (p, n)) % 23]
def bsn():
    while True:
        d = [S.randbelow(10) for _ in range(8)]
        s = sum(x * w for x, w in zip(d, range(9, 1, -1))) % 11
        if s < 10 and d[0] != 0: return "".join(map(str, d)) + str(s)
def nir():
    body = "%d%02d%02d%02d%03d%03d" % (1 + S.randbelow(2), S.randbelow(100), 1 + S.randbelow(12), 1 + S.randbelow(95), 1 + S.randbelow(999), 1 + S.randbelow(999))
    k = 97 - int(body) % 97
    return "%s %s %s %s %s %s %02d" % (body[0], body[1:3], body[3:5], body[5:7], body[7:10], body[10:13], k)
def nif_pt():
    d = [ch([1, 2])] + [S.randbelow(10) for _ in range(7)]
    c = 11 - sum(x * w for x, w in zip(d, range(9, 1, -1))) % 11
    return "".join(map(str, d)) + str(0 if c >= 10 else c)
def be_nn():
    y, m, dd = S.randbelow(100), 1 + S.randbelow(12), 1 + S.randbelow(28); seq = 1 + S.randbelow(997)
    first = "%02d%02d%02d%03d" % (y, m, dd, seq); c = 97 - int(first) % 97
    return "%02d.%02d.%02d-%03d.%02d" % (y, m, dd, seq, c)
def se_pnr():
    while True:
        b = "%02d%02d%02d%03d" % (S.randbelow(100), 1 + S.randbelow(12), 1 + S.randbelow(28), S.randbelow(1000))
        for c in DIG:
            if luhn_ok(b + c): return b[:6] + "-" + b[6:] + c
def steuer_id():
    while True:
        ds = S.SystemRandom().sample(range(10), 9); dup = ch(ds); d = ds + [dup]
        d = [d[j] for j in sorted(range(10), key=lambda _: S.randbelow(10**6))]
        if d[0] == 0: continue
        prod = 10
        for x in d:
            s = (x + prod) % 10 or 10; prod = (s * 2) % 11
        c = 11 - prod; c = 0 if c == 10 else c
        return "".join(map(str, d)) + str(c)
NID = [("en", "my SSN is {v}", ["my SSN is"], ssn, None, "US SSN format AAA-GG-SSSS (SSA rules: area not 000/666/9xx)"),
       ("en", "social security number {v}, fill it in the form", ["fill it in the form"], ssn, None, "US SSN"),
       ("en", "SSN: {v}", [], lambda: ssn().replace("-", " "), None, "US SSN, space separated"),
       ("es", "mi DNI es {v}", ["mi DNI es"], dni, "dni", "Spanish DNI, mod-23 control letter"),
       ("es", "DNI {v} para la reserva", ["para la reserva"], dni, "dni", "Spanish DNI"),
       ("es", "NIE: {v}", [], nie, "dni", "Spanish NIE (X/Y/Z prefix), mod-23 letter"),
       ("nl", "mijn BSN is {v}", ["mijn BSN is"], bsn, "bsn", "Dutch BSN, 11-test"),
       ("nl", "burgerservicenummer {v}", [], bsn, "bsn", "Dutch BSN, 11-test"),
       ("fr", "mon numéro de sécu : {v}", ["numéro de sécu"], nir, "nir", "French NIR, key = 97 - (n mod 97)"),
       ("pt", "o meu NIF é {v}", ["o meu NIF"], nif_pt, "nif_pt", "Portuguese NIF, mod-11 check digit"),
       ("nl", "rijksregisternummer {v}", [], be_nn, "be_nn", "Belgian national register number, 97 - mod 97"),
       ("en", "personnummer {v}", [], se_pnr, "se_pnr", "Swedish personnummer, Luhn over 10 digits"),
       ("de", "meine Steuer-ID ist {v}", ["Steuer-ID"], steuer_id, "steuer_id", "German Steuer-IdNr, ISO 7064 MOD 11,10"),
       ("en", "passport number {v}, expires 2031", ["expires 2031"], lambda: ch("56") + rs(DIG, 8), None, "US passport number (9 digits)"),
       ("de", "Reisepassnummer {v}", [], lambda: "C" + rs("CFGHJKLMNPRTVWXYZ0123456789", 8), None, "German passport number (9 chars, BSI alphabet)"),
       ("it", "il numero del passaporto è {v}", ["passaporto"], lambda: rs(UP, 2) + rs(DIG, 7), None, "Italian passport number AA0000000"),
       ("fr", "numéro de passeport {v}", [], lambda: rs(DIG, 2) + rs(UP, 2) + rs(DIG, 5), None, "French passport number 00AA00000"),
       ("en", "fill in the visa form: name Jane Roe, passport {v}, born 1988", ["fill in the visa form", "Jane Roe"], lambda: rs(DIG, 9), None, "UK passport number (9 digits)"),
       ("es", "pasaporte {v}", [], lambda: rs(UP, 3) + rs(DIG, 6), None, "Spanish passport number AAA000000"),
       ("pt", "número do passaporte: {v}", [], lambda: rs(UP, 2) + rs(DIG, 6), None, "Portuguese passport number"),
       ("nl", "paspoortnummer {v}", [], lambda: rs(UP, 2) + rs(UP + DIG, 6) + rs(DIG, 1), None, "Dutch passport number (9 chars)"),
       ("es", "mi DNI: {v}", [], lambda: (lambda d: d[:2] + "." + d[2:5] + "." + d[5:8] + "-" + d[8])(dni()), "dni", "Spanish DNI written 12.345.678-Z"),
       ("nl", "BSN {v}", [], lambda: (lambda b: b[:4] + "." + b[4:6] + "." + b[6:])(bsn()), "bsn", "Dutch BSN written 1234.56.789")]
for lang, t, keep, f, chk, src in NID:
    v = f()
    add("national_id", t.format(v=v), [v], keep, lang, src, [{"type": chk, "value": v}] if chk else None)

# ---------------------------------------------------------------- connection strings
def upw(): return rs(AN, 10) + ch("-_.~") + rs(AN, 4)
CS_T = [("postgres://app:{p}@db.internal:5432/orders", "db.internal:5432/orders", "trufflehog uri detector; detect-secrets plugins/basic_auth.py"),
        ("DATABASE_URL=postgresql://deploy:{p}@10.1.2.3/prod", "10.1.2.3/prod", ".env DATABASE_URL; detect-secrets basic_auth"),
        ("mysql://root:{p}@localhost:3306/shop", "localhost:3306/shop", "basic_auth URI"),
        ("mongodb+srv://admin:{p}@cluster0.ab1cd.mongodb.net/test", "cluster0.ab1cd.mongodb.net", "trufflehog uri (mongodb allowlisted scheme)"),
        ("redis://:{p}@cache.example.com:6379/0", "cache.example.com:6379", "trufflehog uri (redis)"),
        ("amqp://guest2:{p}@rabbit.local:5672/", "rabbit.local:5672", "basic_auth URI"),
        ("https://bob:{p}@nas.home.arpa/share", "nas.home.arpa/share", "detect-secrets test_data/each_secret.py basic_auth http://username:...@example.com"),
        ("ftp://uploads:{p}@ftp.example.net/incoming", "ftp.example.net/incoming", "trufflehog uri (ftp)"),
        ("Server=sql01;Database=crm;User Id=sa;Password={p};", "Database=crm", "SQL Server ADO.NET connection string"),
        ("jdbc:postgresql://db:5432/app?user=svc&password={p}", "jdbc:postgresql://db:5432/app", "JDBC URL password parameter"),
        ("smtp://mailer:{p}@smtp.gmail.com:587", "smtp.gmail.com:587", "basic_auth URI"),
        ("DefaultEndpointsProtocol=https;AccountName=mystore;AccountKey={ak};EndpointSuffix=core.windows.net", "AccountName=mystore", "detect-secrets plugins/azure_storage_key.py"),
        ("can you check why psql fails with postgres://analytics:{p}@pg.example.org:5432/bi", "why psql fails", "basic_auth URI in a question"),
        ("verbinde dich mit mysql://wp:{p}@127.0.0.1/wordpress und sichere die Datenbank", "sichere die Datenbank", "basic_auth URI, German goal"),
        ("conéctate a postgres://ventas:{p}@db.local/ventas y exporta la tabla", "exporta la tabla", "basic_auth URI, Spanish goal"),
        ("chaîne de connexion : mongodb://user1:{p}@mongo.local:27017", "chaîne de connexion", "basic_auth URI, French"),
        ("la stringa di connessione è redis://default:{p}@redis.local:6379", "stringa di connessione", "basic_auth URI, Italian"),
        ("a string de conexão é postgres://loja:{p}@db.loja.pt/loja", "string de conexão", "basic_auth URI, Portuguese"),
        ("de verbinding is amqp://mq:{p}@mq.intern:5672", "de verbinding is", "basic_auth URI, Dutch"),
        ("git clone https://oauth2:{p}@gitlab.example.com/team/app.git", "gitlab.example.com/team/app.git", "basic_auth URI in git remote"),
        ("MONGO_URI=mongodb://app:{p}@mongo:27017/app?authSource=admin", "authSource=admin", ".env URI")]
for t, keep, src in CS_T:
    p = upw(); ak = rs(AN + "+/", 86) + "=="
    val = ak if "{ak}" in t else p
    lang = {"verb": "de", "conéc": "es", "chaîn": "fr", "la st": "it", "a str": "pt", "de ve": "nl"}.get(t[:5], "en")
    add("connection_string", t.format(p=p, ak=ak), [val], [keep], lang, src)

# ---------------------------------------------------------------- JWT
def jwt(alg="HS256", payload=None):
    h = {"alg": alg, "typ": "JWT"}
    now = 1700000000 + S.randbelow(10**8)
    p = payload or {"sub": rs(DIG, 8), "name": ch(["Jane Roe", "Max Muster", "Ana Silva"]), "iat": now, "exp": now + 3600}
    hp = b64u(json.dumps(h, separators=(",", ":")).encode()) + "." + b64u(json.dumps(p, separators=(",", ":")).encode())
    sig = b64u(hmac.new(os.urandom(32), hp.encode(), hashlib.sha256).digest()) if alg == "HS256" else b64u(os.urandom(256))
    return hp + "." + sig
JWT_T = [("en", "Authorization: Bearer {j}", ["Authorization: Bearer"]), ("en", "my session token is {j}", ["my session token is"]),
         ("en", "why does the API reject {j} ?", ["why does the API reject"]), ("en", "access_token={j}", []),
         ("en", "Cookie: auth-token={j}", ["Cookie"]), ("en", "curl -H \"Authorization: Bearer {j}\" https://api.example.com/me", ["https://api.example.com/me"]),
         ("de", "hier mein Token: {j}", ["hier mein Token"]), ("es", "este es el token JWT: {j}", ["token JWT"]),
         ("fr", "le jeton d'accès est {j}", ["jeton d'accès"]), ("it", "il token è {j}", []), ("pt", "o token de acesso: {j}", []),
         ("nl", "het toegangstoken is {j}", []), ("en", "{j}", []), ("en", "decode this for me: {j}", ["decode this for me"]),
         ("en", "SUPABASE_SERVICE_ROLE_KEY={j}", ["SUPABASE_SERVICE_ROLE_KEY"]), ("en", "id_token: {j}", []), ("en", "\"refresh\": \"{j}\"", [])]
for i, (lang, t, keep) in enumerate(JWT_T):
    if i == 14: j = jwt("HS256", {"iss": "supabase", "role": "service_role", "exp": 1983812996})
    else: j = jwt("RS256" if i % 3 == 1 else "HS256")
    add("jwt", t.format(j=j), [j], keep, lang, "gitleaks rule jwt (jwt.go) ey...ey... tps; RFC 7519 structure, random signature")

# ---------------------------------------------------------------- split
SPLIT = [("en", "my password is:", "{p}", lambda: pw()), ("en", "the wifi pw, so you have it", "{p}", lambda: pw()),
         ("de", "Das Passwort ist", "{p}", lambda: pw()), ("es", "la contraseña es esta:", "{p}", lambda: pw()),
         ("fr", "mot de passe :", "{p}", lambda: pw()), ("it", "ecco la password", "{p}", lambda: pw()),
         ("pt", "a senha é", "{p}", lambda: pw()), ("nl", "het wachtwoord:", "{p}", lambda: pw()),
         ("en", "here's the card number", "{p}", lambda: card_layout(luhn_complete("4111", 16), "space")),
         ("en", "card:", "{p}", lambda: card_layout(luhn_complete("5555", 16), "plain")),
         ("en", "and the CVC", "{p}", lambda: pin(3)), ("de", "PIN kommt gleich", "{p}", lambda: pin(4)),
         ("en", "my seed phrase, keep it safe:", "{p}", lambda: " ".join(mnemonic(12))),
         ("en", "the code they sent me", "{p}", lambda: pin(6)), ("en", "my aws secret key", "{p}", lambda: rs(AN + "/+", 40)),
         ("en", "github token next", "{p}", lambda: "ghp_" + rs(AN, 36)), ("es", "mi IBAN", "{p}", lambda: group4(iban_make("ES", rs(DIG, 20)))),
         ("en", "user is admin, password in next msg", "{p}", lambda: pw()), ("fr", "le code de la porte", "{p}", lambda: pin(4) + "B"),
         ("en", "router login: admin", "pass {p}", lambda: pw()), ("en", "ssn coming", "{p}", ssn)]
for lang, m1, m2, f in SPLIT:
    v = f(); chks = []
    if "card" in m1: chks = [{"type": "luhn", "value": v}]
    if "IBAN" in m1: chks = [{"type": "iban", "value": v}]
    if "seed" in m1: chks = [{"type": "bip39", "value": v}]
    add("split", [m1, m2.format(p=v)], [v], [m1], lang, "split across two messages (label then value); value shapes as in the single-message kinds", chks)

# ================================================================ look-alikes
L = []
def look(msg, keep, lang, source, checks=None): L.append((msg, keep, lang, source, checks))
# order numbers
for i in range(24):
    o = ["%03d-%07d-%07d" % (S.randbelow(1000), S.randbelow(10**7), S.randbelow(10**7)), rs(DIG, 10), "#" + rs(DIG, 5), "FR-2024-" + rs(DIG, 5)][i % 4]
    t = [("en", "where is my order {o}? it's been a week"), ("de", "Bestellnummer {o}, die Lieferung fehlt noch"), ("es", "mi pedido {o} no ha llegado"),
         ("fr", "numéro de commande {o}, je veux annuler"), ("it", "ordine {o} in ritardo"), ("pt", "encomenda {o} ainda não chegou"),
         ("nl", "bestelnummer {o} is niet bezorgd"), ("en", "Amazon order {o} arrived damaged")][i % 8]
    look(t[1].format(o=o), [o], t[0], "order number next to 'order' (Amazon 3-7-7 layout / shop numbers)")
# Luhn-passing and Luhn-failing references, labelled
for i in range(15):
    n = luhn_complete(ch(["7", "9", "0", "8"]) + rs(DIG, 2), 16) if i % 2 == 0 else luhn_fail("4", 16)
    kind = "luhn" if i % 2 == 0 else "luhn_fail"
    t = ["invoice reference {n}", "Rechnungsnummer {n}", "order number {n}", "número de factura {n}", "customer account ref {n} on the electricity bill"][i % 5]
    look(t.format(n=n), [n], ["en", "de", "en", "es", "en"][i % 5], "16-digit reference labelled as invoice/order/account; %s" % kind, [{"type": kind, "value": n}])
# IMEI (Luhn-passing, 15 digits)
for i in range(3):
    n = luhn_complete("35" + rs(DIG, 6), 15)
    look("my phone's IMEI is %s, is it blacklisted?" % n, [n], "en", "IMEI (Luhn, 15 digits), not a secret", [{"type": "luhn", "value": n}])
# tracking numbers
def ups():
    return "1Z" + rs(UP + DIG, 6) + rs(DIG, 2) + rs(DIG, 8)
TRK = [("en", "UPS tracking {t}, when will it arrive?", ups, "UPS 1Z tracking number"),
       ("en", "tracking number {t} (USPS)", lambda: "9400" + rs(DIG, 18), "USPS 94.. 22-digit tracking"),
       ("de", "DHL Sendungsnummer {t}", lambda: "JJD" + rs(DIG, 18), "DHL JJD tracking"),
       ("de", "DHL Paket {t} ist unterwegs", lambda: rs(DIG, 12), "DHL Paket 12-digit"),
       ("en", "FedEx tracking {t}", lambda: rs(DIG, 12), "FedEx 12-digit tracking"),
       ("en", "Royal Mail tracking {t}", lambda: rs(UP, 2) + rs(DIG, 9) + "GB", "UPU S10 tracking"),
       ("fr", "numéro de suivi La Poste {t}", lambda: rs(UP, 2) + rs(DIG, 9) + "FR", "UPU S10 tracking"),
       ("es", "número de seguimiento de Correos {t}", lambda: "PQ" + rs(UP + DIG, 21), "Correos tracking"),
       ("nl", "PostNL track & trace {t}", lambda: "3S" + rs(UP, 4) + rs(DIG, 9), "PostNL 3S tracking"),
       ("it", "codice di tracciamento BRT {t}", lambda: rs(DIG, 15), "BRT tracking"),
       ("pt", "código de rastreio CTT {t}", lambda: rs(UP, 2) + rs(DIG, 9) + "PT", "UPU S10 tracking"),
       ("en", "the UPS guy left a note, tracking {t}", lambda: "1Z999AA10123456784", "UPS documented sample tracking number")]
for r in range(3):
    for lang, t, f, src in TRK:
        v = f(); look(t.format(t=v), [v], lang, src)
# phone numbers
PH = [("en", "call me at +1 (415) 555-0132"), ("en", "my number is 415-555-0198"), ("de", "ruf mich an: +49 30 12345678"),
      ("de", "Handy 0171 2345678"), ("fr", "mon numéro : 06 12 34 56 78"), ("fr", "appelle le +33 1 42 68 53 00"),
      ("es", "mi móvil es +34 612 345 678"), ("it", "il mio numero è +39 347 123 4567"), ("pt", "o meu telemóvel é +351 912 345 678"),
      ("pt", "meu celular: (11) 98765-4321"), ("nl", "bel me op +31 6 12345678"), ("en", "UK office +44 20 7946 0958"),
      ("en", "text the plumber at 07700 900461"), ("en", "WhatsApp +1 202 555 0143")]
import re
for lang, m in PH:
    num = re.search(r"[+(0-9][0-9 ()\-]+[0-9]", m).group(0)
    look(m, [num], lang, "phone number (ITU/national formats; Ofcom/NANP drama ranges where available)")
# ISBN
def isbn13():
    b = "978" + rs(DIG, 9); c = (10 - sum(int(x) * (1 if i % 2 == 0 else 3) for i, x in enumerate(b)) % 10) % 10
    s = b + str(c); return "%s-%s-%s-%s-%s" % (s[:3], s[3], s[4:7], s[7:12], s[12])
for i in range(6):
    v = isbn13() if i else "978-0-306-40615-7"
    look(["is ISBN {v} the hardcover?", "order the book with ISBN {v}", "ISBN {v} – gibt es das als E-Book?", "busca el libro ISBN {v}", "livre ISBN {v}", "ISBN {v}"][i].format(v=v), [v],
         ["en", "en", "de", "es", "fr", "en"][i], "ISBN-13 with valid check digit (ISO 2108)")
# prices / dates / short numbers / flights / PNR
MISC = [("en", "it costs $2,499.99 on sale", ["$2,499.99"]), ("de", "der Preis ist 1.299,00 €", ["1.299,00 €"]),
        ("fr", "ça coûte 45,90 €", ["45,90 €"]), ("es", "cuesta 1.250 euros", ["1.250 euros"]), ("it", "costa 19,99 euro", ["19,99 euro"]),
        ("pt", "custa R$ 349,90", ["R$ 349,90"]), ("nl", "het kost € 12,50", ["€ 12,50"]), ("en", "budget is 4500 per month", ["4500"]),
        ("en", "meeting on 2024-03-15 at 14:00", ["2024-03-15", "14:00"]), ("de", "Termin am 15.03.2024 um 9:30", ["15.03.2024", "9:30"]),
        ("en", "born 04/07/1988", ["04/07/1988"]), ("fr", "rendez-vous le 12/11/2025", ["12/11/2025"]),
        ("en", "table for 4 at 7:30", ["table for 4 at 7:30"]), ("en", "room 214, floor 2", ["room 214"]),
        ("en", "gate B22, boarding 18:45", ["B22", "18:45"]), ("es", "mesa para 6 a las 21:00", ["mesa para 6", "21:00"]),
        ("it", "binario 7, partenza 8:15", ["binario 7", "8:15"]), ("nl", "bus 38 om 17:12", ["bus 38", "17:12"]),
        ("en", "my flight is LH 454 tomorrow", ["LH 454"]), ("en", "BA2490 got delayed", ["BA2490"]), ("de", "Flug UA 901 nach SFO", ["UA 901"]),
        ("fr", "vol AF1234 annulé", ["AF1234"]), ("es", "vuelo IB3166 a Madrid", ["IB3166"]), ("pt", "voo TP1351 para Lisboa", ["TP1351"]),
        ("nl", "vlucht KL1001 vertrekt om 10:05", ["KL1001", "10:05"]), ("it", "volo AZ610 per New York", ["AZ610"]),
        ("en", "set an alarm for 6:45", ["6:45"]), ("en", "I ran 5.2 km in 28:14", ["5.2 km", "28:14"]),
        ("en", "the recipe needs 250 g flour and 3 eggs", ["250 g"]), ("de", "PLZ 10115 Berlin", ["10115"]),
        ("en", "zip 94107", ["94107"]), ("en", "temperature is 21.5°C", ["21.5°C"]), ("en", "population 8,336,817", ["8,336,817"]),
        ("en", "score was 3-1", ["3-1"]), ("en", "page 112 of 430", ["page 112 of 430"]), ("es", "llego el 3 de mayo", ["3 de mayo"])]
for lang, m, keep in MISC: look(m, keep, lang, "price/date/time/short number/flight number")
for i in range(16):
    p = rs("ABCDEFGHJKLMNPQRSTUVWXYZ", 6)
    t = [("en", "booking reference {p}"), ("en", "my PNR is {p}, can you check seat selection?"), ("de", "Buchungscode {p}"),
         ("es", "localizador de reserva {p}"), ("fr", "référence de réservation {p}"), ("it", "codice di prenotazione {p}"),
         ("pt", "código de reserva {p}"), ("nl", "boekingscode {p}"), ("en", "confirmation code {p} for the Lufthansa flight"),
         ("en", "Ryanair reservation {p}"), ("en", "hotel confirmation #{p}"), ("de", "Auftragsnummer {p}")][i % 12]
    look(t[1].format(p=p), [p], t[0], "6-letter airline PNR / booking reference (IATA record locator)")
# hashes / uuids / versions / colours
import uuid
for i in range(15):
    h = rs(HEX, 40); sh = h[:7]
    t = [("the bug was introduced in commit {h}", h), ("fixed in {s}, can you cherry-pick it?", sh), ("git revert {h}", h),
         ("der Fehler kam mit Commit {s}", sh), ("el commit {h} rompió los tests", h), ("sha256 of the ISO is {h64}", None),
         ("md5sum says {m}", None), ("Docker image digest sha256:{h64}", None), ("le commit {s} corrige le bug", sh), ("HEAD is at {s} Merge branch 'main'", sh)][i % 10]
    h64 = rs(HEX, 64); m = rs(HEX, 32)
    msg = t[0].format(h=h, s=sh, h64=h64, m=m)
    kp = t[1] or (h64 if "h64" in t[0] else m)
    look(msg, [kp], ["en", "en", "en", "de", "es", "en", "en", "en", "fr", "en"][i % 10], "git commit hash / file digest discussed as such (gitleaks generic fps: MantleAPI_version=<sha1>)")
for i in range(12):
    u = str(uuid.uuid4())
    t = ["Bug report: request id %s returns 500", "crash log: session %s", "correlation-id: %s in the logs",
         "Ticket: device UUID %s doesn't sync", "Fehler-ID %s", "el pedido tiene el id %s", "trace_id=%s", "credentialsId: '%s'"][i % 8]
    look(t % u, [u], ["en", "en", "en", "en", "de", "es", "en", "en"][i % 8], "UUID in a bug report / log (gitleaks generic fps credentialsId, report_access_id)")
VERS = [("en", "update to v2.14.3", "v2.14.3"), ("en", "Python 3.11.7 is installed", "3.11.7"), ("en", "iOS 17.4.1 broke bluetooth", "17.4.1"),
        ("de", "Version 1.0.0-rc.2 ist raus", "1.0.0-rc.2"), ("en", "Windows 11 22H2 build 22621.2428", "22621.2428"), ("en", "node v20.11.1", "v20.11.1"),
        ("fr", "la version 4.2.0 est sortie", "4.2.0"), ("en", "Chrome 122.0.6261.94", "122.0.6261.94"), ("es", "la versión 10.3.2 falla", "10.3.2"),
        ("en", "org.slf4j:slf4j-api:1.7.36", "org.slf4j:slf4j-api:1.7.36"), ("nl", "versie 5.0.1", "5.0.1"), ("en", "kernel 6.8.0-45-generic", "6.8.0-45-generic"),
        ("it", "aggiorna alla versione 3.2.1", "3.2.1"), ("pt", "versão 8.1.0 instalada", "8.1.0")]
for lang, m, v in VERS:
    look(m, [v], lang, "version string (semver / build numbers); gitleaks generic fps slf4j-api:jar")
for i in range(8):
    c = "#" + rs("0123456789ABCDEF", 6)
    look(["make the header %s", "use %s for the button", "Hintergrundfarbe %s", "el color es %s", "couleur %s", "colore %s", "cor %s", "kleur %s"][i] % c, [c],
         ["en", "en", "de", "es", "fr", "it", "pt", "nl"][i], "hex colour")
# SKUs / product keys named as SKUs
for i in range(12):
    s = [rs(UP, 2) + "-" + rs(DIG, 4) + "-" + ch(["BLK", "WHT", "RED"]), rs(DIG, 4) + "-" + rs(DIG, 2) + "-" + ch(UP), "B0" + rs(UP + DIG, 8), rs(UP, 3) + rs(DIG, 5)][i % 4]
    t = ["SKU {s} is out of stock", "Artikelnummer {s}", "reorder SKU {s}", "the ASIN is {s}", "référence produit {s}", "codice articolo {s}", "SKU: {s}", "productcode {s}"][i % 8]
    look(t.format(s=s), [s], ["en", "de", "en", "en", "fr", "it", "en", "nl"][i % 8], "SKU / product code labelled as such")
# password word without password
PWW = [("en", "I forgot my password, how do I reset it?"), ("en", "remind me to change my wifi password"), ("en", "what's a good password manager?"),
       ("en", "the password must be at least 12 characters"), ("en", "is it safe to reuse passwords?"), ("en", "my password expired again"),
       ("en", "send me the password reset link for Spotify"), ("en", "how do I find the wifi password on my Mac?"),
       ("en", "can you remind me of my PIN? I think I wrote it in notes"), ("en", "the bank asked for my PIN on the phone, is that a scam?"),
       ("en", "never share your one-time code with anyone"), ("en", "where do I find the CVC on my card?"),
       ("en", "how long should a seed phrase be?"), ("en", "set up 2FA for my email"), ("en", "rotate the API keys next Monday"),
       ("en", "what is a private key?"), ("en", "my passcode is not working after the update"), ("en", "pass me the salt"),
       ("de", "Ich habe mein Passwort vergessen"), ("de", "Erinner mich daran, das WLAN-Passwort zu ändern"), ("de", "Wo finde ich meine PIN?"),
       ("es", "olvidé mi contraseña"), ("es", "recuérdame cambiar la contraseña del wifi"), ("es", "¿dónde está el código de seguridad de la tarjeta?"),
       ("fr", "j'ai oublié mon mot de passe"), ("fr", "rappelle-moi de changer le mot de passe du wifi"), ("fr", "comment réinitialiser mon code PIN ?"),
       ("it", "ho dimenticato la password"), ("it", "ricordami di cambiare la password del wifi"), ("pt", "esqueci minha senha"),
       ("pt", "lembra-me de mudar a senha do wifi"), ("nl", "ik ben mijn wachtwoord vergeten"), ("nl", "herinner me eraan mijn wachtwoord te wijzigen"),
       ("en", "password: see 1Password vault"), ("en", "the password is on the sticker under the router"), ("en", "password: ********"),
       ("en", "my password is the same as before"), ("de", "das Passwort steht auf der Rückseite des Routers"), ("en", "token expired, please log in again"),
       ("en", "postgres://USER:PASSWORD@HOST:5432/DB is the template, fill it later"), ("en", "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app"),
       ("en", "curl -u <user:password> https://test.com/endpoint"), ("en", "aws_access_key: AKIAIOSFODNN7EXAMPLE is the example from the docs"),
       ("en", "key = AKIAXXXXXXXXXXXXXXXX"), ("en", "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx is the placeholder in the README"),
       ("en", "OPENAI_API_KEY=your-api-key-here"), ("en", "-----BEGIN PUBLIC KEY----- is that safe to share?"),
       ("en", "Answer: the password policy needs uppercase, digits and symbols")]
for lang, m in PWW:
    look(m, [m], lang, "keyword without a secret (gitleaks fps: AKIAIOSFODNN7EXAMPLE, AKIAXXXX, ghp_xxx, curl -u <user:password>; trufflehog uri skips $-variables)")
# BIP-39 words in ordinary sentences
SENT = ["I want to buy a new jacket and a lamp for the kitchen before the holiday",
        "the cat jumped over the fence into the garden",
        "shopping list: apple, banana, bread, butter, cheese, coffee, egg, milk",
        "remind me to call my brother about the train ticket",
        "we need more paper, a pencil and some glue for school",
        "the movie about the ocean and the island was great",
        "can you find a cheap hotel near the river with a pool",
        "order a pizza with cheese and tomato for dinner",
        "add butter, sugar, flour and lemon to the grocery list",
        "plan a trip to the mountain next summer with my family",
        "ich brauche ein neues Kabel für die Kamera, model usb c",
        "buy a gift for my uncle: a wallet or a watch",
        "the doctor said I need more water and sleep",
        "pick up the kids at school, then go to the bank and the post office",
        "book a table, wine and dessert for two on friday",
        "abandon ship! just kidding, the ability to absorb the news is great",
        "the robot in the museum can dance and sing",
        "write a poem about the moon, a wolf and the forest"]
for i, s in enumerate(SENT):
    n = sum(1 for w in re.findall(r"[a-z]+", s) if w in set(WORDS))
    look(s, [s], "de" if s.startswith("ich") else "en", "ordinary sentence; %d words are in the BIP-39 English list" % n)
# meeting codes in public invitations (decision: keep IDs, see README)
for i in range(6):
    zid = "%s %s %s" % (rs(DIG, 3), rs(DIG, 4), rs(DIG, 4)); gm = "%s-%s-%s" % (rs(LO, 3), rs(LO, 4), rs(LO, 3))
    m = [("Join Zoom Meeting, Meeting ID: %s" % zid, zid), ("Google Meet: meet.google.com/%s" % gm, gm), ("Teams meeting ID %s" % zid, zid),
         ("webinar link https://zoom.us/j/%s" % zid.replace(" ", ""), zid.replace(" ", "")), ("Einladung: Meeting-ID %s" % zid, zid), ("réunion Meet %s" % gm, gm)][i]
    look(m[0], [m[1]], ["en", "en", "en", "en", "de", "fr"][i], "meeting ID in a public invitation (decision: keep; passcodes are secrets)")
# misc identifiers that are not secrets
OTHER = [("en", "VAT number DE123456789 on the invoice", ["DE123456789"]), ("en", "ISIN US0378331005", ["US0378331005"]),
         ("en", "IP 192.168.1.10 is the printer", ["192.168.1.10"]), ("en", "the MAC address is 00:1A:2B:3C:4D:5E", ["00:1A:2B:3C:4D:5E"]),
         ("de", "Kundennummer 10293847", ["10293847"]), ("en", "library card account 2938", ["2938"]),
         ("en", "license plate B-MW 1234", ["B-MW 1234"]), ("en", "error code 0x80070005", ["0x80070005"]),
         ("en", "HTTP 404 on /api/v2/users", ["404", "/api/v2/users"]), ("en", "coordinates 52.5200, 13.4050", ["52.5200, 13.4050"]),
         ("en", "BIC COBADEFFXXX for the transfer", ["COBADEFFXXX"]), ("en", "serial number C02XK1ZJJG5H on the laptop", ["C02XK1ZJJG5H"]),
         ("en", "ticket JIRA-4821", ["JIRA-4821"]), ("en", "PR #1288 merged", ["#1288"]), ("en", "case number 2024-CV-00381", ["2024-CV-00381"]),
         ("en", "the loyalty card number is printed as member 7741 2290", ["7741 2290"]), ("en", "my locker is 38", ["38"]),
         ("en", "wifi network name is FRITZ!Box 7590 XY", ["FRITZ!Box 7590 XY"]), ("en", "use the public key ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl", ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"]),
         ("en", "the Base64 of 'hello world' is aGVsbG8gd29ybGQ=", ["aGVsbG8gd29ybGQ="]), ("en", "Bitcoin address bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq for donations", ["bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"]),
         ("en", "the article DOI is 10.1038/nphys1170", ["10.1038/nphys1170"]), ("fr", "numéro SIRET 732 829 320 00074", ["732 829 320 00074"]),
         ("en", "GTIN 4006381333931 on the box", ["4006381333931"]), ("en", "room code for the escape room game: table 12", ["table 12"])]
for lang, m, keep in OTHER:
    look(m, keep, lang, "public identifier / non-secret code (GS1 GTIN, ISIN, BIC, DOI, public key, BIP-173 example address)")


GOALS = [("en", "remind me to pay invoice 4471 on the 15th", ["invoice 4471", "15th"]), ("en", "call extension 2231 at the office", ["extension 2231"]),
         ("en", "set the thermostat to 21 and the timer to 45 minutes", ["21", "45 minutes"]), ("en", "book 2 tickets for row 14 seats 7 and 8", ["row 14"]),
         ("en", "the parcel locker number is 112 at the station", ["112"]), ("en", "transfer 150 EUR to Anna for the concert", ["150 EUR"]),
         ("en", "my frequent flyer number is on the card, tier gold", ["tier gold"]), ("en", "find the 2019 tax return PDF", ["2019"]),
         ("en", "apartment 4B, buzzer 12", ["4B", "buzzer 12"]), ("en", "train ICE 597 leaves at 08:34 from platform 9", ["ICE 597", "08:34"]),
         ("de", "erinnere mich an die Rechnung 2024-0815 am Montag", ["2024-0815"]), ("de", "Zimmer 305, Frühstück um 7", ["Zimmer 305"]),
         ("de", "Bitte überweise 89,90 € für das Abo", ["89,90 €"]), ("es", "la cita es el lunes a las 10:30 en la consulta 3", ["10:30"]),
         ("es", "mi número de socio del gimnasio es 4521", ["4521"]), ("es", "pedido 8829-AB listo para recoger", ["8829-AB"]),
         ("fr", "le colis 6A12345678901 est en retard", ["6A12345678901"]), ("fr", "chambre 12, code postal 75011", ["75011"]),
         ("it", "il treno Frecciarossa 9541 parte alle 7:05", ["9541", "7:05"]), ("it", "fattura n. 2024/118 da pagare", ["2024/118"]),
         ("pt", "a consulta é às 15h no consultório 2", ["15h"]), ("pt", "fatura nº FT 2024/331", ["FT 2024/331"]),
         ("nl", "factuurnummer 2024-00912, betalen voor vrijdag", ["2024-00912"]), ("nl", "huisnummer 27a, postcode 1012 AB", ["1012 AB"]),
         ("en", "the wifi network is called Pretty Fly for a WiFi", ["Pretty Fly for a WiFi"]), ("en", "my PIN changed last week, remind me to update the notes", ["my PIN changed last week"]),
         ("en", "code review for PR 77 is due Friday", ["PR 77"]), ("en", "the area code is 212", ["212"]),
         ("en", "verify the checksum 0x1F3A before flashing", ["0x1F3A"]), ("en", "model number WH-1000XM5", ["WH-1000XM5"]),
         ("en", "account number for the utility company: customer 55210398 (not bank)", ["55210398"]), ("en", "our Wi-Fi channel is 11, 2.4 GHz", ["11, 2.4 GHz"])]
for lang, m, keep in GOALS:
    look(m, keep, lang, "numbers and codes inside everyday goals")

# ---------------------------------------------------------------- assemble
out = []
bykind = {}
for c in cases:
    k = c["kind"]; idx = bykind.get(k, 0); bykind[k] = idx + 1
    c2 = {"id": "%s-%03d" % (k.replace("_", "-"), idx), "kind": k, "split": "frozen" if idx % 5 in (0, 3) else "dev"}
    c2.update({x: c[x] for x in ("messages", "secret", "keep", "language", "source")})
    if "checks" in c: c2["checks"] = c["checks"]
    out.append(c2)
for idx, (msg, keep, lang, src, chks) in enumerate(L):
    c2 = {"id": "lookalike-%03d" % idx, "kind": "lookalike", "split": "frozen" if idx % 5 in (0, 3) else "dev",
          "messages": [msg], "secret": [], "keep": keep, "language": lang, "source": src}
    if chks: c2["checks"] = chks
    out.append(c2)
json.dump(out, open(OUT, "w"), ensure_ascii=False, indent=1)
print(len(out), "cases")
